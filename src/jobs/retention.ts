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
import {
  deleteOldAuditEntries,
  deleteOldTransactionEvents,
  deleteOldWebhookAttempts,
  deleteOldWebhookDeliveries,
  deleteOldWebhookEvents,
  type BoundedDelete,
} from '../db/queries/retention.ts';
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

/** Runs `purge` (a bounded delete) until it deletes fewer than `limit` rows, at most MAX_BATCHES_PER_KIND times. */
async function drain(db: Db, input: BoundedDelete, purge: (db: Db, input: BoundedDelete) => Promise<number>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_KIND; batch += 1) {
    const deleted = await purge(db, input);
    total += deleted;
    if (deleted < input.limit) break;
  }
  return total;
}

/** One retention run at `services.clock.now()`. */
export async function purgeOnce(services: Pick<Services, 'db' | 'clock' | 'config'>): Promise<RetentionResult> {
  const { db, clock, config } = services;
  const { webhookDays, transactionEventDays, auditDays, batchSize } = config.retention;
  const now = clock.now().getTime();
  const olderThan = (days: number): BoundedDelete => ({ before: new Date(now - days * DAY_MS), limit: batchSize });
  const result: RetentionResult = { webhookAttempts: 0, webhookDeliveries: 0, webhookEvents: 0, transactionEvents: 0, auditEntries: 0 };

  if (webhookDays > 0) {
    const old = olderThan(webhookDays);
    result.webhookAttempts = await drain(db, old, deleteOldWebhookAttempts);
    result.webhookDeliveries = await drain(db, old, deleteOldWebhookDeliveries);
    result.webhookEvents = await drain(db, old, deleteOldWebhookEvents);
  }
  if (transactionEventDays > 0) result.transactionEvents = await drain(db, olderThan(transactionEventDays), deleteOldTransactionEvents);
  if (auditDays > 0) result.auditEntries = await drain(db, olderThan(auditDays), deleteOldAuditEntries);
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
