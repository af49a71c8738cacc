/**
 * Refunds: a SUCCESS pay-in is refunded, fully or partly, by a pay-out to the payer's account on
 * the pay-in's rail, through the same funded path as a transfer: amount + the rail's pay-out fee
 * reserved from the merchant's available balance when it is accepted (400 INSUFFICIENT_BALANCE
 * otherwise, and nothing is sent). Σ of the refunds whose money has left or may still leave
 * (`committedRefunds`) never exceeds the pay-in's amount: the pay-in row is locked (`FOR UPDATE`)
 * while the refund is created, so concurrent refunds take turns. When a refund succeeds its amount is added to the pay-in's `refundedAmount`
 * in the same database transaction, and a pay-in refunded in full moves SUCCESS → REFUNDED (the
 * only transition out of SUCCESS), with its event and `payment.refunded` webhook. The refund itself
 * announces `refund.success` / `refund.failed`. A refund of a late success (see late-success.ts) is
 * funded from SUSPENSE and carries no fee. On a rail whose operator refunds whole payments by their
 * own id (`Connector.refundsWholePayments`: Airtel), a merchant refund is the pay-in's whole
 * amount, once, and the connector sends it to that refund API (`PrepareRequest.refund`).
 */
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications, transactionEvents, transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import {
  computeFee,
  createOnce,
  type FeeRule,
  findActiveRail,
  findReplay,
  getTransaction,
  idempotencyScope,
  initiateTransaction,
  insertTransaction,
  railTermsFor,
  reservePayOut,
  type TransactionRow,
} from '../payments/core.ts';

/** A refund request: the pay-in's reference, an amount (default: all that remains) and a reason. */
export interface RefundInput {
  reference: string;
  amount?: number | undefined;
  reason?: string | undefined;
}

/** The 201 `data` of a refund: the refund pay-out's reference and the pay-in's. */
export interface RefundData {
  reference: string;
  paymentReference: string;
  status: 'PENDING';
  amount: number;
  feeAmount: number;
  currency: string;
  reason: string | null;
}

/** Who asks: the API key's application and environment (a LIVE key never refunds a TEST pay-in, nor the reverse). */
export interface RefundCaller {
  applicationId: string;
  environment: Environment;
}

/**
 * Σ of a pay-in's merchant-funded refunds whose money has left or may still leave (base units),
 * read in `tx`: PENDING, SUCCESS, FAILED with their reservation held (failed at their deadline:
 * the operator may still pay them), and FAILED but paid late (`isLateSuccess`: the reservation
 * was consumed). Only a refund whose reservation was released is left out. Refunds of late
 * successes (SUSPENSE) return another payment's money and do not count. The one rule of what
 * remains refundable: `insertRefund` reads it under the pay-in's row lock, and the dashboard's
 * views through `refundableAmount`.
 */
export async function committedRefunds(tx: Db, paymentId: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${transactions.amount}), 0)::text` })
    .from(transactions)
    .where(
      and(
        eq(transactions.refundOf, paymentId),
        sql`${transactions.fundingSource} is distinct from 'SUSPENSE'`,
        or(
          inArray(transactions.status, ['PENDING', 'SUCCESS']),
          eq(transactions.isReservationHeld, true),
          eq(transactions.isLateSuccess, true),
        ),
      ),
    );
  return Number(row?.total ?? 0);
}

/**
 * What remains refundable of `payment` (base units): its amount less `committedRefunds`, and 0
 * for a pay-in that is not SUCCESS. Read without a lock: a view, not a decision (a refund
 * decides under the pay-in's row lock).
 */
export async function refundableAmount(db: Db, payment: Pick<TransactionRow, 'id' | 'direction' | 'status' | 'amount'>): Promise<number> {
  if (payment.direction !== 'PAY_IN' || payment.status !== 'SUCCESS') return 0;
  return Math.max(payment.amount - (await committedRefunds(db, payment.id)), 0);
}

/**
 * The rail and connector a refund of `payment` is paid out on: its own rail, active, with a
 * connector in its environment; null when it has none (a refund is then PROVIDER_NOT_FOUND).
 */
async function refundRail(services: Pick<Services, 'db' | 'connectors'>, payment: Pick<TransactionRow, 'paymentMethod' | 'environment'>) {
  const rail = payment.paymentMethod ? await findActiveRail(services.db, payment.paymentMethod) : null;
  const connector = rail ? resolveConnector(services.connectors, rail.code, payment.environment as Environment) : null;
  return rail && connector ? { rail, connector } : null;
}

/** Whether a merchant may refund a payment now, and how much of it remains refundable (base units). */
export interface Refundability {
  isRefundable: boolean;
  refundableAmount: number;
}

/**
 * What the dashboard says of refunding `payment`: `refundableAmount` as above, and
 * `isRefundable` when a merchant refund asked now would pass `startRefund`'s checks before its
 * lock — something remains, a payer to pay back, a rail that pays out. A view, read without a
 * lock: the refund itself decides (and may still refuse for the balance or the rail's limits).
 */
export async function refundability(
  services: Pick<Services, 'db' | 'connectors'>,
  payment: Pick<TransactionRow, 'id' | 'direction' | 'status' | 'amount' | 'paymentMethod' | 'payerAccount' | 'environment'>,
): Promise<Refundability> {
  const amount = await refundableAmount(services.db, payment);
  const route = amount > 0 && payment.payerAccount ? await refundRail(services, payment) : null;
  // A rail that refunds whole payments only (Airtel) refunds one that nothing has been refunded of.
  const isRefundable = route !== null && (!route.connector.refundsWholePayments || amount === payment.amount);
  return { isRefundable, refundableAmount: amount };
}

/**
 * Refunds the pay-in `input.reference` of `caller.applicationId`. Throws TRANSACTION_NOT_FOUND,
 * REFUND_NOT_ALLOWED (not SUCCESS; on a whole-payments rail, not the whole amount, a second
 * refund, or no operator transaction id), REFUND_AMOUNT_EXCEEDED (more than what remains),
 * PROVIDER_NOT_FOUND (rail gone), INSUFFICIENT_BALANCE, IDEMPOTENCY_KEY_REUSED.
 */
export async function refundPayment(services: Services, caller: RefundCaller, input: RefundInput, idempotencyKey?: string): Promise<RefundData> {
  const scope = idempotencyScope(caller.applicationId, idempotencyKey, 'refund', { ...input });
  const replay = await findReplay<RefundData>(services, scope);
  if (replay) return replay;
  // Scoped like a status read: another application's or the other environment's reference is unknown.
  const payment = await getTransaction(services, caller, 'PAY_IN', input.reference);
  return startRefund(services, payment, { amount: input.amount, reason: input.reason ?? null, funding: 'MERCHANT' }, scope);
}

/**
 * The dashboard's refund: the pay-in `input.reference` of any application of `merchantId`
 * (another merchant's reference is TRANSACTION_NOT_FOUND, like an unknown one).
 */
export async function refundMerchantPayment(services: Services, merchantId: string, input: RefundInput): Promise<RefundData> {
  const [found] = await services.db
    .select({ payment: transactions })
    .from(transactions)
    .innerJoin(applications, eq(applications.id, transactions.applicationId))
    .where(and(eq(transactions.reference, input.reference), eq(transactions.direction, 'PAY_IN'), eq(applications.merchantId, merchantId)));
  if (!found) throw new ApiError('TRANSACTION_NOT_FOUND');
  return startRefund(services, found.payment, { amount: input.amount, reason: input.reason ?? null, funding: 'MERCHANT' });
}

/**
 * Why a refund on a rail that refunds whole payments only (`Connector.refundsWholePayments`:
 * Airtel Money) is refused: a partial amount, a payment already (partly) refunded, or a payment
 * whose operator id Kolo never learnt.
 */
function wholeOnlyMessage(locked: TransactionRow, remaining: number): string {
  if (remaining !== locked.amount) return "Ce paiement a déjà été remboursé : sur ce moyen de paiement, l'opérateur ne rembourse un paiement qu'une fois, en entier.";
  if (!locked.operatorTransactionId) return "L'opérateur n'a pas communiqué l'identifiant de ce paiement : il ne peut pas être remboursé par ce moyen.";
  return `Sur ce moyen de paiement, l'opérateur ne rembourse un paiement qu'en entier : ${locked.amount} ${locked.currency}.`;
}

/** How a refund is started: its amount (default: all that remains), reason and funding source. */
export interface StartRefundOptions {
  amount?: number | undefined;
  reason: string | null;
  funding: 'MERCHANT' | 'SUSPENSE';
}

/**
 * Creates and initiates the refund pay-out of `payment` (see the file comment). A SUSPENSE
 * refund (late success) is allowed on a pay-in that is not SUCCESS. Used by the API, the
 * dashboard and the late-success flow.
 */
export async function startRefund(
  services: Services,
  payment: TransactionRow,
  options: StartRefundOptions,
  scope: ReturnType<typeof idempotencyScope> = null,
): Promise<RefundData> {
  const isSuspense = options.funding === 'SUSPENSE';
  if (!isSuspense && payment.status !== 'SUCCESS') throw new ApiError('REFUND_NOT_ALLOWED');
  if (!payment.paymentMethod || !payment.payerAccount) throw new ApiError('REFUND_NOT_ALLOWED');
  const route = await refundRail(services, payment);
  if (!route) throw new ApiError('PROVIDER_NOT_FOUND');
  const { rail, connector } = route;
  const terms = isSuspense ? null : await railTermsFor(services.db, rail.code, 'PAY_OUT', payment.applicationId);
  const result = await createOnce<RefundData>(services, scope, async (tx) => {
    // Concurrent refunds of one pay-in take turns here; the sum below is then exact.
    const [locked] = await tx.select().from(transactions).where(eq(transactions.id, payment.id)).for('update');
    if (!locked || (!isSuspense && locked.status !== 'SUCCESS')) throw new ApiError('REFUND_NOT_ALLOWED');
    return insertRefund(tx, services, locked, { ...options, railCode: rail.code, feeRule: terms?.rule ?? null, isWholeOnly: !isSuspense && connector.refundsWholePayments === true });
  });
  if (!result.replayed) await initiateTransaction(services, result.row, rail, connector);
  return result.data;
}

/**
 * Writes the refund pay-out of `locked` (the pay-in, locked by the caller in `tx`), reserves it
 * and records REFUND_REQUESTED on the pay-in; the operator is called after commit (by the
 * caller, or by the poller's backstop, which initiates any PENDING row never initiated).
 * A SUSPENSE refund returns a late success (one per charge or checkout attempt, recorded once:
 * late-success.ts): its `amount` and `beneficiaryAccount` are that payment's, outside the
 * pay-in's own refundable amount. Throws REFUND_AMOUNT_EXCEEDED and INSUFFICIENT_BALANCE.
 */
export async function insertRefund(
  tx: Db,
  services: Pick<Services, 'ids' | 'clock' | 'config' | 'db'>,
  locked: TransactionRow,
  options: StartRefundOptions & { railCode: string; feeRule: FeeRule | null; pollAt?: Date; beneficiaryAccount?: string; isWholeOnly?: boolean },
): Promise<{ row: TransactionRow; data: RefundData }> {
  const now = services.clock.now();
  const remaining = options.funding === 'SUSPENSE' ? locked.amount : locked.amount - (await committedRefunds(tx, locked.id));
  const amount = options.amount ?? remaining;
  if (options.isWholeOnly && (amount !== locked.amount || remaining !== locked.amount || !locked.operatorTransactionId)) {
    throw new ApiError('REFUND_NOT_ALLOWED', { message: wholeOnlyMessage(locked, remaining) });
  }
  if (amount < 1 || amount > remaining) {
    throw new ApiError('REFUND_AMOUNT_EXCEEDED', {
      message: `Le montant demandé dépasse ce qui reste à rembourser sur ce paiement (${Math.max(remaining, 0)} ${locked.currency}).`,
    });
  }
  const feeAmount = options.feeRule ? computeFee(amount, options.feeRule, 'PAY_OUT') : 0;
  const row = await insertTransaction(
    tx,
    {
      id: services.ids.uuid(),
      reference: services.ids.reference('PAY_OUT'),
      applicationId: locked.applicationId,
      direction: 'PAY_OUT',
      type: 'REFUND',
      environment: locked.environment,
      amount,
      currency: locked.currency,
      description: options.reason,
      paymentMethod: options.railCode,
      beneficiaryAccount: options.beneficiaryAccount ?? locked.payerAccount,
      beneficiaryName: locked.payerName ?? 'Client',
      beneficiaryEmail: locked.payerEmail,
      merchantReference: locked.merchantReference,
      nextPollAt: options.pollAt ?? new Date(now.getTime() + services.config.connectorTimeoutMs + 5000),
      feeAmount,
      reservedAmount: amount + feeAmount,
      fundingSource: options.funding,
      refundOf: locked.id,
    },
    now,
  );
  await reservePayOut(tx, services, row);
  await tx.insert(transactionEvents).values({
    transactionId: locked.id,
    fromStatus: locked.status,
    toStatus: locked.status,
    cause: 'REFUND_REQUESTED',
    detail: { refund: row.reference, amount, funding: options.funding, reason: options.reason },
    createdAt: now,
  });
  return {
    row,
    data: {
      reference: row.reference,
      paymentReference: locked.reference,
      status: 'PENDING' as const,
      amount,
      feeAmount,
      currency: row.currency,
      reason: options.reason,
    },
  };
}
