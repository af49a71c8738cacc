/**
 * One HTTP attempt of a claimed delivery, recorded whatever happens. The caller holds the lease
 * (`leaseToken`); the outcome is only written while the lease is still ours, so two workers can
 * never both record (and schedule) the same attempt. Every attempt gets a row in
 * `webhook_attempts`: time, URL, HTTP status, duration, first 1 KiB of the answer, error.
 */
import { eq, inArray } from 'drizzle-orm';
import { recordAttemptOutcomes, type WebhookDeliveryRow } from '../db/queries/webhooks.ts';
import type { Db } from '../db/client.ts';
import { applications } from '../db/schema.ts';
import { webhookEvents } from '../db/schema-webhooks.ts';
import type { Services } from '../services.ts';
import { nextStep, parseRetryAfterMs, type NextStep } from './retry-schedule.ts';
import { webhookHeaders } from './signing.ts';
import { signingSecrets } from './webhook-secrets.ts';

/** A delivery row. */
export type DeliveryRow = WebhookDeliveryRow;

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

/** The event a delivery sends, with its application's current webhook URL (null: none). */
export interface DeliveryEvent {
  id: string;
  eventName: string;
  payload: string;
  url: string | null;
}

/** The events of `eventIds` with their applications' webhook URLs, in one query. */
export async function loadDeliveryEvents(db: Db, eventIds: string[]): Promise<Map<string, DeliveryEvent>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .select({ id: webhookEvents.id, eventName: webhookEvents.eventName, payload: webhookEvents.payload, url: applications.webhookUrl })
    .from(webhookEvents)
    .innerJoin(applications, eq(applications.id, webhookEvents.applicationId))
    .where(inArray(webhookEvents.id, [...new Set(eventIds)]));
  return new Map(rows.map((r) => [r.id, r]));
}

/** An attempt made but not yet recorded (`recordAttempts` writes it). */
export interface PerformedAttempt {
  delivery: DeliveryRow;
  url: string | null;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | undefined;
  responseBody: string | null;
  error: string | null;
  step: NextStep;
  roundAttempts: number;
}

/**
 * Sends one attempt of `delivery` (claimed by the caller) with `event` and the application's
 * signing secrets (`secrets`, asked only when there is something to sign), and decides the next
 * step; writes nothing. Never throws for the receiver's behaviour.
 */
export async function performAttempt(
  services: Pick<Services, 'clock' | 'config' | 'webhookSender' | 'log'>,
  delivery: DeliveryRow,
  event: DeliveryEvent | undefined,
  secrets: () => Promise<string[]>,
  options: AttemptOptions = {},
): Promise<PerformedAttempt> {
  const startedAt = services.clock.now();
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
    let signing: string[] | null = null;
    try {
      signing = await secrets();
    } catch (cause) {
      // Never downgrade to an unsigned delivery: record the problem and let the schedule run.
      services.log.error({ err: cause, deliveryId: delivery.id }, 'webhook secret cannot be decrypted (WEBHOOK_ENCRYPTION_KEY changed?)');
      error = 'secret de webhook indéchiffrable (clé de chiffrement du serveur modifiée ?)';
    }
    if (signing) {
      try {
        const headers = webhookHeaders({ eventId: event.id, eventName: event.eventName, timestampSeconds, body: event.payload, secrets: signing });
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
  let step: NextStep = url ? nextStep({ httpStatus, retryAfterMs }, roundAttempts, (options.random ?? Math.random)()) : { kind: 'FAILED' };
  if (options.retry === false && step.kind === 'RETRY') step = { kind: 'FAILED' };
  return { delivery, url, startedAt, durationMs, httpStatus, responseBody, error, step, roundAttempts };
}

/**
 * Records performed attempts in one statement whatever their number (`recordAttemptOutcomes`):
 * each delivery's outcome, guarded by its lease token, and its attempt row. An attempt whose lease
 * was lost (another worker took over) is not recorded and comes back with `recorded: false`.
 */
export async function recordAttempts(
  services: Pick<Services, 'db' | 'clock' | 'log' | 'metrics'>,
  performed: PerformedAttempt[],
): Promise<AttemptOutcome[]> {
  if (performed.length === 0) return [];
  const now = services.clock.now();
  const recorded = await recordAttemptOutcomes(services.db, {
    now,
    attempts: performed.map((a) => ({
      deliveryId: a.delivery.id,
      leaseToken: a.delivery.leaseToken,
      status: a.step.kind === 'RETRY' ? 'PENDING' : a.step.kind,
      roundAttempts: a.roundAttempts,
      nextAttemptAt: a.step.kind === 'RETRY' ? new Date(now.getTime() + a.step.delayMs) : null,
      httpStatus: a.httpStatus ?? null,
      error: a.error,
      deliveredAt: a.step.kind === 'DELIVERED' ? now : null,
      url: a.url,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      responseBody: a.responseBody,
    })),
  });
  return performed.map((a) => {
    const isRecorded = recorded.has(a.delivery.id);
    if (!isRecorded) services.log.warn({ deliveryId: a.delivery.id }, 'webhook delivery lease lost before recording the attempt');
    const outcome = a.step.kind.toLowerCase();
    services.metrics.webhookDeliveries.inc({ outcome });
    services.metrics.webhookDuration.observe({ outcome }, a.durationMs / 1000);
    return { deliveryId: a.delivery.id, step: a.step.kind, httpStatus: a.httpStatus, error: a.error, url: a.url, sentAt: a.startedAt, recorded: isRecorded };
  });
}

/** Performs and records one attempt of `delivery`, which the caller has claimed with `delivery.leaseToken`. */
export async function attemptDelivery(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'webhookSecretBox' | 'webhookSender' | 'log' | 'metrics'>,
  delivery: DeliveryRow,
  options: AttemptOptions = {},
): Promise<AttemptOutcome> {
  const events = await loadDeliveryEvents(services.db, [delivery.eventId]);
  const performed = await performAttempt(
    services,
    delivery,
    events.get(delivery.eventId),
    () => signingSecrets(services, delivery.applicationId, services.clock.now()),
    options,
  );
  const [outcome] = await recordAttempts(services, [performed]);
  return outcome!;
}
