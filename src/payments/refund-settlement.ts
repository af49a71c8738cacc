/**
 * A refund pay-out's effect on its pay-in once the refund is paid: its amount added to the
 * pay-in's `refundedAmount` and, when refunded in full, the pay-in moved SUCCESS → REFUNDED with
 * its event and `payment.refunded`. Called inside the database transaction that records the
 * refund's status (apply-transition.ts, late-success.ts); refunds are created by refund-payment.ts.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { kindOf, nextStatus } from '../domain/transaction-state.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';

/**
 * Called inside the database transaction of a refund pay-out's status change: on SUCCESS adds
 * its amount to the pay-in's `refundedAmount` and, when the pay-in is SUCCESS and now refunded
 * in full, moves it to REFUNDED (compare-and-set on SUCCESS) with its event and status
 * listeners (`payment.refunded`).
 */
export async function settleRefund(
  tx: Db,
  services: Pick<Services, 'clock' | 'statusListeners'>,
  refund: TransactionRow,
): Promise<void> {
  if (refund.status === 'SUCCESS') await creditRefund(tx, services, refund);
}

/**
 * Counts the paid refund pay-out `refund` against its pay-in (see `settleRefund`), whatever its
 * own status says: also a refund paid after it failed at its deadline (late-success.ts).
 */
export async function creditRefund(
  tx: Db,
  services: Pick<Services, 'clock' | 'statusListeners'>,
  refund: TransactionRow,
): Promise<void> {
  // A refund of a late success (SUSPENSE) returned another payment: the pay-in's own money is untouched.
  if (!refund.refundOf || refund.fundingSource === 'SUSPENSE') return;
  const now = services.clock.now();
  const [payment] = await tx
    .update(transactions)
    .set({ refundedAmount: sql`${transactions.refundedAmount} + ${refund.amount}`, updatedAt: now })
    .where(eq(transactions.id, refund.refundOf))
    .returning();
  if (!payment || payment.status !== 'SUCCESS' || payment.refundedAmount < payment.amount) return;
  const result = nextStatus('SUCCESS', 'FULLY_REFUNDED', kindOf(payment));
  if (!result.ok) return;
  const [refunded] = await tx
    .update(transactions)
    .set({ status: result.to, updatedAt: now })
    .where(and(eq(transactions.id, payment.id), eq(transactions.status, 'SUCCESS')))
    .returning();
  if (!refunded) return;
  await tx.insert(transactionEvents).values({
    transactionId: refunded.id,
    fromStatus: 'SUCCESS',
    toStatus: 'REFUNDED',
    cause: 'REFUND',
    detail: { refund: refund.reference, refundedAmount: refunded.refundedAmount },
    createdAt: now,
  });
  for (const listener of services.statusListeners) await listener(tx, refunded, 'SUCCESS');
}
