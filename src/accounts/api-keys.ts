/**
 * API keys (spec "Authentication" 3–7, compatibility.md "API keys"): `sk_live_`/`sk_test_` +
 * 128 lowercase hex (64 random bytes). Stored only as a SHA-256 hex digest plus a visible
 * prefix (environment prefix + first 8 hex). One active key per application, enforced by a
 * partial unique index; rotation revokes and issues in one database transaction, so the old
 * key fails on the very next request in every instance (no cache).
 */
import { hash, randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import { mapArrayPick, perDatabase, selectList } from '../db/batch.ts';
import { runStatement, statement } from '../db/statement.ts';
import { inTenantScope } from '../db/queries/transactions.ts';
import type { Db } from '../db/client.ts';
import { apiKeys, transactions } from '../db/schema.ts';
import { STATUS_VIEW_PROPERTIES, type StatusViewRow } from '../db/queries/status-view.ts';
import { ApiError } from '../domain/errors.ts';
import type { Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';

/** A key's length: `sk_live_` or `sk_test_` and 128 hexadecimal digits (`generateApiKey`). */
const KEY_LENGTH = 136;

/**
 * Whether `raw` has a key's length and prefix: all that is checked before its digest is looked up.
 * A string of that form that is not a key matches no digest and gets the same 401; a regular
 * expression over the 128 digits cost about 1.5 % of a status read's CPU (issue 14).
 */
function hasKeyForm(raw: string): boolean {
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
export function hashApiKey(plainTextKey: string): string {
  return hash('sha256', plainTextKey, 'hex');
}

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
 * Rotation (spec 4.6): revokes the active key, if any, and issues a new one in one database
 * transaction. The old key is rejected from the very next request: lookups never cache.
 */
export async function rotateApiKey(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { applicationId: string; name: string; environment: Environment },
): Promise<ApiKeyView & { plainTextKey: string }> {
  return services.db.transaction(async (tx) => {
    await revokeActiveKey(tx as unknown as Db, input.applicationId, services.clock.now());
    return createApiKey({ ...services, db: tx as unknown as Db }, input);
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
  // `then`, not async/await: one promise fewer per request on the hottest path (issue 14).
  return keysOf(services.db)
    .load(rawKey)
    .then((row) => (row ? admit(services, row) : null));
}

/**
 * `authenticateApiKey` and the status read of spec 4.3 / 4.5 in ONE statement (issue 14: a
 * status read is what integrations poll every few seconds): the key, its application and
 * merchant, and the transaction `reference` of `direction` owned by the key's application in the
 * key's environment (left-joined: null when there is none, so a bad key is still told apart from
 * an unknown reference). Same rules and same null as `authenticateApiKey` for the key.
 */
export function authenticateApiKeyWithTransaction(
  services: Pick<Services, 'db' | 'clock' | 'log'>,
  rawKey: string | undefined,
  lookup: { reference: string; direction: 'PAY_IN' | 'PAY_OUT' },
): Promise<{ auth: ApiKeyAuth; transaction: StatusViewRow | null } | null> {
  if (!rawKey || !hasKeyForm(rawKey)) return Promise.resolve(null);
  return statusReadsOf(services.db)
    .load({ rawKey, reference: lookup.reference, direction: lookup.direction })
    .then((found) => {
      const auth = found ? admit(services, found.key) : null;
      return auth ? { auth, transaction: found!.transaction } : null;
    });
}

/** What a key lookup reads: the key, its application and its merchant. */
interface KeyLookupRow {
  keyId: string;
  applicationId: string;
  environment: string;
  /** Epoch milliseconds of the last recorded use (null: never). */
  lastUsedMs: number | null;
  merchantId: string;
  currency: string;
  applicationName: string;
  applicationStatus: string;
  deleted: boolean;
  merchantStatus: string;
}

// Only what the verdict needs, and no timestamp to parse: the last use as epoch milliseconds (a
// float8, a JSON number), the deletion as a boolean; as ONE JSON array in `keyRowOf`'s order.
const KEY_ARRAY = `json_build_array(k.id, k.application_id, k.environment, (extract(epoch from k.last_used_at) * 1000)::float8,
  a.merchant_id, a.currency, a.name, a.status, a.deleted_at is not null, m.status)`;
const KEY_JOIN = `join api_keys k on k.key_hash = q.key_hash and k.active
  join applications a on a.id = k.application_id
  join accounts m on m.id = a.merchant_id`;

// Every distinct key asked in one event-loop turn, in one statement (a hash matches at most one
// active key), answered as ONE row: a JSON array of [position asked, key array] for the keys found
// (null when none is), which the driver parses at once (issue 14: `pg`'s work per row returned,
// not the statement, was most of the lookup's CPU).
const keysByHash = statement(
  'auth_api_keys_batch_v4',
  `select json_agg(json_build_array(q.i, ${KEY_ARRAY})) as found
     from unnest($1::text[]) with ordinality as q(key_hash, i) ${KEY_JOIN}`,
  { genericPlan: true },
);

// Every status read of one turn, in ONE row of two JSON arrays: `keys`, [position in $1, key
// array] for each distinct key found ($1: the turn's distinct key hashes, most often one: a
// merchant's back end polls with its one key); `found`, [position of the read, transaction array
// or null when there is no such transaction] for each read ($2: the position of its key in $1,
// $3/$4: reference and direction) whose key was found. A key is looked up, checked and encoded
// once per turn, however many reads it makes (issue 14: PostgreSQL spent about 10 µs a read, the
// key's three index lookups and its JSON among it), and only the columns that the status views
// show are read (the whole row cost more to decode, its timestamps above all, than the statement
// cost to run).
const statusReads = statement(
  'auth_api_keys_status_batch_v5',
  `with kf as (
     select q.n, k.application_id, k.environment, ${KEY_ARRAY} as key
       from unnest($1::text[]) with ordinality as q(key_hash, n)
       ${KEY_JOIN})
   select (select json_agg(json_build_array(kf.n, kf.key)) from kf) as keys,
          (select json_agg(json_build_array(r.i,
                  case when t.id is null then null else json_build_array(${selectList(transactions, STATUS_VIEW_PROPERTIES, 't')}) end))
             from unnest($2::int4[], $3::text[], $4::text[]) with ordinality as r(n, reference, direction, i)
             join kf on kf.n = r.n
             left join transactions t on ${inTenantScope('t', { applicationId: 'kf.application_id', environment: 'kf.environment', direction: 'r.direction', reference: 'r.reference' })}) as found`,
  { genericPlan: true },
);

/** The key lookup of `KEY_ARRAY` (as JSON.parse gave it). */
function keyRowOf(key: unknown): KeyLookupRow {
  const [keyId, applicationId, environment, lastUsedMs, merchantId, currency, applicationName, applicationStatus, deleted, merchantStatus] = key as [
    string,
    string,
    string,
    number | null,
    string,
    string,
    string,
    string,
    boolean,
    string,
  ];
  return { keyId, applicationId, environment, lastUsedMs, merchantId, currency, applicationName, applicationStatus, deleted: deleted === true, merchantStatus };
}

/** One status read asked of `statusReadsOf`: the raw key (hashed by the batch), the reference and the direction. */
type StatusLookup = { rawKey: string; reference: string; direction: 'PAY_IN' | 'PAY_OUT' };

/**
 * A JSON array of a batch statement's row (`found`, `keys`), whose items start with a position
 * asked (from 1), as an array with one entry per position asked, in order: `entry(item)` for the
 * positions found, null for the others (and for a null array: none found).
 */
function byPosition<T>(asked: number, items: unknown, entry: (item: unknown[]) => T): (T | null)[] {
  const answers = new Array<T | null>(asked).fill(null);
  if (Array.isArray(items)) for (const item of items as unknown[][]) answers[(item[0] as number) - 1] = entry(item);
  return answers;
}

/**
 * The distinct values of `values` in first-seen order, and for each value its position (from 1)
 * among them: what the batch statements are sent so that each key is looked up once per turn.
 */
function distinctPositions(values: readonly string[]): { distinct: string[]; positions: number[] } {
  const index = new Map<string, number>();
  const distinct: string[] = [];
  const positions = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    let position = index.get(value);
    if (position === undefined) {
      distinct.push(value);
      index.set(value, (position = distinct.length));
    }
    positions[i] = position;
  }
  return { distinct, positions };
}

/**
 * Every key asked in one turn (raw), with its application and merchant (null: no such active key).
 * Each distinct key is hashed once per turn, here, not once per request: a merchant's back end
 * polls with its one key, and the SHA-256 and its call cost about 1.5 % of a status read (issue
 * 14). The raw keys live no longer than the requests that carry them.
 */
const keysOf = perDatabase<string, KeyLookupRow | null>(async (db, rawKeys) => {
  const { distinct, positions } = distinctPositions(rawKeys);
  const { rows } = await runStatement<Record<string, unknown>>(db, keysByHash, [distinct.map(hashApiKey)]);
  const keys = byPosition(distinct.length, rows[0]?.found, (item) => keyRowOf(item[1]));
  return positions.map((position) => keys[position - 1]!);
});

/**
 * Every status read of one turn: the key and the transaction (null: none of that reference). Each
 * distinct key hashed once per turn, as in `keysOf`.
 */
const statusReadsOf = perDatabase<StatusLookup, { key: KeyLookupRow; transaction: StatusViewRow | null } | null>(
  async (db, asked) => {
    const { distinct, positions } = distinctPositions(asked.map((l) => l.rawKey));
    const { rows } = await runStatement<Record<string, unknown>>(db, statusReads, [
      distinct.map(hashApiKey),
      positions,
      asked.map((l) => l.reference),
      asked.map((l) => l.direction),
    ]);
    const keys = byPosition(distinct.length, rows[0]?.keys, (item) => keyRowOf(item[1]));
    return byPosition(asked.length, rows[0]?.found, (item) => ({
      key: keys[positions[(item[0] as number) - 1]! - 1]!,
      transaction: Array.isArray(item[1]) ? mapArrayPick(transactions, STATUS_VIEW_PROPERTIES, item[1]) : null,
    }));
  },
);

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
