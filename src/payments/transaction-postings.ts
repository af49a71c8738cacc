/**
 * The posting rules: which balanced entry each money event of a transaction writes, always
 * inside the database transaction of the change that causes it (creation or status change).
 * A = amount, F = fee, R = A + F (a pay-out's reservation). Debits +, credits −.
 *
 * | event                         | debit                      | credit                                      |
 * |-------------------------------|----------------------------|---------------------------------------------|
 * | pay-in SUCCESS                | OPERATOR_FLOAT(rail) A     | merchant AVAILABLE (or PENDING) A−F, FEE_REVENUE F |
 * | settlement release            | merchant PENDING A−F       | merchant AVAILABLE A−F                       |
 * | pay-out accepted              | merchant AVAILABLE R       | merchant RESERVED R                          |
 * | pay-out SUCCESS               | merchant RESERVED R        | OPERATOR_FLOAT(rail) A, FEE_REVENUE F        |
 * | pay-out FAILED (not held)     | merchant RESERVED R        | merchant AVAILABLE R                         |
 * | held pay-out paid late        | merchant RESERVED R        | OPERATOR_FLOAT(rail) A, FEE_REVENUE F        |
 * | held pay-out not paid         | merchant RESERVED R        | merchant AVAILABLE R                         |
 * | released pay-out found paid   | merchant AVAILABLE R, then RESERVED R | merchant RESERVED R, then OPERATOR_FLOAT(rail) A, FEE_REVENUE F |
 * | late success                  | OPERATOR_FLOAT(rail) A     | SUSPENSE A                                   |
 * | late success kept             | SUSPENSE A                 | merchant AVAILABLE A−F, FEE_REVENUE F        |
 * | sandbox opening / top-up      | SANDBOX_FUNDING X          | merchant AVAILABLE X (TEST only)             |
 * A refund of a late success is a pay-out funded from SUSPENSE (holding SUSPENSE_RESERVED)
 * instead of the merchant's AVAILABLE (holding RESERVED); it carries no fee.
 * FAILED/CANCELLED pay-ins move no money and post nothing.
 */
import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import { keptBy, type Db, transaction } from '../db/client.ts';
import { pendingSettlements } from '../db/schema-ledger.ts';
import { merchantAccount, operatorFloatAccount, platformAccount, type AccountSpec } from '../ledger/accounts.ts';
import { createAccountIfMissing } from '../ledger/open-account.ts';
import { InsufficientFundsError, postEntry, type Posting, type PostingLine } from '../ledger/post-entry.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';

type LedgerServices = Pick<Services, 'db' | 'clock' | 'config'>;

/** Key of the merchant accounts a database handle knows to exist (so the sandbox opening check costs nothing after the first). */
const knownAccounts = Symbol('known merchant accounts');

/**
 * Gives a TEST application its sandbox opening balance (`SANDBOX_OPENING_BALANCE`) the first
 * time any of its accounts in `currency` is used, inside `tx`. LIVE balances only come from
 * pay-ins. Costs one round trip per account per process, none afterwards.
 */
export async function ensureSandboxOpening(
  tx: Db,
  services: LedgerServices,
  applicationId: string,
  environment: string,
  currency: string,
): Promise<void> {
  if (isSandboxOpeningKnown(services, { applicationId, environment, currency })) return;
  const available = merchantAccount(applicationId, environment, currency, 'AVAILABLE');
  const now = services.clock.now();
  if (await createAccountIfMissing(tx, available, now)) {
    await postEntry(tx, {
      kind: 'SANDBOX_OPENING',
      transactionId: null,
      currency,
      description: 'Solde de test initial',
      createdAt: now,
      lines: [
        { account: platformAccount('SANDBOX_FUNDING', environment, currency), amount: services.config.sandboxOpeningBalance },
        { account: available, amount: -services.config.sandboxOpeningBalance },
      ],
    });
  } else {
    // Only an account committed by someone else is remembered: ours may still roll back.
    keptBy(services.db, knownAccounts, () => new Set<string>()).add(available.key);
  }
}

/**
 * True when the sandbox opening of `opening` (`ensureSandboxOpening`) needs no round trip: a LIVE
 * application, no opening balance configured, or an account this database handle knows exists.
 */
export function isSandboxOpeningKnown(
  services: LedgerServices,
  opening: { applicationId: string; environment: string; currency: string },
): boolean {
  if (opening.environment !== 'TEST' || services.config.sandboxOpeningBalance <= 0) return true;
  const known = keptBy(services.db, knownAccounts, () => new Set<string>());
  return known.has(merchantAccount(opening.applicationId, opening.environment, opening.currency, 'AVAILABLE').key);
}

/** Tops up a TEST application's available balance by `amount` (`kolo ledger fund`). Throws for LIVE. */
export async function fundSandbox(services: LedgerServices, applicationId: string, environment: string, currency: string, amount: number): Promise<void> {
  if (environment !== 'TEST') throw new Error('only TEST balances can be funded: LIVE balances come only from pay-ins');
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error('the amount must be a positive integer (base units)');
  await transaction(services.db, async (tx) => {
    await ensureSandboxOpening(tx, services, applicationId, environment, currency);
    await postEntry(tx, {
      kind: 'SANDBOX_FUNDING',
      transactionId: null,
      currency,
      description: 'Approvisionnement du solde de test',
      createdAt: services.clock.now(),
      lines: [
        { account: platformAccount('SANDBOX_FUNDING', environment, currency), amount },
        { account: merchantAccount(applicationId, environment, currency, 'AVAILABLE'), amount: -amount },
      ],
    });
  });
}

function lines(...candidates: PostingLine[]): PostingLine[] {
  return candidates.filter((l) => l.amount !== 0);
}

/** Where a pay-out's reservation comes from and where it is held while in flight. */
function fundingOf(row: Pick<TransactionRow, 'fundingSource' | 'applicationId' | 'environment' | 'currency'>): { source: AccountSpec; holding: AccountSpec } {
  if (row.fundingSource === 'SUSPENSE') {
    return {
      source: platformAccount('SUSPENSE', row.environment, row.currency),
      holding: platformAccount('SUSPENSE_RESERVED', row.environment, row.currency),
    };
  }
  return {
    source: merchantAccount(row.applicationId, row.environment, row.currency, 'AVAILABLE'),
    holding: merchantAccount(row.applicationId, row.environment, row.currency, 'RESERVED'),
  };
}

/** What a pay-out's reservation is made of: the row's reference, scope, currency, R and funding source. */
export type ReservedPayOut = Pick<TransactionRow, 'id' | 'reference' | 'applicationId' | 'environment' | 'currency' | 'reservedAmount' | 'fundingSource'>;

/**
 * The posting that reserves a new pay-out's `reservedAmount` (R = A + F) from its funding source
 * into its holding account (`PAYOUT_RESERVE`). Throws an Error (a bug in the caller) when the
 * pay-out has no reservation.
 */
export function reservationPosting(payOut: ReservedPayOut, createdAt: Date): Posting {
  const reserved = payOut.reservedAmount;
  if (reserved === null || reserved <= 0) throw new Error(`pay-out ${payOut.reference} has no reservation`);
  const { source, holding } = fundingOf(payOut);
  return {
    kind: 'PAYOUT_RESERVE',
    transactionId: payOut.id,
    currency: payOut.currency,
    createdAt,
    lines: [
      { account: source, amount: reserved },
      { account: holding, amount: -reserved },
    ],
  };
}

/** The 400 INSUFFICIENT_BALANCE of a pay-out whose reservation the available balance does not cover. */
export function insufficientBalance(payOut: ReservedPayOut): ApiError {
  return new ApiError('INSUFFICIENT_BALANCE', {
    message: `Solde disponible insuffisant : ce virement demande ${payOut.reservedAmount} ${payOut.currency} (montant et frais compris).`,
  });
}

/**
 * Reserves a new pay-out's `reservedAmount` from its funding source, in the creating transaction
 * (`reservationPosting`). Throws 400 INSUFFICIENT_BALANCE when the available balance does not
 * cover it: the checked posting refuses, so no race can overdraw.
 */
export async function reservePayOut(tx: Db, services: LedgerServices, row: TransactionRow): Promise<void> {
  const posting = reservationPosting(row, services.clock.now());
  if (row.fundingSource !== 'SUSPENSE') await ensureSandboxOpening(tx, services, row.applicationId, row.environment, row.currency);
  try {
    await postEntry(tx, posting);
  } catch (error) {
    if (error instanceof InsufficientFundsError) throw insufficientBalance(row);
    throw error;
  }
}

/** Options of a status change's posting plan: a pay-in rail's settlement delay (0: available at once). */
export interface StatusChangePostingOptions {
  settlementDelaySeconds: number;
}

/** A pay-in's net amount held until its release (a rail with a settlement delay). */
export type PendingSettlement = typeof pendingSettlements.$inferInsert;

/**
 * What one money event writes (see the table above): its entries, the pending settlement of a
 * held pay-in, and the TEST application whose sandbox opening must exist first. Pure.
 */
export interface PostingPlan {
  postings: Posting[];
  settlement: PendingSettlement | null;
  sandboxOpening: { applicationId: string; environment: string; currency: string } | null;
}

const NOTHING: PostingPlan = { postings: [], settlement: null, sandboxOpening: null };

/**
 * The plan of a status change that moved money (see the table above). Pay-ins: SUCCESS credits
 * the merchant. Funded pay-outs: SUCCESS consumes the reservation, FAILED releases it — unless
 * the reservation is held (`isReservationHeld`: failed at its deadline without the operator's
 * answer), which posts nothing until the operator answers. Anything else posts nothing. An
 * unfunded pay-out (created before the ledger existed) posts nothing.
 */
export function planStatusChange(row: TransactionRow, options: StatusChangePostingOptions, now: Date): PostingPlan {
  if (row.direction === 'PAY_IN') {
    if (row.status !== 'SUCCESS') return NOTHING;
    return planPayInCredit(row, 'PAYIN_SUCCESS', operatorFloatAccount(row.paymentMethod ?? 'UNKNOWN', row.environment, row.currency), options, now);
  }
  if (row.reservedAmount === null) return NOTHING;
  if (row.status === 'SUCCESS') return planPayOutResolution(row, true, now);
  // Failed at its deadline after it may have reached the operator: the reservation stays held
  // until the operator answers (late-success/, `settleHeldPayOut`).
  if (row.status === 'FAILED' && row.isReservationHeld) return NOTHING;
  if (row.status === 'FAILED' || row.status === 'CANCELLED') return planPayOutResolution(row, false, now);
  return NOTHING;
}

/**
 * The plan settling a funded pay-out's reservation R = A + F: `paid` consumes it (holding → the
 * rail's float A and fee revenue F, PAYOUT_SUCCESS), otherwise it is released to where it came
 * from (PAYOUT_RELEASE). Pure.
 */
export function planPayOutResolution(row: TransactionRow, paid: boolean, now: Date): PostingPlan {
  if (row.reservedAmount === null) return NOTHING;
  const { source, holding } = fundingOf(row);
  if (paid) {
    return {
      ...NOTHING,
      postings: [
        {
          kind: 'PAYOUT_SUCCESS',
          transactionId: row.id,
          currency: row.currency,
          createdAt: now,
          lines: lines(
            { account: holding, amount: row.reservedAmount, covered: true },
            { account: operatorFloatAccount(row.paymentMethod ?? 'UNKNOWN', row.environment, row.currency), amount: -row.amount },
            { account: platformAccount('FEE_REVENUE', row.environment, row.currency), amount: -(row.feeAmount ?? 0) },
          ),
        },
      ],
    };
  }
  return {
    ...NOTHING,
    postings: [
      {
        kind: 'PAYOUT_RELEASE',
        transactionId: row.id,
        currency: row.currency,
        createdAt: now,
        lines: [
          { account: holding, amount: row.reservedAmount, covered: true },
          { account: source, amount: -row.reservedAmount },
        ],
      },
    ],
  };
}

/**
 * Posts, in `tx`, the payment of a funded pay-out whose reservation R = A + F was already released
 * (it failed, and the operator is later found to have paid it: reconciliation/): R is reserved
 * again from its funding source (`RECON_PAYOUT_RESERVE`), then consumed as for any paid pay-out
 * (`PAYOUT_SUCCESS`: A to the rail's float, F to fee revenue). Throws InsufficientFundsError when
 * the funding source cannot cover R (the caller's transaction must roll back).
 */
export async function postPayOutPaidAfterRelease(tx: Db, services: LedgerServices, row: TransactionRow): Promise<void> {
  if (row.reservedAmount === null || row.reservedAmount <= 0) throw new Error(`pay-out ${row.reference} has no reservation`);
  const { source, holding } = fundingOf(row);
  const now = services.clock.now();
  await postEntry(tx, {
    kind: 'RECON_PAYOUT_RESERVE',
    transactionId: row.id,
    currency: row.currency,
    description: "Virement payé par l'opérateur constaté au rapprochement : réservation reconstituée",
    createdAt: now,
    lines: [
      { account: source, amount: row.reservedAmount },
      { account: holding, amount: -row.reservedAmount },
    ],
  });
  await writePlan(tx, services, planPayOutResolution(row, true, now));
}

/** Posts `planPayOutResolution` of a held pay-out in `tx` (late-success/). */
export async function postPayOutResolution(tx: Db, services: LedgerServices, row: TransactionRow, paid: boolean): Promise<void> {
  await writePlan(tx, services, planPayOutResolution(row, paid, services.clock.now()));
}

/**
 * The plan crediting a pay-in's A − F to the merchant (AVAILABLE, or PENDING with a release
 * scheduled when the rail holds funds) and F to fee revenue, debiting `from` (the rail's float,
 * or SUSPENSE for a late success the merchant keeps). `kind` names the entry.
 */
function planPayInCredit(row: TransactionRow, kind: string, from: AccountSpec, options: StatusChangePostingOptions, now: Date): PostingPlan {
  const fee = row.feeAmount ?? 0;
  const net = row.amount - fee;
  const isHeld = options.settlementDelaySeconds > 0 && net > 0;
  return {
    postings: [
      {
        kind,
        transactionId: row.id,
        currency: row.currency,
        createdAt: now,
        lines: lines(
          { account: from, amount: row.amount },
          { account: merchantAccount(row.applicationId, row.environment, row.currency, isHeld ? 'PENDING' : 'AVAILABLE'), amount: -net },
          { account: platformAccount('FEE_REVENUE', row.environment, row.currency), amount: -fee },
        ),
      },
    ],
    settlement: isHeld
      ? {
          transactionId: row.id,
          creditKind: kind,
          applicationId: row.applicationId,
          environment: row.environment,
          currency: row.currency,
          amount: net,
          releaseAt: new Date(now.getTime() + options.settlementDelaySeconds * 1000),
        }
      : null,
    sandboxOpening: { applicationId: row.applicationId, environment: row.environment, currency: row.currency },
  };
}

/** Writes one plan in `tx`, each entry checked on its own (`postEntry`). */
async function writePlan(tx: Db, services: LedgerServices, plan: PostingPlan): Promise<void> {
  if (plan.sandboxOpening) {
    const { applicationId, environment, currency } = plan.sandboxOpening;
    await ensureSandboxOpening(tx, services, applicationId, environment, currency);
  }
  for (const posting of plan.postings) await postEntry(tx, posting);
  if (plan.settlement) await tx.insert(pendingSettlements).values(plan.settlement);
}

/**
 * Credits a pay-in's A − F to the merchant (see `planPayInCredit`) in `tx`, debiting `from`.
 * `kind` names the entry (one per transaction and kind).
 */
export async function creditPayIn(
  tx: Db,
  services: LedgerServices,
  row: TransactionRow,
  kind: string,
  from: AccountSpec,
  options: StatusChangePostingOptions,
): Promise<void> {
  await writePlan(tx, services, planPayInCredit(row, kind, from, options, services.clock.now()));
}

/**
 * Moves due pending settlements (at most `limit`) to the merchants' available balances, each
 * exactly once (`FOR UPDATE SKIP LOCKED`, then `released_at`), in one database transaction.
 * Returns how many were released. Run by the background jobs.
 */
export async function releaseDueSettlements(services: LedgerServices, limit: number): Promise<number> {
  const now = services.clock.now();
  return transaction(services.db, async (tx) => {
    const due = await tx
      .select()
      .from(pendingSettlements)
      .where(and(isNull(pendingSettlements.releasedAt), lte(pendingSettlements.releaseAt, now)))
      .orderBy(asc(pendingSettlements.releaseAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    for (const s of due) {
      await postEntry(tx, {
        kind: settlementReleaseKind(s.creditKind),
        transactionId: s.transactionId,
        currency: s.currency,
        createdAt: now,
        lines: [
          { account: merchantAccount(s.applicationId, s.environment, s.currency, 'PENDING'), amount: s.amount, covered: true },
          { account: merchantAccount(s.applicationId, s.environment, s.currency, 'AVAILABLE'), amount: -s.amount },
        ],
      });
      await tx
        .update(pendingSettlements)
        .set({ releasedAt: now })
        .where(and(eq(pendingSettlements.transactionId, s.transactionId), eq(pendingSettlements.creditKind, s.creditKind)));
    }
    return due.length;
  });
}

/**
 * The ledger entry kind releasing the pending settlement of credit `creditKind`:
 * `SETTLEMENT_RELEASE` for a pay-in's own success, `SETTLEMENT_RELEASE_<credit kind>` for another
 * credit of the same transaction (one entry of a kind per transaction).
 */
export function settlementReleaseKind(creditKind: string): string {
  return creditKind === 'PAYIN_SUCCESS' ? 'SETTLEMENT_RELEASE' : `SETTLEMENT_RELEASE_${creditKind}`;
}
