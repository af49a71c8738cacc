/**
 * API keys of the merchant API: `sk_live_`/`sk_test_` + 128 lowercase hex (64 random bytes). Stored
 * only as a SHA-256 hex digest plus a visible prefix (environment prefix + first 8 hex). One active
 * key per application, enforced by a partial unique index; rotation revokes and issues in one
 * database transaction, so the old key fails on the very next request in every instance (no cache).
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import { findKeyByValue, hashApiKey, type KeyLookupRow } from '../db/queries/api-keys.ts';
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

/**
 * What a key may do. COLLECT: checkout and charge (and the status of pay-ins); PAYOUT: transfers
 * and batches (and the status of pay-outs); REFUND: refunds; READ: balance, transactions, events,
 * statuses and the webhook settings. Changing the webhook URL or sending a test event needs a key
 * holding all four.
 */
export const API_KEY_SCOPES = ['COLLECT', 'PAYOUT', 'REFUND', 'READ'] as const;

/** One of `API_KEY_SCOPES`. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** At most this many CIDR blocks in one key's allow-list. */
export const ALLOWED_IPS_MAX = 50;

/**
 * Parses one allow-list entry: an IPv4 or IPv6 address (a single host) or a CIDR block
 * (`203.0.113.0/24`, `2001:db8::/32`). Returns the normalised `address/bits` text, or null when
 * the entry is neither.
 */
export function normaliseCidr(entry: string): string | null {
  const text = entry.trim();
  try {
    const [address, bits] = text.includes('/') ? ipaddr.parseCIDR(text) : [ipaddr.parse(text), -1];
    const prefix = bits === -1 ? (address.kind() === 'ipv4' ? 32 : 128) : bits;
    return `${address.toString()}/${prefix}`;
  } catch {
    return null;
  }
}

/**
 * Whether `clientIp` (Fastify's `request.ip`: the peer, or the X-Forwarded-For hop chosen by
 * TRUST_PROXY) is inside one of `allowedIps`. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`)
 * is compared as its IPv4 address. null allows every address; an unreadable address matches none.
 */
export function ipAllowed(allowedIps: readonly string[] | null, clientIp: string | undefined): boolean {
  if (allowedIps === null) return true;
  if (!clientIp || !ipaddr.isValid(clientIp)) return false;
  const address = ipaddr.process(clientIp);
  return allowedIps.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === address.kind() && address.match(network, bits);
  });
}

/**
 * The access check of a merchant-API route, after the API-key hook authenticated the key: throws
 * 403 API_KEY_IP_DENIED when the client address is outside the key's allow-list, then 403
 * API_KEY_SCOPE_DENIED when the key holds none of `anyOf` (every scope when `anyOf` is 'ALL').
 * Called before the use case, so a refused request writes and sends nothing.
 */
export function authorizeApiKey(auth: ApiKeyAuth, anyOf: readonly ApiKeyScope[] | 'ALL', clientIp: string | undefined): void {
  if (!ipAllowed(auth.allowedIps, clientIp)) throw new ApiError('API_KEY_IP_DENIED');
  const held = anyOf === 'ALL' ? API_KEY_SCOPES.every((s) => auth.scopes.includes(s)) : anyOf.some((s) => auth.scopes.includes(s));
  if (!held) throw new ApiError('API_KEY_SCOPE_DENIED');
}

/** What a key may do and from where: given when it is issued, changed in place afterwards. */
export interface ApiKeyAccess {
  /** Distinct scopes, at least one; default: all four. */
  scopes?: readonly ApiKeyScope[];
  /** Normalised CIDR blocks (`normaliseCidr`); null or absent: any address. */
  allowedIps?: readonly string[] | null;
}

/** Scopes in `API_KEY_SCOPES` order, without repeats; all four when absent. */
function scopesOf(scopes: readonly ApiKeyScope[] | undefined): ApiKeyScope[] {
  return scopes === undefined ? [...API_KEY_SCOPES] : API_KEY_SCOPES.filter((s) => scopes.includes(s));
}

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
  /** What the key may do. */
  scopes: ApiKeyScope[];
  /** CIDR blocks the key is admitted from; null: any address. */
  allowedIps: string[] | null;
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
    scopes: row.scopes as ApiKeyScope[],
    allowedIps: row.allowedIps,
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
 * Issues a new active key for `applicationId`, with `scopes` (default: all four) and `allowedIps`
 * (default: any address). Throws 409 API_KEY_ALREADY_ACTIVE when the application already has one
 * (live or test). Returns the view plus the plain text, once.
 */
export async function createApiKey(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { applicationId: string; name: string; environment: Environment } & ApiKeyAccess,
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
        scopes: scopesOf(input.scopes),
        allowedIps: input.allowedIps ? [...input.allowedIps] : null,
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
 * transaction. The old key is rejected from the very next request: lookups never cache. The new
 * key keeps the old one's scopes and allow-list unless `input` gives them.
 */
export async function rotateApiKey(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { applicationId: string; name: string; environment: Environment } & ApiKeyAccess,
): Promise<ApiKeyView & { plainTextKey: string }> {
  return transaction(services.db, async (tx) => {
    const [previous] = await tx
      .select({ scopes: apiKeys.scopes, allowedIps: apiKeys.allowedIps })
      .from(apiKeys)
      .where(and(eq(apiKeys.applicationId, input.applicationId), eq(apiKeys.active, true)));
    await revokeActiveKey(tx, input.applicationId, services.clock.now());
    return createApiKey(
      { ...services, db: tx },
      {
        ...input,
        scopes: input.scopes ?? (previous?.scopes as ApiKeyScope[] | undefined),
        allowedIps: input.allowedIps !== undefined ? input.allowedIps : (previous?.allowedIps ?? null),
      },
    );
  });
}

/**
 * Changes the scopes and/or the allow-list of the active key of `applicationId` in place (the key
 * itself does not change; the next request is checked against the new values). Returns the
 * updated view, or null when the application has no active key.
 */
export async function updateActiveKeyAccess(
  services: Pick<Services, 'db' | 'clock'>,
  applicationId: string,
  access: ApiKeyAccess,
): Promise<ApiKeyView | null> {
  const now = services.clock.now();
  const [row] = await services.db
    .update(apiKeys)
    .set({
      updatedAt: now,
      ...(access.scopes !== undefined ? { scopes: scopesOf(access.scopes) } : {}),
      ...(access.allowedIps !== undefined ? { allowedIps: access.allowedIps ? [...access.allowedIps] : null } : {}),
    })
    .where(and(eq(apiKeys.applicationId, applicationId), eq(apiKeys.active, true)))
    .returning();
  return row ? toView(row) : null;
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
  /** What the key may do (checked by each route with `authorizeApiKey`). */
  scopes: readonly ApiKeyScope[];
  /** CIDR blocks the key is admitted from; null: any address. */
  allowedIps: readonly string[] | null;
}

/**
 * Resolves a raw `X-API-KEY` value. Returns null for anything missing, malformed, unknown,
 * revoked, whose application is not ACTIVE or deleted, or whose merchant account is not ACTIVE
 * (suspended by an administrator, deleted…): the HTTP layer answers all of them with the same
 * 401, from the very next request (no cache), and a reactivation restores the key as it was.
 * Refreshes `lastUsedAt` at most once a minute, without delaying the request. Throws the
 * driver's error.
 */
export async function authenticateApiKey(services: Pick<Services, 'db' | 'clock' | 'log'>, rawKey: string | undefined): Promise<ApiKeyAuth | null> {
  if (!rawKey || !hasKeyForm(rawKey)) return null;
  const row = await findKeyByValue(services.db, rawKey);
  return row ? admit(services, row) : null;
}

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
    scopes: row.scopes as ApiKeyScope[],
    allowedIps: row.allowedIps,
  };
}
