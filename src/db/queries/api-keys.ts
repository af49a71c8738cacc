/**
 * The API-key lookup that runs on every merchant-API request, behind a typed function: a key (by
 * the SHA-256 of its raw value) with its application and merchant. Every lookup asked in one
 * event-loop turn is answered by ONE statement (batch.ts). Nothing is cached between turns: a
 * revoked key is refused on the next request.
 */
import { hash } from 'node:crypto';
import { perDatabase } from '../batch.ts';
import type { Db } from '../client.ts';
import { runStatement, statement } from '../statement.ts';

/** The SHA-256 hex digest of a raw key: what `api_keys.key_hash` stores. */
export function hashApiKey(plainTextKey: string): string {
  return hash('sha256', plainTextKey, 'hex');
}

/** What a key lookup reads: the key, its application and its merchant. */
export interface KeyLookupRow {
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
  /** The key's scopes. */
  scopes: string[];
  /** The key's allow-list (CIDR blocks), null: any address. */
  allowedIps: string[] | null;
}

// What the verdict needs: the last use as epoch milliseconds (a float8, a JSON number), the
// deletion as a boolean; as ONE JSON array in `keyRowOf`'s order.
const KEY_ARRAY = `json_build_array(k.id, k.application_id, k.environment, (extract(epoch from k.last_used_at) * 1000)::float8,
  a.merchant_id, a.currency, a.name, a.status, a.deleted_at is not null, m.status, k.scopes, k.allowed_ips)`;
const KEY_JOIN = `join api_keys k on k.key_hash = q.key_hash and k.active
  join applications a on a.id = k.application_id
  join accounts m on m.id = a.merchant_id`;

// A turn's keys in one statement (a hash matches at most one active key), answered as ONE row: a
// JSON array of [position asked, key array] for the keys found (null when none is).
const keysByHash = statement(
  'auth_api_keys_batch_v5',
  `select json_agg(json_build_array(q.i, ${KEY_ARRAY})) as found
     from unnest($1::text[]) with ordinality as q(key_hash, i) ${KEY_JOIN}`,
  { genericPlan: true },
);

/** The key lookup of `KEY_ARRAY` (as JSON.parse gave it). */
function keyRowOf(key: unknown): KeyLookupRow {
  const [keyId, applicationId, environment, lastUsedMs, merchantId, currency, applicationName, applicationStatus, deleted, merchantStatus, scopes, allowedIps] = key as [
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
    string[],
    string[] | null,
  ];
  return { keyId, applicationId, environment, lastUsedMs, merchantId, currency, applicationName, applicationStatus, deleted: deleted === true, merchantStatus, scopes, allowedIps };
}

/**
 * A JSON array of a batch statement's row (`found`), whose items start with a position asked
 * (from 1), as an array with one entry per position asked, in order: `entry(item)` for the
 * positions found, null for the others (and for a null array: none found).
 */
function byPosition<T>(asked: number, items: unknown, entry: (item: unknown[]) => T): (T | null)[] {
  const answers = new Array<T | null>(asked).fill(null);
  if (Array.isArray(items)) for (const item of items as unknown[][]) answers[(item[0] as number) - 1] = entry(item);
  return answers;
}

/**
 * The distinct values of `values` in first-seen order, and for each value its position (from 1)
 * among them: what the batch statement is sent so that each key is looked up once per turn.
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
 * Every key lookup of one turn, in one statement (`keysByHash`), each distinct key hashed once:
 * a merchant's back end polls with its one key. The raw keys live no longer than the requests
 * that carry them.
 */
const lookupsOf = perDatabase<string, KeyLookupRow | null>(async (db, rawKeys) => {
  const { distinct, positions } = distinctPositions(rawKeys);
  const { rows } = await runStatement<Record<string, unknown>>(db, keysByHash, [distinct.map(hashApiKey)]);
  const keys = byPosition(distinct.length, rows[0]?.found, (item) => keyRowOf(item[1]));
  return positions.map((position) => keys[position - 1] ?? null);
});

/**
 * The active key whose raw value is `rawKey`, with its application and merchant, or null. Throws
 * the driver's error.
 */
export function findKeyByValue(db: Db, rawKey: string): Promise<KeyLookupRow | null> {
  return lookupsOf(db).load(rawKey);
}
