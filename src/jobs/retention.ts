/**
 * The retention job: purges, in bounded batches, what only grows and is no longer needed, each past
 * its configured age (`RETENTION_*`, 0 = keep for ever):
 * - finished webhook deliveries (DELIVERED or FAILED, last changed before the cut-off), their
 *   attempts, then the webhook events none of whose deliveries is left — a PENDING delivery, its
 *   attempts and its event are never touched;
 * - events of finished transactions (never of a PENDING one: the backstop reads them);
 * - audit entries.
 * Expired idempotency keys are purged by the poller's tick. Transactions are never purged.
 * Every statement deletes at most `batchSize` rows through an indexed selection, and one run
 * does at most `MAX_BATCHES_PER_KIND` batches of each kind, so a run is bounded whatever the
 * backlog; the next run continues.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { Services } from '../services.ts';
import { startLoop, type Loop } from './status-poller.ts';

/** Rows purged by one run, by kind. */
export interface RetentionResult {
  webhookAttempts: number;
  webhookDeliveries: number;
  webhookEvents: number;
  transactionEvents: number;
  auditEntries: number;
}

const MAX_BATCHES_PER_KIND = 20;
const DAY_MS = 86_400_000;

function affected(result: unknown): number {
  const r = result as { affectedRows?: number; rowCount?: number | null };
  return r.affectedRows ?? r.rowCount ?? 0;
}

/** Runs `statement` (a bounded delete) until it deletes fewer than `batchSize` rows, at most MAX_BATCHES_PER_KIND times. */
async function drain(db: Db, batchSize: number, statement: () => SQL): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_KIND; batch += 1) {
    const deleted = affected(await db.execute(statement()));
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

/** One retention run at `services.clock.now()`. */
export async function purgeOnce(services: Pick<Services, 'db' | 'clock' | 'config'>): Promise<RetentionResult> {
  const { db, clock, config } = services;
  const { webhookDays, transactionEventDays, auditDays, batchSize } = config.retention;
  const now = clock.now().getTime();
  const cutoff = (days: number) => new Date(now - days * DAY_MS).toISOString();
  const result: RetentionResult = { webhookAttempts: 0, webhookDeliveries: 0, webhookEvents: 0, transactionEvents: 0, auditEntries: 0 };

  if (webhookDays > 0) {
    const before = cutoff(webhookDays);
    result.webhookAttempts = await drain(db, batchSize, () => sql`
      delete from webhook_attempts where id in (
        select a.id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where a.started_at < ${before}::timestamptz and d.status <> 'PENDING' and d.updated_at < ${before}::timestamptz
        limit ${batchSize})`);
    result.webhookDeliveries = await drain(db, batchSize, () => sql`
      delete from webhook_deliveries where id in (
        select d.id from webhook_deliveries d
        where d.status <> 'PENDING' and d.updated_at < ${before}::timestamptz
          and not exists (select 1 from webhook_attempts a where a.delivery_id = d.id)
        limit ${batchSize})`);
    result.webhookEvents = await drain(db, batchSize, () => sql`
      delete from webhook_events where id in (
        select e.id from webhook_events e
        where e.created_at < ${before}::timestamptz
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
        limit ${batchSize})`);
  }
  if (transactionEventDays > 0) {
    const before = cutoff(transactionEventDays);
    result.transactionEvents = await drain(db, batchSize, () => sql`
      delete from transaction_events where id in (
        select ev.id from transaction_events ev join transactions t on t.id = ev.transaction_id
        where ev.created_at < ${before}::timestamptz and t.status <> 'PENDING'
        limit ${batchSize})`);
  }
  if (auditDays > 0) {
    const before = cutoff(auditDays);
    result.auditEntries = await drain(db, batchSize, () => sql`
      delete from audit_log where id in (select id from audit_log where created_at < ${before}::timestamptz limit ${batchSize})`);
  }
  return result;
}

/** Starts the retention loop (every `RETENTION_INTERVAL_MS`); logs what each run purged. */
export function startRetentionJob(services: Services): Loop {
  return startLoop(
    'retention',
    services.config.retention.intervalMs,
    async () => {
      const result = await purgeOnce(services);
      if (Object.values(result).some((n) => n > 0)) services.log.info({ purged: result }, 'retention: old rows purged');
    },
    services.log,
  );
}
