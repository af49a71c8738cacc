/**
 * The only way a transaction's status changes. In one database transaction: read the row, ask
 * the pure state machine (`domain/transaction-state.ts`), compare-and-set the status in SQL
 * (`where status = 'PENDING'`, so a concurrent writer can never move a terminal state), append
 * a transaction event, post the ledger entry the change causes (transaction-postings.ts: a
 * pay-in's fee is fixed here, at SUCCESS, from its rail's terms), and run the status listeners
 * (the webhook outbox) so that no status change ever commits without its side records.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { nextStatus, type TransactionKind, type TransactionStatus, type TransitionEvent } from '../domain/transaction-state.ts';
import type { FailureCode } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';
import { computeFee, railTermsFor } from './fees.ts';
import { postStatusChange } from './transaction-postings.ts';
import { settleRefund } from './refund-payment.ts';
import { latestAmbiguousAttempt } from './late-success.ts';

/** Delay before a charge failed at its deadline is first asked about again. */
const LATE_WATCH_FIRST_ASK_MS = 60_000;

/** Called inside the status change's database transaction with the updated row. */
export type StatusChangeListener = (tx: Db, transaction: TransactionRow, previous: TransactionStatus) => Promise<void>;

/** A requested transition. `cause` is recorded on the event (e.g. POLL, EXPIRY, DEADLINE). */
export interface TransitionInput {
  transactionId: string;
  event: TransitionEvent;
  cause: string;
  failureCode?: FailureCode;
  failureReason?: string;
  operatorReference?: string | null;
  detail?: Record<string, unknown>;
}

/** The kind of a transaction row, for the state machine. */
export function kindOf(row: Pick<TransactionRow, 'direction' | 'type'>): TransactionKind {
  if (row.direction === 'PAY_OUT') return 'TRANSFER';
  return row.type === 'CHECKOUT' ? 'CHECKOUT' : 'CHARGE';
}

/**
 * Applies a transition. Returns the updated row, or null when it does not apply (already
 * terminal, not allowed for this kind, or another writer won the race).
 */
export async function applyTransition(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  input: TransitionInput,
): Promise<TransactionRow | null> {
  return services.db.transaction(async (txHandle) => {
    const tx = txHandle as unknown as Db;
    const [current] = await tx.select().from(transactions).where(eq(transactions.id, input.transactionId));
    if (!current) return null;
    const result = nextStatus(current.status as TransactionStatus, input.event, kindOf(current));
    if (!result.ok) return null;
    const now = services.clock.now();
    const isFailed = result.to === 'FAILED';
    // A pay-in's fee is fixed when the money moves, on the rail that moved it.
    let feeAmount = current.feeAmount;
    let settlementDelaySeconds = 0;
    if (result.to === 'SUCCESS' && current.direction === 'PAY_IN' && current.paymentMethod) {
      const terms = await railTermsFor(tx, current.paymentMethod, 'PAY_IN', current.applicationId);
      feeAmount = computeFee(current.amount, terms.rule, 'PAY_IN');
      settlementDelaySeconds = terms.settlementDelaySeconds;
    }
    // A charge failed at its deadline, or a checkout ending after an attempt failed at its
    // deadline, is an ambiguous outcome: keep asking for a while (late-success.ts), so money
    // that moves late is never dropped.
    const isWatched =
      services.config.lateSuccessWatchHours > 0 &&
      current.direction === 'PAY_IN' &&
      (current.type === 'CHECKOUT'
        ? (input.event === 'TIMED_OUT' || input.event === 'CUSTOMER_CANCELLED') && (await latestAmbiguousAttempt(tx, current.id)) !== null
        : input.event === 'TIMED_OUT');
    const [updated] = await tx
      .update(transactions)
      .set({
        status: result.to,
        failureCode: isFailed ? (input.failureCode ?? 'PROVIDER_ERROR') : null,
        failureReason: isFailed ? (input.failureReason ?? null) : null,
        operatorReference: input.operatorReference ?? current.operatorReference,
        feeAmount,
        nextPollAt: isWatched ? new Date(now.getTime() + LATE_WATCH_FIRST_ASK_MS) : null,
        lateWatchUntil: isWatched ? new Date(now.getTime() + services.config.lateSuccessWatchHours * 3_600_000) : null,
        completedAt: now,
        updatedAt: now,
      })
      .where(and(eq(transactions.id, input.transactionId), eq(transactions.status, 'PENDING')))
      .returning();
    if (!updated) return null;
    await tx.insert(transactionEvents).values({
      transactionId: updated.id,
      fromStatus: result.from,
      toStatus: result.to,
      cause: input.cause,
      failureCode: isFailed ? updated.failureCode : null,
      detail: input.detail ?? (isFailed ? { failureReason: updated.failureReason } : null),
      createdAt: now,
    });
    await postStatusChange(tx, services, updated, { settlementDelaySeconds });
    for (const listener of services.statusListeners) await listener(tx, updated, result.from);
    // A successful refund may complete its pay-in's refund (SUCCESS → REFUNDED), announced after it.
    if (updated.refundOf) await settleRefund(tx, services, updated);
    return updated;
  });
}
