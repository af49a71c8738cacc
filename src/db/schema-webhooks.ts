/**
 * Webhook tables: secrets (encrypted at rest), events (the exact body announced, built
 * inside the status change's transaction), deliveries (the outbox rows the worker claims) and
 * attempts (one row per HTTP try, the merchant's delivery log).
 * Timestamps come from the injected clock, like every other table.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, customType, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { applications, transactions } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Webhook secrets of an application. `expiresAt` null = the current secret (at most one, by the
 * partial unique index); a rotated-out secret keeps signing until `expiresAt`.
 * `secretCiphertext` is AES-256-GCM (see webhooks/secret-box.ts); the plain text is never stored.
 */
export const webhookSecrets = pgTable(
  'webhook_secrets',
  {
    id: uuid('id').primaryKey(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    secretCiphertext: text('secret_ciphertext').notNull(),
    secretPrefix: text('secret_prefix').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at'),
  },
  (t) => [
    index('webhook_secrets_app_idx').on(t.applicationId),
    // One current secret per application.
    uniqueIndex('webhook_secrets_one_current').on(t.applicationId).where(sql`${t.expiresAt} is null`),
  ],
);

/**
 * PostgreSQL's `xid8`: a 64-bit transaction id (epoch and xid), never wrapping. Read as its
 * decimal text; only SQL compares it.
 */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/**
 * An event as announced: `payload` is the exact JSON body sent (and signed) on every attempt.
 * Every announced status change writes one, webhook URL or not (the events API lists them); a
 * delivery is written only for an application with a webhook URL. `environment` is the
 * transaction's (TEST for `webhook.test`, which has none). `writtenBy` (the writing database
 * transaction's id) then `seq` (creation order) order the events API's feed: see
 * db/queries/webhooks.ts `listEventsAfter`.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    environment: text('environment').notNull(),
    eventName: text('event_name').notNull(),
    transactionId: uuid('transaction_id').references(() => transactions.id),
    payload: text('payload').notNull(),
    createdAt: ts('created_at').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    writtenBy: xid8('written_by')
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [
    index('webhook_events_tx_idx').on(t.transactionId),
    index('webhook_events_created_idx').on(t.createdAt),
    // The events API's pages: one application and environment, in feed order.
    index('webhook_events_feed_idx').on(t.applicationId, t.environment, t.writtenBy, t.seq),
  ],
);

/**
 * One delivery of an event to the application's webhook URL. `status` PENDING, DELIVERED or
 * FAILED. While PENDING, `nextAttemptAt` is when it is due; a worker that claims it pushes
 * `nextAttemptAt` one lease ahead and sets `leaseToken`, so only the lease holder may record
 * the outcome and a crashed worker's claim is picked up again once the lease has passed.
 * `attemptCount` counts every attempt ever; `roundAttempts` those since the last replay (the
 * index into the retry schedule).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    status: text('status').notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    roundAttempts: integer('round_attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    leaseToken: uuid('lease_token'),
    httpStatus: integer('http_status'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'PENDING'`),
    index('webhook_deliveries_app_created_idx').on(t.applicationId, t.createdAt),
    index('webhook_deliveries_finished_idx').on(t.updatedAt).where(sql`${t.status} <> 'PENDING'`),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);

/** One HTTP attempt of a delivery: when, how long, what came back (first 1 KiB), or the error. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptNumber: integer('attempt_number').notNull(),
    url: text('url'),
    startedAt: ts('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    httpStatus: integer('http_status'),
    responseBody: text('response_body'),
    error: text('error'),
  },
  (t) => [
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id),
    // The retention job's scan of old finished deliveries (jobs/retention.ts).
    index('webhook_attempts_started_idx').on(t.startedAt),
  ],
);
