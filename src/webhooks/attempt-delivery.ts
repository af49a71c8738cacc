/**
 * One HTTP attempt of a claimed delivery, recorded whatever happens. The caller holds the lease
 * (`leaseToken`); the outcome is only written while the lease is still ours, so two workers can
 * never both record (and schedule) the same attempt. Every attempt gets a row in
 * `webhook_attempts`: time, URL, HTTP status, duration, first 1 KiB of the answer, error.
 */
import { eq, inArray, sql } from 'drizzle-orm';
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
 * Records performed attempts in one database transaction whatever their number (issue 14): one
 * UPDATE … FROM (VALUES …) of the deliveries, guarded by each lease token, and one insert of the
 * attempt rows. An attempt whose lease was lost (another worker took over) is not recorded and
 * comes back with `recorded: false`.
 */
export async function recordAttempts(
  services: Pick<Services, 'db' | 'clock' | 'log' | 'metrics'>,
  performed: PerformedAttempt[],
): Promise<AttemptOutcome[]> {
  if (performed.length === 0) return [];
  const now = services.clock.now();
  const nowIso = now.toISOString();
  const values = performed.map(
    (a) =>
      sql`(${a.delivery.id}::uuid, ${a.delivery.leaseToken}::uuid, ${a.step.kind === 'RETRY' ? 'PENDING' : a.step.kind}::text,
           ${a.roundAttempts}::int, ${a.step.kind === 'RETRY' ? new Date(now.getTime() + a.step.delayMs).toISOString() : null}::timestamptz,
           ${a.httpStatus ?? null}::int, ${a.error}::text, ${a.step.kind === 'DELIVERED' ? nowIso : null}::timestamptz)`,
  );
  const recorded = await services.db.transaction(async (txHandle) => {
    const tx = txHandle as unknown as Db;
    const result = await tx.execute(sql`
      update webhook_deliveries d
         set status = v.status, attempt_count = d.attempt_count + 1, round_attempts = v.round_attempts,
             next_attempt_at = v.next_attempt_at, lease_token = null, http_status = v.http_status,
             last_error = v.last_error, delivered_at = v.delivered_at, updated_at = ${nowIso}::timestamptz
        from (values ${sql.join(values, sql`, `)}) as v(id, lease_token, status, round_attempts, next_attempt_at, http_status, last_error, delivered_at)
       where d.id = v.id and d.lease_token = v.lease_token
      returning d.id, d.attempt_count`);
    const counts = new Map((result as unknown as { rows: { id: string; attempt_count: number }[] }).rows.map((r) => [r.id, Number(r.attempt_count)]));
    const attempts = performed.filter((a) => counts.has(a.delivery.id));
    if (attempts.length > 0) {
      await tx.insert(webhookAttempts).values(
        attempts.map((a) => ({
          deliveryId: a.delivery.id,
          attemptNumber: counts.get(a.delivery.id)!,
          url: a.url,
          startedAt: a.startedAt,
          durationMs: a.durationMs,
          httpStatus: a.httpStatus ?? null,
          responseBody: a.responseBody,
          error: a.error,
        })),
      );
    }
    return new Set(counts.keys());
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
