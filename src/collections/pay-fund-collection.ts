/**
 * A payment into a fund collection: a pay-in transaction of type FUND_COLLECTION with an `FC-`
 * reference, in the collection's application and environment, whose merchant reference is the
 * collection's slug and description its title. It is written and started exactly like a direct
 * charge (`insertTransaction`, then `initiateTransaction`), so the poller, callbacks, webhooks and
 * the ledger treat it like any other pay-in.
 */
import { and, eq, lte } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { fundCollections } from '../db/schema-collections.ts';
import { isAcceptingPayments } from '../accounts/applications.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { nationalNumber, normalizeMsisdn } from '../domain/msisdn.ts';
import { operatorOfNumber } from '../domain/operator-prefixes.ts';
import type { Services } from '../services.ts';
import { collectionStatus, findCollectionBySlug, type FundCollectionRow } from './fund-collections.ts';
import { initiateTransaction, offeredRails, insertTransaction, type RailRow, refreshTransaction, type TransactionRow } from '../payments/index.ts';
import { transaction } from '../db/client.ts';

/** A payment as the page or the JSON API sends it (free text already bounded by the caller). */
export interface CollectPaymentInput {
  slug: string;
  /** Base units; required for a free-amount collection, ignored for a fixed one. */
  amount?: number | undefined;
  /** The rail's provider code, e.g. MTN_MOMO_CM. */
  paymentMethod: string;
  /** The paying mobile-money number, in any common form (normalised for the rail's country). */
  payerAccount: string;
  /** Kept only when the collection collects customer information. */
  payerName?: string | undefined;
  payerEmail?: string | undefined;
}

/** The started payment: its transaction, and the operator's page on redirect rails. */
export interface StartedCollectPayment {
  row: TransactionRow;
  collection: FundCollectionRow;
  redirectUrl?: string;
}

/** A collection that can take a payment now, with its application's name and branding. */
export interface OpenCollection {
  row: FundCollectionRow;
  application: { id: string; name: string; logoUrl: string | null; themeColor: string | null };
}

/**
 * The collection of `slug` when it takes payments now. Throws 404 COLLECTION_NOT_FOUND for an
 * unknown slug, 410 COLLECTION_NOT_AVAILABLE when it is CLOSED, EXPIRED or DELETED, its
 * application deleted, or the merchant not accepting payments (suspended).
 */
export async function findOpenCollection(services: Pick<Services, 'db' | 'clock'>, slug: string): Promise<OpenCollection> {
  const found = await findCollectionBySlug(services.db, slug);
  if (!found) throw new ApiError('COLLECTION_NOT_FOUND');
  const status = collectionStatus(found.row, services.clock.now());
  if (status !== 'ACTIVE' || found.application.deletedAt !== null || !(await isAcceptingPayments(services.db, found.application.id))) {
    throw new ApiError('COLLECTION_NOT_AVAILABLE');
  }
  return { row: found.row, application: found.application };
}

/** The rails offered to the collection's payers: its currency and environment, the merchant's country (`offeredRails`). */
export async function collectionRails(services: Pick<Services, 'db' | 'connectors'>, row: FundCollectionRow): Promise<RailRow[]> {
  return offeredRails(services, row);
}

/**
 * Checks, writes and starts a payment. Throws COLLECTION_NOT_FOUND / COLLECTION_NOT_AVAILABLE
 * (see `findOpenCollection`), PROVIDER_NOT_FOUND (a rail not offered for this collection),
 * VALIDATION_ERROR (`amount` missing for a free amount, `payerAccount` not a number of the rail's
 * country or of another operator), AMOUNT_BELOW_MINIMUM / AMOUNT_ABOVE_MAXIMUM (the rail's limits).
 * Operator outcomes are never thrown: they end on the transaction (business outcomes are data).
 */
export async function payFundCollection(services: Services, input: CollectPaymentInput): Promise<StartedCollectPayment> {
  const open = await findOpenCollection(services, input.slug);
  const collection = open.row;
  const rails = await collectionRails(services, collection);
  const rail = rails.find((r) => r.code === input.paymentMethod);
  if (!rail) throw new ApiError('PROVIDER_NOT_FOUND');
  const amount = collection.isAmountFixed ? collection.amount! : input.amount;
  if (amount === undefined || amount === null) throw validationError({ amount: 'Saisissez le montant que vous souhaitez donner.' });
  if (amount < rail.minAmount) {
    throw new ApiError('AMOUNT_BELOW_MINIMUM', {
      message: `${rail.name} accepte les paiements à partir de ${rail.minAmount} ${rail.currency}.`,
    });
  }
  if (amount > rail.maxAmount) {
    throw new ApiError('AMOUNT_ABOVE_MAXIMUM', {
      message: `${rail.name} accepte les paiements jusqu'à ${rail.maxAmount} ${rail.currency}.`,
    });
  }
  const payerAccount = normalizeMsisdn(input.payerAccount, rail.country);
  if (!payerAccount) throw validationError({ payerAccount: `Ce numéro n'est pas un numéro de téléphone valide (${rail.country}).` });
  const operator = operatorOfNumber(nationalNumber(payerAccount, rail.country), rail.country);
  if (operator && operator !== rail.operator) {
    const other = rails.find((r) => r.operator === operator && r.country === rail.country);
    throw validationError({
      payerAccount: other
        ? `Ce numéro est un numéro ${other.name}, pas ${rail.name}. Choisissez ${other.name} ou saisissez un autre numéro.`
        : `Ce numéro n'est pas un numéro ${rail.name}.`,
    });
  }
  const connector = resolveConnector(services.connectors, rail.code, collection.environment as Environment)!;
  const now = services.clock.now();
  const row = await transaction(services.db, async (tx) => {
    // Serialized with the close: the collection row is share-locked while the payment is
    // written, so a close (an UPDATE of that row) waits for it, and a payment that comes after
    // an acknowledged close sees CLOSED here and is refused.
    const [locked] = await tx.select().from(fundCollections).where(eq(fundCollections.id, collection.id)).for('share');
    if (!locked || collectionStatus(locked, services.clock.now()) !== 'ACTIVE') throw new ApiError('COLLECTION_NOT_AVAILABLE');
    return insertTransaction(
      tx,
      {
        id: services.ids.uuid(),
        reference: `FC-${services.ids.hex(6).toUpperCase()}`,
        applicationId: collection.applicationId,
        direction: 'PAY_IN',
        type: 'FUND_COLLECTION',
        environment: collection.environment,
        amount,
        currency: collection.currency,
        description: collection.title,
        paymentMethod: rail.code,
        payerAccount,
        payerName: collection.collectCustomerInfo ? (input.payerName ?? null) : null,
        payerEmail: collection.collectCustomerInfo ? (input.payerEmail ?? null) : null,
        merchantReference: collection.slug,
        // Until initiation is recorded, the poller treats the row as a possible crash leftover.
        nextPollAt: new Date(now.getTime() + services.config.connectorTimeoutMs + 5000),
      },
      now,
    );
  });
  const initiated = await initiateTransaction(services, row, rail, connector);
  const [fresh] = await services.db.select().from(transactions).where(eq(transactions.id, row.id)).limit(1);
  return { row: fresh ?? row, collection, ...(initiated.redirectUrl ? { redirectUrl: initiated.redirectUrl } : {}) };
}

/** The FUND_COLLECTION pay-in `reference`, or null. */
export async function findCollectPayment(services: Pick<Services, 'db'>, reference: string): Promise<TransactionRow | null> {
  if (!/^FC-[0-9A-F]{12}$/.test(reference)) return null;
  const [row] = await services.db
    .select()
    .from(transactions)
    .where(and(eq(transactions.reference, reference), eq(transactions.type, 'FUND_COLLECTION')))
    .limit(1);
  return row ?? null;
}

/**
 * The payment re-read after its backstop when it is PENDING and due: the row is claimed like the
 * poller claims it (compare-and-set on `next_poll_at`, leased for `POLLER_LEASE_MS`), so a read
 * asks the operator at most once per poll interval and never concurrently with the poller.
 */
export async function refreshCollectPayment(services: Services, row: TransactionRow): Promise<TransactionRow> {
  if (row.status !== 'PENDING') return row;
  const now = services.clock.now();
  const [claimed] = await services.db
    .update(transactions)
    .set({ nextPollAt: new Date(now.getTime() + services.config.pollerLeaseMs) })
    .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING'), lte(transactions.nextPollAt, now)))
    .returning();
  if (claimed) {
    try {
      await refreshTransaction(services, claimed);
    } catch (error) {
      services.log.error({ err: error, reference: row.reference }, 'refreshing a fund collection payment on read failed');
    }
  }
  const [fresh] = await services.db.select().from(transactions).where(eq(transactions.id, row.id)).limit(1);
  return fresh ?? row;
}
