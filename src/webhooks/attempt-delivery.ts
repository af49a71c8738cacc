/**
 * One HTTP attempt of a claimed delivery, recorded whatever happens. The caller holds the lease
 * (`leaseToken`); the outcome is only written while the lease is still ours, so two workers can
 * never both record (and schedule) the same attempt. Every attempt gets a row in
 * `webhook_attempts`: time, URL, HTTP status, duration, first 1 KiB of the answer, error.
 */
import { eq, inArray } from 'drizzle-orm';
import { runStatement, statement } from '../db/statement.ts';
import type { Db } from '../db/client.ts';
import { applications } from '../db/schema.ts';
import { webhookDeliveries, webhookEvents } from '../db/schema-webhooks.ts';
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

// Every attempt's outcome on its delivery (only while the lease is still ours) and its attempt
// row, in one statement.
const recordMany = statement(
  'record_webhook_attempts_v2',
  `with v as (
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::int[], $7::text[], $8::timestamptz[],
                          $9::text[], $10::timestamptz[], $11::int[], $12::text[])
       as v(id, lease_token, status, round_attempts, next_attempt_at, http_status, last_error, delivered_at, url, started_at, duration_ms, response_body)
   ), u as (
     update webhook_deliveries d
        set status = v.status, attempt_count = d.attempt_count + 1, round_attempts = v.round_attempts,
            next_attempt_at = v.next_attempt_at, lease_token = null, http_status = v.http_status,
            last_error = v.last_error, delivered_at = v.delivered_at, updated_at = $13::timestamptz
       from v
      where d.id = any($1::uuid[]) and d.id = v.id and d.lease_token = v.lease_token
      returning d.id, d.attempt_count
   ), a as (
     insert into webhook_attempts (delivery_id, attempt_number, url, started_at, duration_ms, http_status, response_body, error)
     select v.id, u.attempt_count, v.url, v.started_at, v.duration_ms, v.http_status, v.response_body, v.last_error
       from v join u on u.id = v.id
   )
   select id from u`,
);

/**
 * Records performed attempts in one statement whatever their number (issue 14): each delivery's
 * outcome, guarded by its lease token, and its attempt row. An attempt whose lease was lost (another worker took over) is not recorded and
 * comes back with `recorded: false`.
 */
export async function recordAttempts(
  services: Pick<Services, 'db' | 'clock' | 'log' | 'metrics'>,
  performed: PerformedAttempt[],
): Promise<AttemptOutcome[]> {
  if (performed.length === 0) return [];
  const now = services.clock.now();
  const { rows } = await runStatement<{ id: string }>(services.db, recordMany, [
    performed.map((a) => a.delivery.id),
    performed.map((a) => a.delivery.leaseToken),
    performed.map((a) => (a.step.kind === 'RETRY' ? 'PENDING' : a.step.kind)),
    performed.map((a) => a.roundAttempts),
    performed.map((a) => (a.step.kind === 'RETRY' ? new Date(now.getTime() + a.step.delayMs).toISOString() : null)),
    performed.map((a) => a.httpStatus ?? null),
    performed.map((a) => a.error),
    performed.map((a) => (a.step.kind === 'DELIVERED' ? now.toISOString() : null)),
    performed.map((a) => a.url),
    performed.map((a) => a.startedAt.toISOString()),
    performed.map((a) => a.durationMs),
    performed.map((a) => a.responseBody),
    now.toISOString(),
  ]);
  const recorded = new Set(rows.map((r) => r.id));
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
