/**
 * The webhook worker (issue 4 "Durability"). Each tick claims at most `WEBHOOK_WORKER_BATCH_SIZE`
 * due PENDING deliveries with `FOR UPDATE SKIP LOCKED`, leasing each (`next_attempt_at` pushed
 * `WEBHOOK_LEASE_MS` ahead, a fresh `lease_token`), so any number of instances share the work and
 * no attempt is made twice at once. A worker that dies after claiming leaves the lease to run
 * out; the delivery is then due again and another worker sends it. The lease outlasts the send
 * timeout, so a live worker always records before its lease ends. Stoppable; never overlaps
 * itself; the API never waits for it.
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { webhookDeliveries } from '../db/schema-webhooks.ts';
import type { Services } from '../services.ts';
import { attemptDelivery, type AttemptOptions, type AttemptOutcome, type DeliveryRow } from '../webhooks/attempt-delivery.ts';
import { startLoop, type Loop } from './status-poller.ts';

const CONCURRENCY = 8;

/**
 * Claims due deliveries (at most `batchSize`) for this caller, each for `config.webhookLeaseMs`
 * (which config.ts keeps longer than the send timeout); each returned row carries its lease token.
 */
export async function claimDueDeliveries(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<DeliveryRow[]> {
  const now = services.clock.now();
  const leaseToken = randomUUID();
  const due = services.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'PENDING'), lte(webhookDeliveries.nextAttemptAt, now)))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(batchSize)
    .for('update', { skipLocked: true });
  return services.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now.getTime() + services.config.webhookLeaseMs), leaseToken })
    .where(and(inArray(webhookDeliveries.id, due), eq(webhookDeliveries.status, 'PENDING')))
    .returning();
}

/** What one tick did. */
export interface DeliverTickResult {
  claimed: number;
  outcomes: AttemptOutcome[];
}

/**
 * One worker tick: claim a batch and attempt each (at most 8 in flight). Errors are logged,
 * never thrown. When `signal` aborts (graceful stop), the attempts under way finish and are
 * recorded, and the deliveries claimed but not started are released (due now, lease cleared).
 */
export async function deliverOnce(services: Services, options: AttemptOptions = {}, signal?: AbortSignal): Promise<DeliverTickResult> {
  const rows = await claimDueDeliveries(services, services.config.webhookWorkerBatchSize);
  const outcomes: AttemptOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length && !signal?.aborted) {
      const row = rows[next++]!;
      try {
        outcomes.push(await attemptDelivery(services, row, options));
      } catch (error) {
        // The lease runs out and the delivery is retried by a later tick.
        services.log.error({ err: error, deliveryId: row.id }, 'webhook attempt failed unexpectedly');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
  const left = rows.slice(next);
  for (const row of left) {
    await services.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: services.clock.now(), leaseToken: null })
      .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.leaseToken, row.leaseToken!)));
  }
  return { claimed: rows.length, outcomes };
}

/** Starts the worker loop with the configured interval. */
export function startWebhookWorker(services: Services): Loop {
  return startLoop('webhook-worker', services.config.webhookWorkerIntervalMs, (signal) => deliverOnce(services, {}, signal), services.log);
}
