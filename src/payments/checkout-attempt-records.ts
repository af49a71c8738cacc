/**
 * The records every checkout attempt change writes, each in one database transaction with the
 * attempt's compare-and-set (`where status = 'PENDING'`), so an attempt's history on the
 * transaction (`transaction_events`) and its row never disagree, and two writers racing on the
 * same attempt can never both win.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { applyTransition } from './apply-transition.ts';
import { isAmbiguousFailure, recordLateSuccess } from '../late-success/index.ts';
import { LATE_WATCH_FIRST_ASK_MS } from './late-watch.ts';
import type { TransactionRow } from './transaction-view.ts';

/** A checkout attempt row. */
export type CheckoutAttemptRow = typeof checkoutAttempts.$inferSelect;

/** Attempt failure codes: the connector's, plus CUSTOMER_CANCELLED and SESSION_EXPIRED. */
export type AttemptFailureCode = string;

/** The attempt in flight (status PENDING) of a checkout, or null. At most one exists (unique index). */
export async function findPendingAttempt(db: Db, transactionId: string): Promise<CheckoutAttemptRow | null> {
  const [row] = await db
    .select()
    .from(checkoutAttempts)
    .where(and(eq(checkoutAttempts.transactionId, transactionId), eq(checkoutAttempts.status, 'PENDING')))
    .limit(1);
  return row ?? null;
}

/** The most recent attempt of a checkout, or null when the customer has not tried yet. */
export async function findLatestAttempt(db: Db, transactionId: string): Promise<CheckoutAttemptRow | null> {
  const [row] = await db
    .select()
    .from(checkoutAttempts)
    .where(eq(checkoutAttempts.transactionId, transactionId))
    .orderBy(desc(checkoutAttempts.attemptNumber))
    .limit(1);
  return row ?? null;
}

/** Every attempt of a checkout, oldest first. */
export async function listAttempts(db: Db, transactionId: string): Promise<CheckoutAttemptRow[]> {
  return db
    .select()
    .from(checkoutAttempts)
    .where(eq(checkoutAttempts.transactionId, transactionId))
    .orderBy(asc(checkoutAttempts.attemptNumber));
}

/** `237677000100` → `237677***100`: enough to recognise a number in the history, not to dial it. */
export function maskMsisdn(msisdn: string): string {
  return msisdn.length <= 6 ? '***' : `${msisdn.slice(0, msisdn.length - 6)}***${msisdn.slice(-3)}`;
}

/** Appends an attempt event to the transaction's history (the status itself does not change). */
export async function recordAttemptEvent(
  tx: Db,
  transaction: Pick<TransactionRow, 'id' | 'status'>,
  cause: string,
  attempt: Pick<CheckoutAttemptRow, 'id' | 'attemptNumber' | 'railCode' | 'msisdn'>,
  now: Date,
  extra: { failureCode?: string | null; detail?: Record<string, unknown> } = {},
): Promise<void> {
  await tx.insert(transactionEvents).values({
    transactionId: transaction.id,
    fromStatus: transaction.status,
    toStatus: transaction.status,
    cause,
    failureCode: extra.failureCode ?? null,
    detail: {
      attemptId: attempt.id,
      attempt: attempt.attemptNumber,
      rail: attempt.railCode,
      msisdn: maskMsisdn(attempt.msisdn),
      ...extra.detail,
    },
    createdAt: now,
  });
}

/**
 * Marks a PENDING attempt FAILED (the checkout itself stays PENDING: the customer may retry).
 * An attempt failed at its deadline without the operator's answer (cause DEADLINE, TIMEOUT or
 * PROVIDER_UNAVAILABLE) is watched on its own for `LATE_SUCCESS_WATCH_HOURS`, whatever its
 * checkout ends as (late-success/). Returns false when the attempt was no longer PENDING
 * (another writer resolved it first).
 */
export async function failAttempt(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  attempt: CheckoutAttemptRow,
  failure: { code: AttemptFailureCode; reason: string; cause: string },
): Promise<boolean> {
  const now = services.clock.now();
  const isWatched = failure.cause === 'DEADLINE' && isAmbiguousFailure(failure.code) && services.config.lateSuccessWatchHours > 0;
  return transaction(services.db, async (tx) => {
    // Lock order: the transaction row before the attempt (see start-checkout-attempt.ts).
    await tx.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, attempt.transactionId)).for('update');
    const [updated] = await tx
      .update(checkoutAttempts)
      .set({
        status: 'FAILED',
        failureCode: failure.code,
        failureReason: failure.reason,
        nextPollAt: isWatched ? new Date(now.getTime() + LATE_WATCH_FIRST_ASK_MS) : null,
        lateWatchUntil: isWatched ? new Date(now.getTime() + services.config.lateSuccessWatchHours * 3_600_000) : null,
        completedAt: now,
        updatedAt: now,
      })
      .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')))
      .returning();
    if (!updated) return false;
    const [transaction] = await tx.select().from(transactions).where(eq(transactions.id, attempt.transactionId));
    if (transaction?.status === 'PENDING') {
      // Only the session's end remains for the poller to watch.
      await tx
        .update(transactions)
        .set({ nextPollAt: transaction.expiresAt, updatedAt: now })
        .where(and(eq(transactions.id, transaction.id), eq(transactions.status, 'PENDING')));
    }
    if (transaction) {
      await recordAttemptEvent(tx, transaction, 'CHECKOUT_ATTEMPT_FAILED', updated, now, {
        failureCode: failure.code,
        detail: { failureReason: failure.reason, origin: failure.cause },
      });
    }
    return true;
  });
}

/**
 * Marks a PENDING attempt SUCCEEDED and, in the same database transaction, the checkout
 * SUCCESS with the attempt's rail and number as `paymentMethod` / `payerAccount`.
 * The partial unique index `checkout_attempts_one_success` makes a second success impossible.
 * Returns 'SUCCESS'; 'LATE' when the money moved but the checkout had already ended (cancelled
 * or expired meanwhile: recorded as a late success, see late-success/);
 * null when the attempt was no longer PENDING.
 */
export async function succeedAttempt(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'ids' | 'statusListeners' | 'log'>,
  attempt: CheckoutAttemptRow,
  operatorReference: string | null,
  operatorTransactionId: string | null = null,
): Promise<'SUCCESS' | 'LATE' | null> {
  const now = services.clock.now();
  return transaction(services.db, async (tx) => {
    // Lock order: the transaction row before the attempt (see start-checkout-attempt.ts).
    await tx.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, attempt.transactionId)).for('update');
    const [updated] = await tx
      .update(checkoutAttempts)
      .set({
        status: 'SUCCEEDED',
        operatorReference: operatorReference ?? attempt.operatorReference,
        operatorTransactionId,
        nextPollAt: null,
        completedAt: now,
        updatedAt: now,
      })
      .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')))
      .returning();
    if (!updated) return null;
    // The winning attempt's rail and number become the transaction's, before the status change
    // so that the status listeners (webhooks) see them.
    const [current] = await tx
      .update(transactions)
      .set({ paymentMethod: updated.railCode, payerAccount: updated.msisdn, initiatedAt: updated.initiatedAt, updatedAt: now })
      .where(and(eq(transactions.id, updated.transactionId), eq(transactions.status, 'PENDING')))
      .returning();
    const [transaction] = current ? [current] : await tx.select().from(transactions).where(eq(transactions.id, updated.transactionId));
    if (!transaction) throw new Error(`checkout attempt ${updated.id} has no transaction`);
    await recordAttemptEvent(tx, transaction, 'CHECKOUT_ATTEMPT_SUCCEEDED', updated, now, {
      detail: { operatorReference: updated.operatorReference },
    });
    const moved = current
      ? await applyTransition(
          { ...services, db: tx },
          {
            transactionId: transaction.id,
            event: 'MONEY_MOVED',
            cause: 'CHECKOUT_ATTEMPT',
            operatorReference: updated.operatorReference,
            operatorTransactionId,
          },
        )
      : null;
    if (!moved) {
      // Money moved after the checkout ended: never dropped (late-success/).
      const decision = await recordLateSuccess(tx, services, transaction.id, {
        railCode: updated.railCode,
        msisdn: updated.msisdn,
        operatorReference: updated.operatorReference,
        operatorTransactionId,
        origin: 'CHECKOUT_ATTEMPT',
        attempt: updated,
      });
      services.log.warn(
        { reference: transaction.reference, attempt: updated.attemptNumber, status: transaction.status, decision },
        'checkout attempt succeeded after the checkout ended: recorded as a late success',
      );
      return 'LATE';
    }
    return 'SUCCESS';
  });
}
