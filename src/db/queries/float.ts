/**
 * The statements of the operator float (float/) and of the pay-out float queue
 * (payments/float-queue.ts): readings, rail states, what a rail has committed to pay-outs, and
 * the queue itself. Only LIVE pay-outs count: the float is Kolo's money at the operator.
 */
import { and, asc, desc, eq, gt, isNotNull, isNull, sql, sum } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { runStatement, statement } from '../statement.ts';
import { transactionEvents, transactions } from '../schema.ts';
import { floatRails, floatReadings } from '../schema-float.ts';

/** A stored reading of a rail's operator balance (`amount` null: unknown, with `error`). */
export type FloatReading = typeof floatReadings.$inferSelect;

/** A rail's notified float state (`FloatRailRow.state`: OK, LOW, CRITICAL or UNKNOWN). */
export type FloatRailRow = typeof floatRails.$inferSelect;

/** The newest reading of `railCode`, or null before any. */
export async function latestFloatReading(db: Db, railCode: string): Promise<FloatReading | null> {
  const [row] = await db.select().from(floatReadings).where(eq(floatReadings.railCode, railCode)).orderBy(desc(floatReadings.readAt), desc(floatReadings.id)).limit(1);
  return row ?? null;
}

/** The newest reading that carried a balance, or null. */
export async function latestKnownFloatReading(db: Db, railCode: string): Promise<FloatReading | null> {
  const [row] = await db
    .select()
    .from(floatReadings)
    .where(and(eq(floatReadings.railCode, railCode), isNotNull(floatReadings.amount)))
    .orderBy(desc(floatReadings.readAt), desc(floatReadings.id))
    .limit(1);
  return row ?? null;
}

/** Stores a reading; returns it. */
export async function insertFloatReading(db: Db, reading: Omit<FloatReading, 'id'>): Promise<FloatReading> {
  const [row] = await db.insert(floatReadings).values(reading).returning();
  return row!;
}

/** The rail's notified state row, or null before the first reading. */
export async function floatRailOf(db: Db, railCode: string): Promise<FloatRailRow | null> {
  const [row] = await db.select().from(floatRails).where(eq(floatRails.railCode, railCode));
  return row ?? null;
}

/**
 * Moves the rail's notified state from `from` to `to` by compare-and-set (`from` null: the row
 * does not exist yet); true when this caller moved it, so exactly one instance notifies a crossing.
 */
export async function moveFloatState(db: Db, input: { railCode: string; from: string | null; to: string; now: Date }): Promise<boolean> {
  if (input.from === null) {
    const inserted = await db
      .insert(floatRails)
      .values({ railCode: input.railCode, state: input.to, stateChangedAt: input.now })
      .onConflictDoNothing()
      .returning({ railCode: floatRails.railCode });
    return inserted.length === 1;
  }
  const moved = await db
    .update(floatRails)
    .set({ state: input.to, stateChangedAt: input.now })
    .where(and(eq(floatRails.railCode, input.railCode), eq(floatRails.state, input.from)))
    .returning({ railCode: floatRails.railCode });
  return moved.length === 1;
}

/** Records that the operator refused a pay-out of `railCode` for want of Kolo's float, at `now`. */
export async function markFloatShort(db: Db, railCode: string, now: Date): Promise<void> {
  await db
    .insert(floatRails)
    .values({ railCode, state: 'UNKNOWN', stateChangedAt: now, shortReportedAt: now })
    .onConflictDoUpdate({ target: floatRails.railCode, set: { shortReportedAt: now } });
}

/**
 * What the rail's float is committed to, base units: LIVE pay-outs sent and still PENDING (in
 * flight), plus those that succeeded after `since` (the reading being compared, which may not
 * show them yet). Queued pay-outs are not sent and do not count.
 */
export async function committedPayOutAmount(db: Db, railCode: string, since: Date | null): Promise<{ inFlight: number; sinceReading: number }> {
  const base = and(eq(transactions.paymentMethod, railCode), eq(transactions.direction, 'PAY_OUT'), eq(transactions.environment, 'LIVE'));
  const [inFlight] = await db
    .select({ total: sum(transactions.amount) })
    .from(transactions)
    .where(and(base, eq(transactions.status, 'PENDING'), isNotNull(transactions.initiatedAt), isNull(transactions.floatQueuedAt)));
  let sinceReading = 0;
  if (since) {
    const [paid] = await db
      .select({ total: sum(transactions.amount) })
      .from(transactions)
      .where(and(base, eq(transactions.status, 'SUCCESS'), gt(transactions.completedAt, since)));
    sinceReading = Number(paid?.total ?? 0);
  }
  return { inFlight: Number(inFlight?.total ?? 0), sinceReading };
}

/** A queued pay-out, as the queue hands it out. */
export type QueuedPayOut = typeof transactions.$inferSelect;

/** The rail's queued pay-outs, first in first out, at most `limit`. */
export async function queuedPayOuts(db: Db, railCode: string, limit: number): Promise<QueuedPayOut[]> {
  return db
    .select()
    .from(transactions)
    .where(and(eq(transactions.paymentMethod, railCode), isNotNull(transactions.floatQueuedAt), eq(transactions.status, 'PENDING')))
    .orderBy(asc(transactions.floatQueuedAt), asc(transactions.id))
    .limit(limit);
}

/** Count and total (base units) of the rail's queued pay-outs. */
export async function queuedPayOutTotals(db: Db, railCode: string): Promise<{ count: number; amount: number }> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int`, amount: sum(transactions.amount) })
    .from(transactions)
    .where(and(eq(transactions.paymentMethod, railCode), isNotNull(transactions.floatQueuedAt), eq(transactions.status, 'PENDING')));
  return { count: Number(row?.count ?? 0), amount: Number(row?.amount ?? 0) };
}

/**
 * Takes `id` out of the queue (compare-and-set on it still queued and PENDING) and lets the
 * poller's backstop find it should its send be interrupted; true when this caller took it.
 */
export async function unqueuePayOut(db: Db, input: { id: string; now: Date; backstopAt: Date }): Promise<boolean> {
  const rows = await db
    .update(transactions)
    .set({ floatQueuedAt: null, nextPollAt: input.backstopAt, updatedAt: input.now })
    .where(and(eq(transactions.id, input.id), eq(transactions.status, 'PENDING'), isNotNull(transactions.floatQueuedAt)))
    .returning({ id: transactions.id });
  if (rows.length === 1) {
    await db.insert(transactionEvents).values({ transactionId: input.id, fromStatus: 'PENDING', toStatus: 'PENDING', cause: 'FLOAT_RELEASED', createdAt: input.now });
  }
  return rows.length === 1;
}

/**
 * What a new LIVE pay-out of a rail is checked against, in one round trip (`floatPosition`):
 * the newest reading that carried a balance, when the operator last refused a pay-out for want of
 * float, the pay-outs in flight and those paid since that reading (as `committedPayOutAmount`),
 * and how many wait in the queue. Amounts in base units.
 */
export interface FloatPosition {
  amount: number;
  readAt: Date;
  shortReportedAt: Date | null;
  inFlight: number;
  sinceReading: number;
  queuedCount: number;
}

// The sums read the partial index of LIVE pay-outs (transactions_live_pay_out_idx), never the table.
const floatPositionSql = statement(
  'float_position_v1',
  `with reading as (
     select amount, read_at from float_readings
      where rail_code = $1 and amount is not null
      order by read_at desc, id desc limit 1
   )
   select r.amount, r.read_at,
     (select short_reported_at from float_rails where rail_code = $1) as short_reported_at,
     (select coalesce(sum(t.amount), 0) from transactions t
       where t.payment_method = $1 and t.direction = 'PAY_OUT' and t.environment = 'LIVE'
         and t.status = 'PENDING' and t.initiated_at is not null and t.float_queued_at is null) as in_flight,
     (select coalesce(sum(t.amount), 0) from transactions t
       where t.payment_method = $1 and t.direction = 'PAY_OUT' and t.environment = 'LIVE'
         and t.status = 'SUCCESS' and t.completed_at > r.read_at) as since_reading,
     (select count(*) from transactions t
       where t.payment_method = $1 and t.float_queued_at is not null and t.status = 'PENDING') as queued_count
   from reading r`,
);

/** The rail's `FloatPosition`, or null when no reading ever carried a balance (the float is unknown). */
export async function floatPosition(db: Db, railCode: string): Promise<FloatPosition | null> {
  const { rows } = await runStatement<{
    amount: string | number;
    read_at: Date | string;
    short_reported_at: Date | string | null;
    in_flight: string | number;
    since_reading: string | number;
    queued_count: string | number;
  }>(db, floatPositionSql, [railCode]);
  const row = rows[0];
  if (!row) return null;
  return {
    amount: Number(row.amount),
    readAt: new Date(row.read_at),
    shortReportedAt: row.short_reported_at === null ? null : new Date(row.short_reported_at),
    inFlight: Number(row.in_flight),
    sinceReading: Number(row.since_reading),
    queuedCount: Number(row.queued_count),
  };
}
