/**
 * Tables of the service's own operation: the fingerprints of the secrets every instance sharing one
 * PostgreSQL must agree on.
 */
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per shared secret (`JWT_SECRET`, `WEBHOOK_ENCRYPTION_KEY`, `CHECKOUT_CSRF_SECRET`):
 * the fingerprint recorded by the first instance that started (`secretFingerprint`, an HMAC of a
 * fixed label keyed with the secret; never the secret).
 */
export const sharedSecretFingerprints = pgTable('shared_secret_fingerprints', {
  name: text('name').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * State a connector shares across every instance on one database, by key, until `expiresAt`:
 * an operator's bearer token where each new token invalidates the previous one (Daraja), or a
 * pause on a phone number after an operator asked for one ("unable to lock subscriber"). Values
 * that are secrets are stored encrypted by the store (`connector-state.ts`).
 */
export const connectorState = pgTable('connector_state', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
