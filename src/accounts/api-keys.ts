/**
 * API keys of the merchant API: `sk_live_`/`sk_test_` + 128 lowercase hex (64 random bytes). Stored
 * only as a SHA-256 hex digest plus a visible prefix (environment prefix + first 8 hex). One active
 * key per application, enforced by a partial unique index; rotation revokes and issues in one
 * database transaction, so the old key fails on the very next request in every instance (no cache).
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import { findKeyByValue, hashApiKey, lookUpKey, type KeyLookup, type KeyLookupAnswer, type KeyLookupRow } from '../db/queries/api-keys.ts';
import { type Db, transaction } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';

/** A key's length: `sk_live_` or `sk_test_` and 128 hexadecimal digits (`generateApiKey`). */
const KEY_LENGTH = 136;

/**
 * Whether `raw` has a key's length and prefix: all that is checked before its digest is looked up.
 * A string of that form that is not a key matches no digest and gets the same 401.
 */
export function hasKeyForm(raw: string): boolean {
  return raw.length === KEY_LENGTH && (raw.startsWith('sk_test_') || raw.startsWith('sk_live_'));
}

/** How often `lastUsedAt` is refreshed at most, per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A freshly generated key: the plain text (shown once), its digest and its visible prefix. */
export interface GeneratedKey {
  plainTextKey: string;
  keyHash: string;
  keyPrefix: string;
}

/** SHA-256 hex digest of a full key. */
export { hashApiKey };

/** Generates a key for `environment` from 64 random bytes. */
export function generateApiKey(environment: Environment): GeneratedKey {
  const body = randomBytes(64).toString('hex');
  const prefix = environment === 'LIVE' ? 'sk_live_' : 'sk_test_';
  const plainTextKey = prefix + body;
  return { plainTextKey, keyHash: hashApiKey(plainTextKey), keyPrefix: prefix + body.slice(0, 8) };
}

/** An API key row as shown to its owner (never the digest, never the full key). */
export interface ApiKeyView {
  id: string;
  applicationId: string;
  name: string;
  keyPrefix: string;
  environment: Environment;
  active: boolean;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type KeyRow = typeof apiKeys.$inferSelect;
function toView(row: KeyRow): ApiKeyView {
  return {
    id: row.id,
    applicationId: row.applicationId,
    name: row.name,
    keyPrefix: row.keyPrefix,
    environment: row.environment as Environment,
    active: row.active,
    lastUsedAt: row.lastUsedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/**
 * Issues a new active key for `applicationId`. Throws 409 API_KEY_ALREADY_ACTIVE when the
 * application already has one (live or test). Returns the view plus the plain text, once.
 */
export async function createApiKey(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { applicationId: string; name: string; environment: Environment },
): Promise<ApiKeyView & { plainTextKey: string }> {
  const { db, clock, ids } = services;
  const generated = generateApiKey(input.environment);
  const now = clock.now();
  try {
    const [row] = await db
      .insert(apiKeys)
      .values({
        id: ids.uuid(),
        applicationId: input.applicationId,
        name: input.name,
        keyPrefix: generated.keyPrefix,
        keyHash: generated.keyHash,
        environment: input.environment,
        active: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return { ...toView(row!), plainTextKey: generated.plainTextKey };
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('API_KEY_ALREADY_ACTIVE');
    throw error;
  }
}

/** Revokes the active key of `applicationId`, if any, inside `db` (a transaction or not). */
export async function revokeActiveKey(db: Db, applicationId: string, now: Date): Promise<boolean> {
  const revoked = await db
    .update(apiKeys)
    .set({ active: false, revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.applicationId, applicationId), eq(apiKeys.active, true)))
    .returning({ id: apiKeys.id });
  return revoked.length > 0;
}

/**
 * API key rotation: revokes the active key, if any, and issues a new one in one database
 * transaction. The old key is rejected from the very next request: lookups never cache.
 */
export async function rotateApiKey(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { applicationId: string; name: string; environment: Environment },
): Promise<ApiKeyView & { plainTextKey: string }> {
  return transaction(services.db, async (tx) => {
    await revokeActiveKey(tx, input.applicationId, services.clock.now());
    return createApiKey({ ...services, db: tx }, input);
  });
}

/** Keys of an application, newest first. */
export async function listApiKeys(db: Db, applicationId: string): Promise<ApiKeyView[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.applicationId, applicationId)).orderBy(desc(apiKeys.createdAt));
  return rows.map(toView);
}

/** Who an API key authenticates: its application, merchant and environment. */
export interface ApiKeyAuth {
  keyId: string;
  applicationId: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  applicationName: string;
}

/**
 * Resolves a raw `X-API-KEY` value. Returns null for anything missing, malformed, unknown,
 * revoked, whose application is not ACTIVE or deleted, or whose merchant account is not ACTIVE
 * (suspended by an administrator, deleted…): the HTTP layer answers all of them with the same
 * 401, from the very next request (no cache), and a reactivation restores the key as it was. Refreshes `lastUsedAt` at most once a minute, without delaying the request.
 */
export function authenticateApiKey(
  services: Pick<Services, 'db' | 'clock' | 'log'>,
  rawKey: string | undefined,
): Promise<ApiKeyAuth | null> {
  if (!rawKey || !hasKeyForm(rawKey)) return Promise.resolve(null);
  return findKeyByValue(services.db, rawKey).then((row) => (row ? admit(services, row) : null));
}

/**
 * A key being authenticated: its lookup, which a status read asked in the same event-loop turn
 * joins (`readStatusWithKey`: one statement), and its verdict, decided once from the first answer
 * it is given.
 */
export interface ApiKeyAuthentication {
  lookup: KeyLookup;
  /**
   * The verdict of an answer of this key's lookup (`lookup.answer`, or a read's own lookup of the
   * same key): the key admitted; throws UNAUTHORIZED where `authenticateApiKey` answers null. The
   * first answer given decides (and refreshes `lastUsedAt` at most once).
   */
  admit(answer: KeyLookupAnswer): ApiKeyAuth;
  /** The verdict of `lookup`'s own answer: rejects with UNAUTHORIZED, or with the driver's error. */
  verdict(): Promise<ApiKeyAuth>;
}

/**
 * Starts authenticating `rawKey` (a value of key form: `hasKeyForm`) and returns at once; the
 * caller must have the key admitted (`admit`, `verdict`) before acting on anything read with it.
 */
export function beginApiKeyAuthentication(services: Pick<Services, 'db' | 'clock' | 'log'>, rawKey: string): ApiKeyAuthentication {
  return new KeyAuthentication(services, lookUpKey(services.db, rawKey));
}

/** `ApiKeyAuthentication` of one request: its verdict is decided by the first answer given. */
class KeyAuthentication implements ApiKeyAuthentication {
  /** Undefined until an answer is given; then the admitted key, or null (refused). */
  #decided: ApiKeyAuth | null | undefined;

  constructor(
    private readonly services: Pick<Services, 'db' | 'clock' | 'log'>,
    readonly lookup: KeyLookup,
  ) {
    // Read by the route's use case; a request that ends before (its validation failed, its
    // client left) leaves it unread, and its driver error is then nobody's.
    lookup.answer.catch(ignoreRejection);
  }

  admit(answer: KeyLookupAnswer): ApiKeyAuth {
    if (this.#decided === undefined) this.#decided = answer ? admit(this.services, answer.key) : null;
    if (this.#decided === null) throw new ApiError('UNAUTHORIZED');
    return this.#decided;
  }

  verdict(): Promise<ApiKeyAuth> {
    return this.lookup.answer.then((answer) => this.admit(answer));
  }
}

function ignoreRejection(): void {}

/** The key row's verdict (null: refused) and the at-most-once-a-minute `lastUsedAt` refresh. */
function admit(services: Pick<Services, 'db' | 'clock' | 'log'>, row: KeyLookupRow): ApiKeyAuth | null {
  if (row.applicationStatus !== 'ACTIVE' || row.deleted || row.merchantStatus !== 'ACTIVE') return null;
  const { db, clock } = services;
  const now = clock.now();
  if (row.lastUsedMs === null || now.getTime() - row.lastUsedMs > LAST_USED_RESOLUTION_MS) {
    const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    db.update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, threshold))))
      .then(
        () => {},
        (error: unknown) => services.log.warn({ err: error, keyId: row.keyId }, 'lastUsedAt update failed'),
      );
  }
  return {
    keyId: row.keyId,
    applicationId: row.applicationId,
    merchantId: row.merchantId,
    environment: row.environment as Environment,
    currency: row.currency,
    applicationName: row.applicationName,
  };
}
