/**
 * Statements over the `transactions` table that use cases read through typed functions.
 *
 * The tenant rule of a transaction read by reference lives here, once: a reference is found only
 * among its application's transactions, of the caller's key environment (TEST or LIVE) and of the
 * direction asked (PAY_IN or PAY_OUT). Every statement that finds a transaction by reference for a
 * caller joins through `inTenantScope`, so another application's reference, or one of the other
 * environment or direction, reads exactly as an unknown one.
 */
import { getTableColumns } from 'drizzle-orm';
import { mapRow, perDatabase } from '../batch.ts';
import type { Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';

/** SQL expressions (columns or parameters) naming what a caller asks for: its scope and the reference. */
export interface ScopedReferenceSql {
  applicationId: string;
  environment: string;
  direction: string;
  reference: string;
}

/**
 * The join condition that admits the row `alias` of `transactions` for the read `asked`: same
 * reference, same application, same environment, same direction. The one definition of the
 * tenant rule for reads by reference (each column is compared as it is stored: uuid, text).
 */
export function inTenantScope(alias: string, asked: ScopedReferenceSql): string {
  return `${alias}.reference = ${asked.reference} and ${alias}.application_id = ${asked.applicationId}
      and ${alias}.environment = ${asked.environment} and ${alias}.direction = ${asked.direction}`;
}

/** One read by reference: the caller's application and key environment, the direction and the reference. */
export interface ScopedReference {
  applicationId: string;
  environment: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  reference: string;
}

// Every read by reference of one event-loop turn, in one statement: the position asked and the row.
const byScopedReference = statement(
  'transactions_by_scoped_reference_v1',
  `select r.i as asked_position, t.*
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) with ordinality as r(application_id, environment, direction, reference, i)
     join transactions t on ${inTenantScope('t', { applicationId: 'r.application_id', environment: 'r.environment', direction: 'r.direction', reference: 'r.reference' })}`,
);

const scopedReads = perDatabase<ScopedReference, typeof transactions.$inferSelect | null>(async (db, asked) => {
  const { rows } = await runStatement<Record<string, unknown>>(db, byScopedReference, [
    asked.map((a) => a.applicationId),
    asked.map((a) => a.environment),
    asked.map((a) => a.direction),
    asked.map((a) => a.reference),
  ]);
  const found = new Array<typeof transactions.$inferSelect | null>(asked.length).fill(null);
  for (const row of rows) found[Number(row.asked_position) - 1] = mapRow(transactions, row);
  return found;
});

/**
 * The transaction `reference` of `direction` owned by `applicationId` in `environment` (the tenant
 * rule, `inTenantScope`), or null when there is none. Reads asked in the same event-loop turn
 * share one statement. Throws the driver's error.
 */
export function findTransactionInScope(db: Db, asked: ScopedReference): Promise<typeof transactions.$inferSelect | null> {
  return scopedReads(db).load(asked);
}

/** Column values of a new transaction; status, counters and timestamps are set by the insert. */
export type NewTransaction = Omit<typeof transactions.$inferInsert, 'status' | 'createdAt' | 'updatedAt' | 'pollAttempts'>;

type TransactionRow = typeof transactions.$inferSelect;

/** What every new transaction starts with, whatever the caller gives: PENDING, nothing refunded, not watched late. */
function newRow(values: NewTransaction, now: Date): TransactionRow {
  const row = { refundedAmount: 0, isLateSuccess: false, isReservationHeld: false, ...values, status: 'PENDING', pollAttempts: 0, createdAt: now, updatedAt: now };
  const complete = {} as Record<string, unknown>;
  for (const [property] of INSERTED) complete[property] = (row as Record<string, unknown>)[property] ?? null;
  return complete as TransactionRow;
}

/** Every column of `transactions`, as (property, SQL name, SQL type) in table order: the insert's column list. */
const INSERTED: [string, string, string][] = Object.entries(getTableColumns(transactions)).map(([property, column]) => [property, column.name, column.getSQLType()]);

/** The insert's parameters: one array per column (`INSERTED` order), one element per row, as the driver sends them. */
function insertParameters(rows: TransactionRow[]): unknown[] {
  return INSERTED.map(([property]) =>
    rows.map((row) => {
      const value = (row as Record<string, unknown>)[property];
      return value instanceof Date ? value.toISOString() : value;
    }),
  );
}

// The rows to insert, one array parameter per column ($1…$n, `INSERTED` order).
const NEW_ROWS = `select * from unnest(${INSERTED.map(([, , type], i) => `$${i + 1}::${type}[]`).join(', ')}) as v(${INSERTED.map(([, name]) => name).join(', ')})`;
const COLUMN_LIST = INSERTED.map(([, name]) => name).join(', ');
const AFTER_COLUMNS = INSERTED.length;

/** The data-modifying CTEs that insert the rows of `v` and their CREATED events; `t` holds the ids inserted. */
const INSERT_WITH_EVENTS = `t as (
     insert into transactions (${COLUMN_LIST}) select ${COLUMN_LIST} from v returning id, created_at
   ), e as (
     insert into transaction_events (transaction_id, from_status, to_status, cause, created_at)
     select id, null, 'PENDING', 'CREATED', created_at from t
   )`;

const insertMany = statement('insert_transactions_v1', `with v as (${NEW_ROWS}), ${INSERT_WITH_EVENTS} select count(*)::int as created from t`);

/**
 * Inserts `rows` as PENDING transactions, each with its CREATED event, in one statement (in `db`'s
 * transaction when it is one). Returns the rows as stored. References are unique by index: a
 * collision throws the driver's unique violation (23505) and inserts nothing.
 */
export async function insertTransactions(db: Db, rows: NewTransaction[], now: Date): Promise<TransactionRow[]> {
  const complete = rows.map((values) => newRow(values, now));
  await runStatement(db, insertMany, insertParameters(complete));
  return complete;
}

/**
 * The inserts asked in one event-loop turn outside a database transaction (charges without an
 * idempotency key), in one statement. Should it fail (a reference that collided, say), each row
 * is inserted on its own, so one bad row fails only its own request.
 */
const coalescedInserts = perDatabase<TransactionRow, void>(async (db, rows) => {
  try {
    await runStatement(db, insertMany, insertParameters([...rows]));
    return rows.map(() => undefined);
  } catch (error) {
    if (rows.length === 1) return [error instanceof Error ? error : new Error(String(error))];
    return Promise.all(
      rows.map((row) =>
        runStatement(db, insertMany, insertParameters([row])).then(
          () => undefined,
          (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure))),
        ),
      ),
    );
  }
});

/**
 * Inserts one transaction outside any database transaction, sharing one statement with the other
 * inserts of the same event-loop turn (`insertTransactions`). Returns the row as stored; throws
 * the driver's error for this row only.
 */
export async function insertTransactionCoalesced(db: Db, values: NewTransaction, now: Date): Promise<TransactionRow> {
  const row = newRow(values, now);
  await coalescedInserts(db).load(row);
  return row;
}

/** An idempotency key to claim: its scope, the response it will replay, and until when it lives. */
export interface KeyClaim {
  applicationId: string;
  key: string;
  endpoint: string;
  requestHash: string;
  /** The transaction created under the key (null: set once it is inserted). */
  transactionId: string | null;
  /** The 201 `data` a replay answers (`{}` until the creation sets it). */
  responseBody: unknown;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * The claim of an idempotency key, as an INSERT with parameters from `$first` on (`KeyClaim`
 * order: application, key, endpoint, request hash, transaction, response, created, expires),
 * returning one row when the key is ours. The one definition of the takeover rule: a new key is
 * inserted; an existing one is taken over only once it has expired (`expires_at` at or before the
 * claim's time); a live one makes the claim wait for its writer's transaction, then return nothing.
 */
function claimKeySql(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `insert into idempotency_keys (application_id, key, endpoint, request_hash, transaction_id, response_status, response_body, created_at, expires_at)
     values (${p(0)}::uuid, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::uuid, 201, ${p(5)}::jsonb, ${p(6)}::timestamptz, ${p(7)}::timestamptz)
     on conflict (application_id, key) do update
       set endpoint = excluded.endpoint, request_hash = excluded.request_hash, transaction_id = excluded.transaction_id,
           response_status = excluded.response_status, response_body = excluded.response_body,
           created_at = excluded.created_at, expires_at = excluded.expires_at
       where idempotency_keys.expires_at <= excluded.created_at
     returning 1`;
}

function claimParameters(claim: KeyClaim): unknown[] {
  return [
    claim.applicationId,
    claim.key,
    claim.endpoint,
    claim.requestHash,
    claim.transactionId,
    JSON.stringify(claim.responseBody),
    claim.createdAt.toISOString(),
    claim.expiresAt.toISOString(),
  ];
}

const claimKey = statement('claim_idempotency_key_v1', claimKeySql(1));

/**
 * Claims `claim`'s key (`claimKeySql`) in `db` (the creating database transaction). Returns true
 * when the key is now this creation's, false when a live key holds it (its writer has committed
 * by then: the caller replays the stored response).
 */
export async function claimIdempotencyKey(db: Db, claim: KeyClaim): Promise<boolean> {
  const { rows } = await runStatement(db, claimKey, claimParameters(claim));
  return rows.length > 0;
}

// The key's claim, then the row and its event only when the claim returned a row: one statement.
const insertOnce = statement(
  'insert_transaction_once_v1',
  `with claim as (${claimKeySql(AFTER_COLUMNS + 1)}),
   v as (${NEW_ROWS} where exists (select 1 from claim)), ${INSERT_WITH_EVENTS}
   select count(*)::int as created from t`,
);

/**
 * Claims `claim`'s key (same rule as `claimIdempotencyKey`) and inserts `values` as a PENDING
 * transaction with its CREATED event only when the claim succeeded, in one statement (one round
 * trip, one database transaction). Returns the row as stored, or null when a live key held the
 * claim (the caller replays the stored response). `claim.transactionId` is set to the row's id.
 */
export async function insertTransactionOnce(db: Db, values: NewTransaction, claim: Omit<KeyClaim, 'transactionId' | 'createdAt'>, now: Date): Promise<TransactionRow | null> {
  const row = newRow(values, now);
  const { rows } = await runStatement<{ created: number }>(db, insertOnce, [
    ...insertParameters([row]),
    ...claimParameters({ ...claim, transactionId: row.id, createdAt: now }),
  ]);
  return (rows[0]?.created ?? 0) > 0 ? row : null;
}
