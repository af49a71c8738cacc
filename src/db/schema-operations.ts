/**
 * Tables of the service's own operation (issue "Operating Kolo"): the fingerprints of the
 * secrets every instance sharing one PostgreSQL must agree on.
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
