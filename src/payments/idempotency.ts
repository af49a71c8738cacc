/**
 * Idempotent creation: a repeated request with the same key returns the original result and
 * does not charge again. The direct charge (`POST /api/v1/pay-in/charge`) takes the key in its
 * body (`idempotencyKey`); the `Idempotency-Key` header extends it to all three create endpoints.
 * The unique primary key (application, key) decides who creates: the first request inserts the key
 * row and the transaction in one database transaction; every other request with that key —
 * sequential or concurrent — waits on the index, then reads the stored response and returns it
 * unchanged (same reference, same `data`). A key reused with a different request is refused with
 * 409 IDEMPOTENCY_KEY_REUSED. Keys are kept `idempotencyTtlHours` (≥ 24 h); an expired key may be
 * used again.
 */
import { createHash } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { claimIdempotencyKey } from '../db/queries/transactions.ts';
import { type Db, transaction } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { countCreated } from '../metrics/transaction-metrics.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Scope of an idempotent request. `requestHash` identifies the request's meaning. */
export interface IdempotencyScope {
  applicationId: string;
  key: string;
  endpoint: string;
  requestHash: string;
}

/** SHA-256 over the endpoint and the request with keys sorted (so field order is irrelevant). */
export function hashRequest(endpoint: string, request: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(request)
      .sort()
      .filter((k) => request[k] !== undefined)
      .map((k) => [k, request[k]]),
  );
  return createHash('sha256').update(endpoint).update('\n').update(canonical).digest('hex');
}

/** The scope of a create with `key` (null without a key): the application, the endpoint and the request's hash. */
export function idempotencyScope(
  applicationId: string,
  key: string | undefined,
  endpoint: string,
  request: Record<string, unknown>,
): IdempotencyScope | null {
  return key ? { applicationId, key, endpoint, requestHash: hashRequest(endpoint, request) } : null;
}

/** Outcome of `createOnce`: the response data, and the new row unless this was a replay. */
export type CreateOnceResult<T> = { data: T; row: TransactionRow; replayed: false } | { data: T; row: null; replayed: true };

async function readStored<T>(db: Db, scope: IdempotencyScope, now: Date): Promise<T | null> {
  const [stored] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.applicationId, scope.applicationId),
        eq(idempotencyKeys.key, scope.key),
        gt(idempotencyKeys.expiresAt, now),
      ),
    );
  if (!stored) return null;
  if (stored.requestHash !== scope.requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
  return stored.responseBody as T;
}

/**
 * The stored response of a live key of this scope, or null when the key is new (or expired).
 * Called before a create's business checks, so a retry gets the original result even when, say,
 * the rail was deactivated since. Throws IDEMPOTENCY_KEY_REUSED for a different request.
 */
export async function findReplay<T>(services: Pick<Services, 'db' | 'clock'>, scope: IdempotencyScope | null): Promise<T | null> {
  return scope ? readStored<T>(services.db, scope, services.clock.now()) : null;
}

/** What a creation written by one statement of its own claims with an idempotency key: the scope and when the key expires. */
export interface IdempotencyClaim {
  scope: IdempotencyScope;
  expiresAt: Date;
}

/**
 * Runs `insert` (which writes the transaction inside `tx` and returns it with its response
 * data) at most once per idempotency scope, for a caller that has called `findReplay` first:
 * the key's claim, `insert` and the stored response in one database transaction.
 */
export async function createOnce<T>(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'metrics'>,
  scope: IdempotencyScope | null,
  insert: (tx: Db) => Promise<{ row: TransactionRow; data: T }>,
): Promise<CreateOnceResult<T>> {
  return counted(services, await insertOnce(services, scope, insert));
}

/**
 * `createOnce` for a creation that writes everything, the key's claim included, in one statement
 * of its own, outside any database transaction (`alone`): given the key's claim (null without a
 * key), it returns the row and data, or null when a live request held the key (then the stored
 * response is replayed). A creation `alone` refused (an ApiError: say, the balance a concurrent
 * retry of the same request has just spent) replays that request's stored response when its key
 * has been stored meanwhile.
 */
export async function createOnceAlone<T>(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'metrics'>,
  scope: IdempotencyScope | null,
  alone: (key: IdempotencyClaim | null) => Promise<{ row: TransactionRow; data: T } | null>,
): Promise<CreateOnceResult<T>> {
  return counted(services, await createAlone(services, scope, alone));
}

function counted<T>(services: Pick<Services, 'metrics'>, result: CreateOnceResult<T>): CreateOnceResult<T> {
  if (!result.replayed) countCreated(services.metrics, result.row);
  return result;
}

async function createAlone<T>(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  scope: IdempotencyScope | null,
  alone: (key: IdempotencyClaim | null) => Promise<{ row: TransactionRow; data: T } | null>,
): Promise<CreateOnceResult<T>> {
  const key = scope && { scope, expiresAt: expiryOf(services) };
  let created: { row: TransactionRow; data: T } | null;
  try {
    created = await alone(key);
  } catch (error) {
    if (!scope || !(error instanceof ApiError)) throw error;
    return replayStored(services, scope, error);
  }
  if (created) return { ...created, replayed: false };
  if (!scope) throw new Error('a creation without an idempotency key cannot find its key held');
  return replayStored(services, scope, new ApiError('INTERNAL_SERVER_ERROR'));
}

/** When a key claimed now expires: `idempotencyTtlHours` from now. */
function expiryOf(services: Pick<Services, 'clock' | 'config'>): Date {
  return new Date(services.clock.now().getTime() + services.config.idempotencyTtlHours * 3_600_000);
}

/**
 * The stored response of `scope`'s key, which another request holds or held (its transaction has
 * committed by now); throws `missing` when no live key is stored.
 */
async function replayStored<T>(services: Pick<Services, 'db' | 'clock'>, scope: IdempotencyScope, missing: Error): Promise<CreateOnceResult<T>> {
  const stored = await readStored<T>(services.db, scope, services.clock.now());
  if (stored === null) throw missing;
  return { data: stored, row: null, replayed: true };
}

async function insertOnce<T>(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  scope: IdempotencyScope | null,
  insert: (tx: Db) => Promise<{ row: TransactionRow; data: T }>,
): Promise<CreateOnceResult<T>> {
  const { db, clock } = services;
  if (!scope) {
    const created = await transaction(db, insert);
    return { ...created, replayed: false };
  }
  // The caller has looked for a replay already (`findReplay`, before its business checks): a key
  // stored since then is refused by the claim below and read after it.
  const now = clock.now();
  const expiresAt = expiryOf(services);
  // A one-statement creation with the same key (createOnceAlone) locks the balance `insert` may
  // lock, then waits for this claim: it waited first, so it is the one PostgreSQL ends to break
  // that deadlock, and it runs again.
  const created = await transaction(db, async (tx) => {
    // The one takeover rule (db/queries/transactions.ts): a live key refuses, an expired one is taken over.
    const claimed = await claimIdempotencyKey(tx, { ...scope, transactionId: null, responseBody: {}, createdAt: now, expiresAt });
    if (!claimed) return null;
    const result = await insert(tx);
    await tx
      .update(idempotencyKeys)
      .set({ transactionId: result.row.id, responseBody: result.data as object })
      .where(and(eq(idempotencyKeys.applicationId, scope.applicationId), eq(idempotencyKeys.key, scope.key)));
    return result;
  });
  if (created) return { ...created, replayed: false };
  return replayStored(services, scope, new ApiError('INTERNAL_SERVER_ERROR'));
}
