/**
 * The purges' bounded deletes behind typed functions: each deletes at most `limit` rows older
 * than its cut-off and returns how many it deleted. Which kinds are purged, at what age and how
 * many batches a run makes is decided in src/jobs/retention.ts (and, for expired idempotency
 * keys, by the poller's tick). Each function is one statement (its own transaction).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';

/** What a bounded delete takes: the cut-off (rows from before it may go) and the most rows deleted. */
export interface BoundedDelete {
  before: Date;
  limit: number;
}

/** Rows a statement deleted, as either driver reports it. */
async function deleted(db: Db, statement: SQL): Promise<number> {
  const r = (await db.execute(statement)) as unknown as { affectedRows?: number; rowCount?: number | null };
  return r.affectedRows ?? r.rowCount ?? 0;
}

/** Deletes attempts started before `before` of finished deliveries (not PENDING) last changed before it. */
export function deleteOldWebhookAttempts(db: Db, input: BoundedDelete): Promise<number> {
  const before = input.before.toISOString();
  return deleted(db, sql`
      delete from webhook_attempts where id in (
        select a.id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where a.started_at < ${before}::timestamptz and d.status <> 'PENDING' and d.updated_at < ${before}::timestamptz
        limit ${input.limit})`);
}

/** Deletes finished deliveries (not PENDING) last changed before `before` that have no attempt left. */
export function deleteOldWebhookDeliveries(db: Db, input: BoundedDelete): Promise<number> {
  const before = input.before.toISOString();
  return deleted(db, sql`
      delete from webhook_deliveries where id in (
        select d.id from webhook_deliveries d
        where d.status <> 'PENDING' and d.updated_at < ${before}::timestamptz
          and not exists (select 1 from webhook_attempts a where a.delivery_id = d.id)
        limit ${input.limit})`);
}

/**
 * Deletes webhook events created before `before` that have no delivery left: those whose
 * deliveries were purged, and those that never had one (an application without webhook URL,
 * whose events the events API lists until then).
 */
export function deleteOldWebhookEvents(db: Db, input: BoundedDelete): Promise<number> {
  const before = input.before.toISOString();
  return deleted(db, sql`
      delete from webhook_events where id in (
        select e.id from webhook_events e
        where e.created_at < ${before}::timestamptz
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
        limit ${input.limit})`);
}

/** Deletes events created before `before` of transactions no longer PENDING. */
export function deleteOldTransactionEvents(db: Db, input: BoundedDelete): Promise<number> {
  const before = input.before.toISOString();
  return deleted(db, sql`
      delete from transaction_events where id in (
        select ev.id from transaction_events ev join transactions t on t.id = ev.transaction_id
        where ev.created_at < ${before}::timestamptz and t.status <> 'PENDING'
        limit ${input.limit})`);
}

/** Deletes audit entries created before `before`. */
export function deleteOldAuditEntries(db: Db, input: BoundedDelete): Promise<number> {
  const before = input.before.toISOString();
  return deleted(db, sql`
      delete from audit_log where id in (select id from audit_log where created_at < ${before}::timestamptz limit ${input.limit})`);
}

/** Deletes idempotency keys that expired at or before `now`, at most `limit` rows. */
export function deleteExpiredIdempotencyKeys(db: Db, input: { now: Date; limit: number }): Promise<number> {
  return deleted(
    db,
    sql`delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= ${input.now.toISOString()} limit ${input.limit})`,
  );
}
