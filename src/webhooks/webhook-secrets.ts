/**
 * Webhook secrets of an application: `whsec_` + 64 lowercase hex (32 random bytes), shown once,
 * stored only encrypted (`services.webhookSecretBox`). Rotation keeps the previous secret signing
 * for `WEBHOOK_SECRET_OVERLAP_HOURS` (default 24) so receivers can switch without losing a
 * delivery; deletion stops all signing at once.
 */
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { transaction, type Db } from '../db/client.ts';
import { webhookSecrets } from '../db/schema-webhooks.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

/** At most this many secrets sign one attempt (current + rotated-out ones still in overlap). */
const MAX_SIGNING_SECRETS = 3;

/** The visible prefix of a secret: its first 14 characters then `...` (as SharePay shows it). */
export function secretPrefix(secret: string): string {
  return `${secret.slice(0, 14)}...`;
}

/** A newly issued secret: the plain text (shown once) and its visible prefix. */
export interface IssuedSecret {
  plainTextWebhookSecret: string;
  webhookSecretPrefix: string;
}

type SecretServices = Pick<Services, 'db' | 'clock' | 'ids' | 'webhookSecretBox' | 'config'>;

function isCurrentOrOverlapping(now: Date) {
  return or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now));
}

async function insertSecret(db: Db, services: SecretServices, applicationId: string): Promise<IssuedSecret> {
  const secret = `whsec_${services.ids.hex(32)}`;
  await db.insert(webhookSecrets).values({
    id: services.ids.uuid(),
    applicationId,
    secretCiphertext: services.webhookSecretBox.seal(secret),
    secretPrefix: secretPrefix(secret),
    createdAt: services.clock.now(),
    expiresAt: null,
  });
  return { plainTextWebhookSecret: secret, webhookSecretPrefix: secretPrefix(secret) };
}

/** Issues the application's first secret. Throws 409 WEBHOOK_SECRET_ALREADY_EXISTS when one is current. */
export async function createWebhookSecret(services: SecretServices, applicationId: string): Promise<IssuedSecret> {
  return transaction(services.db, async (tx) => {
    const [current] = await tx
      .select({ id: webhookSecrets.id })
      .from(webhookSecrets)
      .where(and(eq(webhookSecrets.applicationId, applicationId), isNull(webhookSecrets.expiresAt)))
      .for('update');
    if (current) throw new ApiError('WEBHOOK_SECRET_ALREADY_EXISTS');
    return insertSecret(tx, services, applicationId);
  });
}

/**
 * Issues a new secret; the current one (if any) keeps signing until now + the configured overlap.
 * Without a current secret this simply creates one.
 */
export async function rotateWebhookSecret(services: SecretServices, applicationId: string): Promise<IssuedSecret> {
  const now = services.clock.now();
  const overlapEnd = new Date(now.getTime() + services.config.webhookSecretOverlapHours * 3_600_000);
  return transaction(services.db, async (tx) => {
    await tx
      .update(webhookSecrets)
      .set({ expiresAt: overlapEnd })
      .where(and(eq(webhookSecrets.applicationId, applicationId), isNull(webhookSecrets.expiresAt)));
    return insertSecret(tx, services, applicationId);
  });
}

/** Stops every secret of the application from signing now. Throws 404 WEBHOOK_SECRET_NOT_FOUND when there was none. */
export async function deleteWebhookSecret(services: Pick<Services, 'db' | 'clock'>, applicationId: string): Promise<void> {
  const now = services.clock.now();
  const ended = await services.db
    .update(webhookSecrets)
    .set({ expiresAt: now })
    .where(and(eq(webhookSecrets.applicationId, applicationId), isCurrentOrOverlapping(now)))
    .returning({ id: webhookSecrets.id });
  if (ended.length === 0) throw new ApiError('WEBHOOK_SECRET_NOT_FOUND');
}

/** The visible prefix of the current secret, or null. */
export async function currentSecretPrefix(db: Db, applicationId: string): Promise<string | null> {
  const [row] = await db
    .select({ prefix: webhookSecrets.secretPrefix })
    .from(webhookSecrets)
    .where(and(eq(webhookSecrets.applicationId, applicationId), isNull(webhookSecrets.expiresAt)));
  return row?.prefix ?? null;
}

/**
 * Plain-text secrets that sign an attempt at `now`, the current one first (empty = unsigned).
 * "Current" is the one without an end (`expires_at` null), not the latest `created_at`: a
 * rotation in the same clock instant as the creation must still put the new secret first, since
 * `X-Sharepay-Signature` is computed with the first one only.
 */
export async function signingSecrets(
  services: Pick<Services, 'db' | 'webhookSecretBox'>,
  applicationId: string,
  now: Date,
): Promise<string[]> {
  const rows = await services.db
    .select({ secretCiphertext: webhookSecrets.secretCiphertext })
    .from(webhookSecrets)
    .where(and(eq(webhookSecrets.applicationId, applicationId), isCurrentOrOverlapping(now)))
    .orderBy(sql`${webhookSecrets.expiresAt} desc nulls first`, desc(webhookSecrets.createdAt))
    .limit(MAX_SIGNING_SECRETS);
  return rows.map((r) => services.webhookSecretBox.open(r.secretCiphertext));
}
