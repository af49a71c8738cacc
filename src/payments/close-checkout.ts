/**
 * Closing a PENDING checkout without payment: the customer cancels (→ CANCELLED) or its session
 * ends (→ FAILED SESSION_EXPIRED). Both are serialised with the start of an attempt on the
 * checkout's transaction row: in ONE database transaction, `SELECT … FOR UPDATE` the row, then
 * re-check, under that lock, its status, its expiry (compared in SQL with the caller's instant)
 * and that no attempt is in flight, and only then change the status. Every writer of an attempt
 * takes the same row lock first (`start-checkout-attempt.ts`, `checkout-attempt-records.ts`),
 * so an attempt that reached the operator can never be followed by a CANCELLED or expired
 * checkout: the close sees it and refuses, and an attempt that comes second sees the close.
 */
import { and, eq, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { applyTransition } from './apply-transition.ts';
import type { TransactionRow } from './transaction-view.ts';

/** A PENDING checkout locked for the rest of the caller's database transaction. */
export interface LockedCheckout {
  row: TransactionRow;
  /** `expires_at <= now`, evaluated by the database on the locked row. */
  isExpired: boolean;
  /** An attempt of this checkout is PENDING (sent, or being sent, to the operator). */
  hasAttemptInFlight: boolean;
}

/**
 * Locks the checkout `transactionId` (`FOR UPDATE`) when it is still PENDING, and reports its
 * expiry at `now` and whether an attempt is in flight, both read under the lock.
 * Returns null when the checkout is no longer PENDING. Must run inside a database transaction.
 */
export async function lockPendingCheckout(tx: Db, transactionId: string, now: Date): Promise<LockedCheckout | null> {
  const [locked] = await tx
    .select({
      row: transactions,
      isExpired: sql<boolean>`coalesce(${transactions.expiresAt} <= ${now.toISOString()}::timestamptz, false)`,
    })
    .from(transactions)
    .where(and(eq(transactions.id, transactionId), eq(transactions.status, 'PENDING')))
    .for('update');
  if (!locked) return null;
  const [inFlight] = await tx
    .select({ id: checkoutAttempts.id })
    .from(checkoutAttempts)
    .where(and(eq(checkoutAttempts.transactionId, transactionId), eq(checkoutAttempts.status, 'PENDING')))
    .limit(1);
  return { row: locked.row, isExpired: locked.isExpired === true, hasAttemptInFlight: inFlight !== undefined };
}

/** Why a close did not happen. */
export type CloseRefusal = 'NOT_PENDING' | 'ATTEMPT_IN_FLIGHT' | 'EXPIRED' | 'NOT_EXPIRED';

/**
 * Cancels (`CUSTOMER`) or expires (`EXPIRY`) the checkout `transactionId`, under its row lock.
 * A cancel needs a live session; an expiry needs an ended one; both need no attempt in flight.
 * Returns the CANCELLED / FAILED row, or the reason nothing changed.
 */
export async function closeCheckout(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  transactionId: string,
  reason: 'CUSTOMER' | 'EXPIRY',
): Promise<{ closed: TransactionRow } | { refused: CloseRefusal }> {
  const now = services.clock.now();
  return transaction(services.db, async (tx) => {
    const locked = await lockPendingCheckout(tx, transactionId, now);
    if (!locked) return { refused: 'NOT_PENDING' as const };
    if (locked.hasAttemptInFlight) return { refused: 'ATTEMPT_IN_FLIGHT' as const };
    if (reason === 'CUSTOMER' && locked.isExpired) return { refused: 'EXPIRED' as const };
    if (reason === 'EXPIRY' && !locked.isExpired) return { refused: 'NOT_EXPIRED' as const };
    const closed = await applyTransition(
      { ...services, db: tx },
      reason === 'CUSTOMER'
        ? { transactionId, event: 'CUSTOMER_CANCELLED', cause: 'CUSTOMER' }
        : {
            transactionId,
            event: 'TIMED_OUT',
            cause: 'SESSION_EXPIRED',
            failureCode: 'SESSION_EXPIRED',
            failureReason: 'La session de paiement a expiré avant que le client ne paie.',
          },
    );
    // Under the lock the row is PENDING and a checkout may take either event: the state machine agrees.
    if (!closed) throw new Error(`checkout ${transactionId}: ${reason} refused by the state machine under lock`);
    return { closed };
  });
}
