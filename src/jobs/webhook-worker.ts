/**
 * The webhook worker. Each tick claims at most `WEBHOOK_WORKER_BATCH_SIZE` due PENDING deliveries
 * with `FOR UPDATE SKIP LOCKED`, leasing each (`next_attempt_at` pushed `WEBHOOK_LEASE_MS` ahead, a
 * fresh `lease_token`), so any number of instances share the work and no attempt is made twice at
 * once. A worker that dies after claiming leaves the lease to run out; the delivery is then due
 * again and another worker sends it. The lease outlasts the send timeout, so a live worker always
 * records before its lease ends. Each instance runs `BATCHES_IN_FLIGHT` such loops, which share the
 * work the same way. Stoppable; a loop never overlaps itself; the API never waits for it.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { leaseDueDeliveries } from '../db/queries/webhooks.ts';
import { webhookDeliveries } from '../db/schema-webhooks.ts';
import type { Services } from '../services.ts';
import {
  loadDeliveryEvents,
  performAttempt,
  recordAttempts,
  type AttemptOptions,
  type AttemptOutcome,
  type DeliveryRow,
  type PerformedAttempt,
} from '../webhooks/attempt-delivery.ts';
import { signingSecrets } from '../webhooks/webhook-secrets.ts';
import { startLoop, type Loop } from './status-poller.ts';

/**
 * Batches in flight at once: each is its own loop of claim, send, record, as if each were another
 * instance (the leases keep them apart), so that one batch is sent while another is being
 * claimed or recorded. With one, the sends waited for every statement of the tick.
 */
const BATCHES_IN_FLIGHT = 2;
/**
 * Attempts in flight at once per batch (each waits on a receiver; most of the time is spent
 * waiting). A receiver still gets at most 32 connections (http-sender.ts); attempts beyond wait
 * for one of them.
 */
const CONCURRENCY = 32;

/**
 * Claims due deliveries (at most `batchSize`) for this caller, each for `config.webhookLeaseMs`
 * (which config.ts keeps longer than the send timeout); each returned row carries its lease token.
 */
export async function claimDueDeliveries(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<DeliveryRow[]> {
  const now = services.clock.now();
  const leaseToken = randomUUID();
  const lease = new Date(now.getTime() + services.config.webhookLeaseMs);
  return leaseDueDeliveries(services.db, { now, limit: batchSize, leaseUntil: lease, leaseToken });
}

/** What one tick did. `more`: the claim came back full, the loop goes again at once. */
export interface DeliverTickResult {
  claimed: number;
  outcomes: AttemptOutcome[];
  more: boolean;
}

/**
 * One worker tick: claim a batch, load its events in one query, attempt each (at most
 * CONCURRENCY in flight; each application's signing secrets read once per tick), then record
 * all the attempts in one database transaction. Errors are logged, never thrown: an attempt
 * not recorded keeps its lease until it runs out and is sent again (at least once). When
 * `signal` aborts (graceful stop), the attempts under way finish and are recorded, and the
 * deliveries claimed but not started are released (due now, lease cleared).
 */
export async function deliverOnce(services: Services, options: AttemptOptions = {}, signal?: AbortSignal): Promise<DeliverTickResult> {
  const batchSize = services.config.webhookWorkerBatchSize;
  const rows = await claimDueDeliveries(services, batchSize);
  if (rows.length === 0) return { claimed: 0, outcomes: [], more: false };
  const events = await loadDeliveryEvents(services.db, rows.map((r) => r.eventId));
  const secrets = new Map<string, Promise<string[]>>();
  const secretsOf = (applicationId: string) => () => {
    let found = secrets.get(applicationId);
    if (!found) secrets.set(applicationId, (found = signingSecrets(services, applicationId, services.clock.now())));
    return found;
  };
  const performed: PerformedAttempt[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length && !signal?.aborted) {
      const row = rows[next++]!;
      try {
        performed.push(await performAttempt(services, row, events.get(row.eventId), secretsOf(row.applicationId), options));
      } catch (error) {
        // The lease runs out and the delivery is retried by a later tick.
        services.log.error({ err: error, deliveryId: row.id }, 'webhook attempt failed unexpectedly');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
  let outcomes: AttemptOutcome[] = [];
  try {
    outcomes = await recordAttempts(services, performed);
  } catch (error) {
    services.log.error({ err: error, size: performed.length }, 'recording webhook attempts failed; their leases will run out and they will be sent again');
  }
  const left = rows.slice(next);
  if (left.length > 0) {
    await services.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: services.clock.now(), leaseToken: null })
      .where(and(inArray(webhookDeliveries.id, left.map((r) => r.id)), eq(webhookDeliveries.leaseToken, left[0]!.leaseToken!)));
  }
  return { claimed: rows.length, outcomes, more: rows.length === batchSize && !signal?.aborted };
}

/**
 * Starts the worker: `BATCHES_IN_FLIGHT` loops of `deliverOnce`, each ticking at the configured
 * interval when idle and again after a full batch (at once, or after its fair-share rest while the
 * API is serving, fair-share.ts). `stop` stops them all and waits for their
 * attempts under way to be recorded.
 */
export function startWebhookWorker(services: Services): Loop {
  const loops = Array.from({ length: BATCHES_IN_FLIGHT }, () =>
    startLoop('webhook-worker', services.config.webhookWorkerIntervalMs, (signal) => deliverOnce(services, {}, signal), services.log, services.apiActivity),
  );
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
