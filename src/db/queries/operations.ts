/**
 * The statements of operating Kolo: the health route's database check and the scrape-time reads
 * of the metrics.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';
import { webhookDeliveries } from '../schema-webhooks.ts';

/** Resolves when the database answers a trivial query; throws the driver's error otherwise. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

/**
 * PENDING webhook deliveries due at `now` and scheduled after it, counted among at most `cap`
 * of them (the count stays cheap however long the queue grows).
 */
export async function pendingDeliveryCounts(db: Db, now: Date, cap: number): Promise<{ due: number; scheduled: number }> {
  const [row] = rowsOf<{ due: string; scheduled: string }>(
    await db.execute(sql`
      select count(*) filter (where next_attempt_at <= ${now.toISOString()}::timestamptz) as due,
             count(*) filter (where next_attempt_at > ${now.toISOString()}::timestamptz) as scheduled
      from (select ${webhookDeliveries.nextAttemptAt} as next_attempt_at from ${webhookDeliveries}
            where ${webhookDeliveries.status} = 'PENDING' limit ${cap}) pending`),
  );
  return { due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0) };
}
