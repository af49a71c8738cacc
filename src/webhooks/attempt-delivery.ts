/**
 * One HTTP attempt of a claimed delivery, recorded whatever happens. The caller holds the lease
 * (`leaseToken`); the outcome is only written while the lease is still ours, so two workers can
 * never both record (and schedule) the same attempt. Every attempt gets a row in
 * `webhook_attempts`: time, URL, HTTP status, duration, first 1 KiB of the answer, error.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications } from '../db/schema.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../db/schema-webhooks.ts';
import type { Services } from '../services.ts';
import { nextStep, parseRetryAfterMs, type NextStep } from './retry-schedule.ts';
import { webhookHeaders } from './signing.ts';
import { signingSecrets } from './webhook-secrets.ts';

/** A delivery row. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** What an attempt did. `httpStatus` undefined = no answer (see `error`). */
export interface AttemptOutcome {
  deliveryId: string;
  step: NextStep['kind'];
  httpStatus: number | undefined;
  error: string | null;
  url: string | null;
  sentAt: Date;
  /** False when the lease had been lost (another worker took over): nothing was recorded. */
  recorded: boolean;
}

/** Options of an attempt: `retry` false = a single try (test events); `random` feeds the jitter. */
export interface AttemptOptions {
  retry?: boolean;
  random?: () => number;
}

const ERROR_MAX = 500;

/** Performs and records one attempt of `delivery`, which the caller has claimed with `delivery.leaseToken`. */
export async function attemptDelivery(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'webhookSecretBox' | 'webhookSender' | 'log' | 'metrics'>,
  delivery: DeliveryRow,
  options: AttemptOptions = {},
): Promise<AttemptOutcome> {
  const { db, clock } = services;
  const [event] = await db
    .select({ id: webhookEvents.id, eventName: webhookEvents.eventName, payload: webhookEvents.payload, url: applications.webhookUrl })
    .from(webhookEvents)
    .innerJoin(applications, eq(applications.id, webhookEvents.applicationId))
    .where(eq(webhookEvents.id, delivery.eventId));
  const startedAt = clock.now();
  const started = performance.now();
  let httpStatus: number | undefined;
  let responseBody: string | null = null;
  let error: string | null = null;
  let retryAfterMs: number | undefined;
  const url = event?.url ?? null;
  if (!event || !url) {
    error = "URL du webhook non configurée pour l'application";
  } else {
    const timestampSeconds = Math.floor(startedAt.getTime() / 1000);
    let secrets: string[] | null = null;
    try {
      secrets = await signingSecrets(services, delivery.applicationId, startedAt);
    } catch (cause) {
      // Never downgrade to an unsigned delivery: record the problem and let the schedule run.
      services.log.error({ err: cause, deliveryId: delivery.id }, 'webhook secret cannot be decrypted (WEBHOOK_ENCRYPTION_KEY changed?)');
      error = 'secret de webhook indéchiffrable (clé de chiffrement du serveur modifiée ?)';
    }
    if (secrets) {
      try {
        const headers = webhookHeaders({ eventId: event.id, eventName: event.eventName, timestampSeconds, body: event.payload, secrets });
        const response = await services.webhookSender({ url, headers, body: event.payload, timeoutMs: services.config.webhookTimeoutMs });
        httpStatus = response.status;
        responseBody = response.bodyPrefix;
        retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], startedAt);
        if (httpStatus < 200 || httpStatus >= 300) error = `HTTP ${httpStatus}`;
      } catch (cause) {
        error = (cause instanceof Error ? cause.message : String(cause)).slice(0, ERROR_MAX);
      }
    }
  }
  const durationMs = Math.max(0, Math.round(performance.now() - started));
  const roundAttempts = delivery.roundAttempts + 1;
  let finalStep: NextStep = url ? nextStep({ httpStatus, retryAfterMs }, roundAttempts, (options.random ?? Math.random)()) : { kind: 'FAILED' };
  if (options.retry === false && finalStep.kind === 'RETRY') finalStep = { kind: 'FAILED' };
  const now = clock.now();
  const recorded = await db.transaction(async (txHandle) => {
    const tx = txHandle as unknown as Db;
    const [updated] = await tx
      .update(webhookDeliveries)
      .set({
        status: finalStep.kind === 'RETRY' ? 'PENDING' : finalStep.kind,
        attemptCount: sql`${webhookDeliveries.attemptCount} + 1`,
        roundAttempts,
        nextAttemptAt: finalStep.kind === 'RETRY' ? new Date(now.getTime() + finalStep.delayMs) : null,
        leaseToken: null,
        httpStatus: httpStatus ?? null,
        lastError: error,
        deliveredAt: finalStep.kind === 'DELIVERED' ? now : null,
        updatedAt: now,
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.leaseToken, delivery.leaseToken!)))
      .returning({ attemptCount: webhookDeliveries.attemptCount });
    if (!updated) return false;
    await tx.insert(webhookAttempts).values({
      deliveryId: delivery.id,
      attemptNumber: updated.attemptCount,
      url,
      startedAt,
      durationMs,
      httpStatus: httpStatus ?? null,
      responseBody,
      error,
    });
    return true;
  });
  if (!recorded) services.log.warn({ deliveryId: delivery.id }, 'webhook delivery lease lost before recording the attempt');
  const outcome = finalStep.kind.toLowerCase();
  services.metrics.webhookDeliveries.inc({ outcome });
  services.metrics.webhookDuration.observe({ outcome }, durationMs / 1000);
  return { deliveryId: delivery.id, step: finalStep.kind, httpStatus, error, url, sentAt: startedAt, recorded };
}
