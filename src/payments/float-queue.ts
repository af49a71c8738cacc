/**
 * Pay-outs wait for float instead of failing. A LIVE pay-out whose rail's float cannot cover it
 * is not sent: it stays PENDING with its reservation, marked queued (`floatQueuedAt`), and the
 * float job (float/) sends the queue first in first out when the float recovers, or fails what
 * waited too long. The float available to a new pay-out is the operator's last known balance
 * minus what the rail has committed since (`committedPayOutAmount`); a rail whose balance is
 * unknown (never read, or an operator without a balance query) sends as before, and the operator
 * is then the judge. An operator's refusal for want of ITS wallet's balance
 * (`MERCHANT_INSUFFICIENT_FUNDS` on a pay-out: Daraja B2C ResultCode 1, MTN `NOT_ENOUGH_FUNDS`,
 * Orange and Wave's equivalents) is definite — nothing moved — so the pay-out is queued again
 * (`requeueShortPayOutsIn`) rather than failed, and the rail counts as empty until its next
 * reading.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { floatPosition, markFloatShort, type FloatPosition } from '../db/queries/float.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';

/** The failure code with which operators report Kolo's own wallet short on a pay-out. */
export const FLOAT_SHORT_FAILURE = 'MERCHANT_INSUFFICIENT_FUNDS';

/**
 * What a rail's float can still send, base units, or null when unknown: the last known balance
 * minus the pay-outs in flight and those paid since that reading; 0 when the operator refused a
 * pay-out for want of float after that reading.
 */
export async function sendableFloat(db: Db, railCode: string): Promise<number | null> {
  const position = await floatPosition(db, railCode);
  return position === null ? null : sendableOf(position);
}

/** What `position` leaves to send (see `sendableFloat`). */
function sendableOf(position: FloatPosition): number {
  if (position.shortReportedAt && position.shortReportedAt >= position.readAt) return 0;
  return position.amount - position.inFlight - position.sinceReading;
}

/**
 * True when `row` (a pay-out about to be sent on `railCode`) must wait for float: a LIVE pay-out
 * that others already wait ahead of (first in first out), or that the sendable float does not
 * cover. Pay-ins, TEST pay-outs and rails of unknown float never wait. One round trip.
 */
export async function mustWaitForFloat(db: Db, row: { direction: string; environment?: string; amount: number }, railCode: string): Promise<boolean> {
  if (row.direction !== 'PAY_OUT' || row.environment !== 'LIVE') return false;
  const position = await floatPosition(db, railCode);
  if (position === null) return false;
  if (position.queuedCount > 0) return true;
  return sendableOf(position) < row.amount;
}

/**
 * Queues the never-sent PENDING pay-out `id` (compare-and-set: still PENDING, not initiated),
 * keeping its place if it was queued already; the poller leaves it alone (no next poll, no
 * deadline: the queue's maximum wait bounds it). Records a `FLOAT_QUEUED` event whose
 * `detail.waitingFor` says why: `FLOAT` (the rail's float does not cover it) or
 * `RAIL_AVAILABILITY` (the rail is DELAYED or CLOSED for pay-outs). True when queued.
 */
export async function queueForFloat(
  services: Pick<Services, 'db' | 'clock' | 'log'>,
  row: Pick<TransactionRow, 'id' | 'reference'>,
  railCode: string,
  waitingFor: 'FLOAT' | 'RAIL_AVAILABILITY' = 'FLOAT',
): Promise<boolean> {
  const now = services.clock.now();
  const rows = await services.db
    .update(transactions)
    .set({ floatQueuedAt: sql`coalesce(${transactions.floatQueuedAt}, ${now.toISOString()}::timestamptz)`, nextPollAt: null, deadlineAt: null, updatedAt: now })
    .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING'), isNull(transactions.initiatedAt)))
    .returning({ id: transactions.id });
  if (rows.length === 0) return false;
  await services.db.insert(transactionEvents).values({ transactionId: row.id, fromStatus: 'PENDING', toStatus: 'PENDING', cause: 'FLOAT_QUEUED', detail: { rail: railCode, waitingFor }, createdAt: now });
  services.log.info(
    { reference: row.reference, rail: railCode },
    waitingFor === 'FLOAT' ? 'pay-out queued: the rail float does not cover it' : 'pay-out queued: the rail is delayed or closed for pay-outs',
  );
  return true;
}

/**
 * Inside the status writer's database transaction: the PENDING pay-outs `rows` the operator
 * refused for want of its own float are queued again instead of failing: their initiation is
 * forgotten (nothing moved: the refusal is definite), `floatResends` grows so the next send is
 * prepared under a new operator id, a `FLOAT_REQUEUED` event keeps the operator's words, and the
 * rail is marked short (the float alert: float/ treats it as empty until a newer reading).
 */
export async function requeueShortPayOutsIn(
  tx: Db,
  services: Pick<Services, 'clock'>,
  rows: { row: TransactionRow; failureReason: string | null }[],
): Promise<void> {
  const now = services.clock.now();
  for (const { row, failureReason } of rows) {
    const updated = await tx
      .update(transactions)
      .set({
        floatQueuedAt: sql`coalesce(${transactions.floatQueuedAt}, ${now.toISOString()}::timestamptz)`,
        floatResends: sql`${transactions.floatResends} + 1`,
        operatorReference: null,
        callbackToken: null,
        initiationOutcome: null,
        initiatedAt: null,
        inFlightUntil: null,
        redirectUrl: null,
        statusQueryReference: null,
        deadlineAt: null,
        nextPollAt: null,
        pollAttempts: 0,
        updatedAt: now,
      })
      .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')))
      .returning({ id: transactions.id });
    if (updated.length === 0) continue;
    await tx.insert(transactionEvents).values({
      transactionId: row.id,
      fromStatus: 'PENDING',
      toStatus: 'PENDING',
      cause: 'FLOAT_REQUEUED',
      detail: { rail: row.paymentMethod, operatorReference: row.operatorReference, failureReason },
      createdAt: now,
    });
    if (row.paymentMethod) await markFloatShort(tx, row.paymentMethod, now);
  }
}
