/**
 * The API-key lookups that run on every merchant-API request, behind typed functions: a key
 * (by the SHA-256 of its raw value) with its application and merchant, and the status read of a
 * transaction scoped by that key. Every lookup asked in one event-loop turn is answered by ONE
 * statement (batch.ts), the key lookups and the status reads together: a status-read route's
 * authentication (its hook) and its read (its use case) are asked in the same turn and cost one
 * round trip. Nothing is cached between turns: a revoked key is refused on the next request.
 */
import { hash } from 'node:crypto';
import { perDatabase, selectList } from '../batch.ts';
import type { Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';
import { STATUS_VIEW_PROPERTIES, statusViewRowOf, type StatusViewRow } from './status-view.ts';
import { inTenantScope } from './transactions.ts';

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
}

/** The status read asked with a key: the transaction `reference` of `direction`. */
export interface StatusLookup {
  reference: string;
  direction: 'PAY_IN' | 'PAY_OUT';
}

// Only what the verdict needs, and no timestamp to parse: the last use as epoch milliseconds (a
// float8, a JSON number), the deletion as a boolean; as ONE JSON array in `keyRowOf`'s order.
const KEY_ARRAY = `json_build_array(k.id, k.application_id, k.environment, (extract(epoch from k.last_used_at) * 1000)::float8,
  a.merchant_id, a.currency, a.name, a.status, a.deleted_at is not null, m.status)`;
const KEY_JOIN = `join api_keys k on k.key_hash = q.key_hash and k.active
  join applications a on a.id = k.application_id
  join accounts m on m.id = a.merchant_id`;

// A turn's keys alone, in one statement (a hash matches at most one active key), answered as ONE
// row: a JSON array of [position asked, key array] for the keys found (null when none is), which
// the driver parses in one go.
const keysByHash = statement(
  'auth_api_keys_batch_v4',
  `select json_agg(json_build_array(q.i, ${KEY_ARRAY})) as found
     from unnest($1::text[]) with ordinality as q(key_hash, i) ${KEY_JOIN}`,
  { genericPlan: true },
);

// A turn's keys and status reads, in ONE row of two JSON arrays: `keys`, [position in $1, key
// array] for each distinct key found ($1: the turn's distinct key hashes, most often one: a
// merchant's back end polls with its one key); `found`, [position of the read, transaction array
// or null when there is no such transaction] for each read ($2: the position of its key in $1,
// $3/$4: reference and direction) whose key was found. A key is looked up, checked and encoded
// once per turn, however many reads it makes, and only the columns that the status views show
// are read (the whole row cost more to decode, its timestamps above all, than the statement cost
// to run). The transaction is found under the tenant rule of every read by reference.
const keysAndStatusReads = statement(
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
 * A key lookup started in this turn (`lookUpKey`): the raw key, and its answer to come. A status
 * read asked with it before its statement is sent joins it (`readStatusWithKey`): the lookup's
 * one statement, the one answer, carries the read's transaction too.
 */
export interface KeyLookup {
  /** What the batcher was asked: a status read joins it by setting its `read` before it is `sent`. */
  readonly asked: AskedLookup;
  /** Null when no active key has that value; else the key, and the joined read's transaction (null: none, or no read joined). */
  readonly answer: Promise<KeyLookupAnswer>;
}

/** A lookup's answer: null when no active key has that value; else the key, and the read's transaction (null: none). */
export type KeyLookupAnswer = { key: KeyLookupRow; transaction: StatusViewRow | null } | null;

/** A lookup as the batcher is asked it: `read` may be joined until `sent` (its batch's statement is being built). */
export interface AskedLookup {
  rawKey: string;
  read: StatusLookup | null;
  sent: boolean;
}

/**
 * Every lookup of one turn, in one statement: `keysByHash` when none reads a transaction, else
 * `keysAndStatusReads`. Each distinct key is hashed once per turn, here, not once per request: a
 * merchant's back end polls with its one key. The raw keys live no longer than the requests that
 * carry them.
 */
const lookupsOf = perDatabase<AskedLookup, KeyLookupAnswer>(async (db, asked) => {
  for (const lookup of asked) lookup.sent = true;
  const { distinct, positions } = distinctPositions(asked.map((l) => l.rawKey));
  const hashes = distinct.map(hashApiKey);
  const reads: number[] = [];
  for (let i = 0; i < asked.length; i++) if (asked[i]!.read) reads.push(i);
  if (reads.length === 0) {
    const { rows } = await runStatement<Record<string, unknown>>(db, keysByHash, [hashes]);
    const keys = byPosition(distinct.length, rows[0]?.found, (item) => keyRowOf(item[1]));
    return positions.map((position) => {
      const key = keys[position - 1]!;
      return key ? { key, transaction: null } : null;
    });
  }
  const { rows } = await runStatement<Record<string, unknown>>(db, keysAndStatusReads, [
    hashes,
    reads.map((i) => positions[i]),
    reads.map((i) => asked[i]!.read!.reference),
    reads.map((i) => asked[i]!.read!.direction),
  ]);
  const keys = byPosition(distinct.length, rows[0]?.keys, (item) => keyRowOf(item[1]));
  const transactionsRead = byPosition(reads.length, rows[0]?.found, (item) =>
    Array.isArray(item[1]) ? statusViewRowOf(item[1]) : null,
  );
  const answers: KeyLookupAnswer[] = positions.map((position) => {
    const key = keys[position - 1]!;
    return key ? { key, transaction: null } : null;
  });
  reads.forEach((i, n) => {
    if (answers[i]) answers[i] = { key: answers[i]!.key, transaction: transactionsRead[n]! };
  });
  return answers;
});

/**
 * Starts looking up the active key whose raw value is `rawKey`, with its application and
 * merchant, and returns at once: a status read asked in the same event-loop turn joins its
 * statement (`readStatusWithKey`). The answer rejects with the driver's error.
 */
export function lookUpKey(db: Db, rawKey: string): KeyLookup {
  const asked: AskedLookup = { rawKey, read: null, sent: false };
  return { asked, answer: lookupsOf(db).load(asked) };
}

/**
 * The active key whose raw value is `rawKey`, with its application and merchant, or null. Throws
 * the driver's error.
 */
export function findKeyByValue(db: Db, rawKey: string): Promise<KeyLookupRow | null> {
  return lookupsOf(db)
    .load({ rawKey, read: null, sent: false })
    .then((found) => found?.key ?? null);
}

/**
 * The key of `lookup` (null: no active key has that value) and, when it is found, the status
 * view of the transaction `read.reference` of `read.direction` owned by its application in its
 * environment (null: no such transaction): the key's verdict is the caller's. Joins `lookup`'s
 * statement while it has not been sent (the same turn), and then answers with the lookup's own
 * answer; else asks a statement of its own (the key looked up again). Throws the driver's error.
 */
export function readStatusWithKey(db: Db, lookup: KeyLookup, read: StatusLookup): Promise<KeyLookupAnswer> {
  const { asked } = lookup;
  if (!asked.sent && asked.read === null) {
    asked.read = read;
    return lookup.answer;
  }
  return lookupsOf(db).load({ rawKey: asked.rawKey, read, sent: false });
}
