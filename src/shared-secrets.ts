/**
 * Instances that share one PostgreSQL must share three secrets: `JWT_SECRET` (a token signed by one
 * instance is checked by another), `WEBHOOK_ENCRYPTION_KEY` (a webhook secret sealed by one is
 * opened by another) and `CHECKOUT_CSRF_SECRET` (a form served by one is posted to another). Left
 * unset, each instance generates its own into its data directory, and they silently disagree. At
 * start-up on PostgreSQL each instance records each secret's fingerprint (`secretFingerprint`: an
 * HMAC of a fixed label, never the secret) in `shared_secret_fingerprints`, or compares it with the
 * one already recorded, and refuses to start on a difference, naming the variable to set.
 * `kolo secrets forget` clears the record after a deliberate change of a secret on every instance.
 */
import { eq } from 'drizzle-orm';
import type { Database } from './db/client.ts';
import { sharedSecretFingerprints } from './db/schema-operations.ts';
import { jwtSecret } from './dashboard/jwt-secret.ts';
import { checkoutCsrfSecret } from './checkout/csrf.ts';
import { secretFingerprint } from './webhooks/secret-box.ts';
import type { Services } from './services.ts';

/** The shared secrets of this instance, by variable name, as fingerprints. */
export function sharedSecretFingerprintsOf(services: Pick<Services, 'config' | 'webhookSecretBox'>): Record<string, string> {
  return {
    JWT_SECRET: secretFingerprint(jwtSecret(services.config)),
    WEBHOOK_ENCRYPTION_KEY: services.webhookSecretBox.keyFingerprint,
    CHECKOUT_CSRF_SECRET: secretFingerprint(checkoutCsrfSecret(services.config)),
  };
}

/** Thrown when this instance's secrets differ from those the other instances recorded. */
export class SharedSecretMismatchError extends Error {}

/**
 * On PostgreSQL, records or checks this instance's fingerprints. Throws
 * `SharedSecretMismatchError` naming every variable that differs. Does nothing on PGlite (one
 * process per data directory: nothing to share).
 */
export async function checkSharedSecrets(services: Pick<Services, 'config' | 'webhookSecretBox' | 'clock' | 'db'>, database: Pick<Database, 'kind'>): Promise<void> {
  if (database.kind !== 'postgres') return;
  const mine = sharedSecretFingerprintsOf(services);
  const now = services.clock.now();
  const differing: string[] = [];
  for (const [name, fingerprint] of Object.entries(mine)) {
    await services.db.insert(sharedSecretFingerprints).values({ name, fingerprint, recordedAt: now }).onConflictDoNothing();
    const [recorded] = await services.db.select().from(sharedSecretFingerprints).where(eq(sharedSecretFingerprints.name, name));
    if (recorded && recorded.fingerprint !== fingerprint) differing.push(name);
  }
  if (differing.length > 0) {
    throw new SharedSecretMismatchError(
      `${differing.join(', ')}: this instance's value differs from the one the other instances sharing this database use. ` +
        `Set ${differing.join(', ')} to the same value on every instance (unset, each instance generates its own). ` +
        `After changing a secret on purpose on every instance, run 'kolo secrets forget' once.`,
    );
  }
}

/** Forgets every recorded fingerprint (the next instance to start records its own). Returns how many were removed. */
export async function forgetSharedSecrets(services: Pick<Services, 'db'>): Promise<number> {
  const removed = await services.db.delete(sharedSecretFingerprints).returning({ name: sharedSecretFingerprints.name });
  return removed.length;
}
