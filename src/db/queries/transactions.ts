/**
 * Statements over the `transactions` table that use cases read through typed functions.
 *
 * The tenant rule of a transaction read by reference lives here, once: a reference is found only
 * among its application's transactions, of the caller's key environment (TEST or LIVE) and of the
 * direction asked (PAY_IN or PAY_OUT). Every statement that finds a transaction by reference for a
 * caller joins through `inTenantScope`, so another application's reference, or one of the other
 * environment or direction, reads exactly as an unknown one; every list for a caller filters
 * through `inCallerScope`, the same rule without the reference.
 */
import { createHash } from 'node:crypto';
import { getTableColumns } from 'drizzle-orm';
import { mapPrefixedRow, mapRow, perDatabase, prefixedSelectList } from '../batch.ts';
import type { Db } from '../client.ts';
import { providers, transactions } from '../schema.ts';
import { feeTermsSelect, storedFeeTermsFrom, type RailRow, type StoredFeeTerms } from './rails.ts';
import { runStatement, statement, type Statement } from '../statement.ts';
import {
  CHECKED_POSTING_PARAMETERS,
  checkedPostingResultSql,
  checkedPostingSql,
  postingWritesSql,
  postingWritesValues,
  type BalanceDelta,
  runCheckedPosting,
  type CheckedPostingOutcome,
  type NewEntry,
  type NewLine,
} from './ledger.ts';
import { outboxWritesSql, outboxWritesValues, type NewEventWithDelivery } from './webhooks.ts';

/** SQL expressions (columns or parameters) naming what a caller asks for: its scope and the reference. */
export interface ScopedReferenceSql {
  applicationId: string;
  environment: string;
  direction: string;
  reference: string;
}

/**
 * The condition that admits the row `alias` of `transactions` for a caller: same application,
 * same environment (its key's). The one definition of the tenant rule, for reads by reference
 * (`inTenantScope`) and for lists (each column is compared as it is stored: uuid, text).
 */
export function inCallerScope(alias: string, caller: Pick<ScopedReferenceSql, 'applicationId' | 'environment'>): string {
  return `${alias}.application_id = ${caller.applicationId} and ${alias}.environment = ${caller.environment}`;
}

/**
 * The join condition that admits the row `alias` of `transactions` for the read `asked`: same
 * reference, the caller's scope (`inCallerScope`), same direction. The one definition of the
 * tenant rule for reads by reference.
 */
export function inTenantScope(alias: string, asked: ScopedReferenceSql): string {
  return `${alias}.reference = ${asked.reference} and ${inCallerScope(alias, asked)} and ${alias}.direction = ${asked.direction}`;
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
  for (const property of COLUMNS.keys()) complete[property] = (row as Record<string, unknown>)[property] ?? null;
  return complete as TransactionRow;
}

/** Every column of `transactions` by property, in table order: its SQL name and type. */
const COLUMNS = new Map(Object.entries(getTableColumns(transactions)).map(([property, column]) => [property, { name: column.name, type: column.getSQLType() }]));

/** What the insert always writes, whatever the caller gives. */
const ALWAYS_WRITTEN = ['status', 'pollAttempts', 'createdAt', 'updatedAt'];

/**
 * The properties an insert of `values` writes, in table order: those given (not undefined) by any
 * of them and those it always sets. The others take their column's default (null, 0, false: what
 * `newRow` answers for them).
 */
function writtenProperties(values: readonly NewTransaction[]): string[] {
  const written = new Set(ALWAYS_WRITTEN);
  for (const v of values) for (const [property, value] of Object.entries(v)) if (value !== undefined) written.add(property);
  return [...COLUMNS.keys()].filter((property) => written.has(property));
}

/** The two statements that insert rows writing one set of properties (`insertShape`). */
interface InsertShape {
  properties: string[];
  /** Any number of rows with their CREATED events; answers `created`, the count. */
  many: Statement;
  /** One row after its key's claim (`claimKeySql`, parameters after the columns'); answers `created`, 0 or 1. */
  once: Statement;
  /** One row with a checked posting (`checkedPostingSql`, parameters after the columns'): both or neither; answers the posting's outcome. */
  funded: Statement;
  /** `funded` after its key's claim, made once the checks passed (the claim's parameters after the posting's): all or nothing. */
  fundedOnce: Statement;
}

const shapes = new Map<string, InsertShape>();

/**
 * The insert statements for rows writing `properties` (made once per set: a charge writes about
 * 25 columns, a pay-out others), one array parameter per column in `properties` order, rows
 * unnested: the same SQL for one row and for many. Named after a digest of the column list.
 */
function insertShape(properties: string[]): InsertShape {
  const key = properties.join(',');
  let shape = shapes.get(key);
  if (shape) return shape;
  const columns = properties.map((property) => COLUMNS.get(property)!);
  const names = columns.map((c) => c.name).join(', ');
  const newRows = `select * from unnest(${columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')}) as v(${names})`;
  const insertWithEvents = `t as (
     insert into transactions (${names}) select ${names} from v returning id, created_at
   ), e as (
     insert into transaction_events (transaction_id, from_status, to_status, cause, created_at)
     select id, null, 'PENDING', 'CREATED', created_at from t
   )`;
  const id = createHash('sha256').update(key).digest('hex').slice(0, 12);
  shape = {
    properties,
    many: statement(`insert_transactions_${id}`, `with v as (${newRows}), ${insertWithEvents} select count(*)::int as created from t`),
    once: statement(
      `insert_transaction_once_${id}`,
      `with claim as (${claimKeySql(columns.length + 1)}),
   v as (${newRows} where exists (select 1 from claim)), ${insertWithEvents}
   select count(*)::int as created from t`,
    ),
    funded: statement(
      `insert_funded_transaction_${id}`,
      `with ${checkedPostingSql(columns.length + 1)},
   v as (${newRows} where (select ok from ok)), ${insertWithEvents}
   ${checkedPostingResultSql()}`,
    ),
    fundedOnce: statement(
      `insert_funded_transaction_once_${id}`,
      `with ${checkedPostingSql(columns.length + 1, (when) => claimKeySql(columns.length + 1 + CHECKED_POSTING_PARAMETERS, when))},
   v as (${newRows} where (select ok from ok)), ${insertWithEvents}
   ${checkedPostingResultSql(true)}`,
    ),
  };
  shapes.set(key, shape);
  return shape;
}

/** The insert's parameters: one array per property of `properties`, one element per row, as the driver sends them. */
function insertParameters(properties: string[], rows: readonly TransactionRow[]): unknown[] {
  return properties.map((property) =>
    rows.map((row) => {
      const value = (row as Record<string, unknown>)[property];
      return value instanceof Date ? value.toISOString() : value;
    }),
  );
}

/**
 * Inserts `rows` as PENDING transactions, each with its CREATED event, in one statement (in `db`'s
 * transaction when it is one). Returns the rows as stored. References are unique by index: a
 * collision throws the driver's unique violation (23505) and inserts nothing.
 */
export async function insertTransactions(db: Db, rows: NewTransaction[], now: Date): Promise<TransactionRow[]> {
  const complete = rows.map((values) => newRow(values, now));
  const { properties, many } = insertShape(writtenProperties(rows));
  await runStatement(db, many, insertParameters(properties, complete));
  return complete;
}

/** One insert asked of `coalescedInserts`: the values given and the row they make. */
type CoalescedInsert = { values: NewTransaction; row: TransactionRow };

/** Inserts `asked` in one statement (the columns any of them writes). */
async function insertAll(db: Db, asked: readonly CoalescedInsert[]): Promise<void> {
  const { properties, many } = insertShape(writtenProperties(asked.map((a) => a.values)));
  await runStatement(db, many, insertParameters(properties, asked.map((a) => a.row)));
}

/**
 * The inserts asked in one event-loop turn outside a database transaction (charges without an
 * idempotency key), in one statement. Should it fail (a reference that collided, say), each row
 * is inserted on its own, so one bad row fails only its own request.
 */
const coalescedInserts = perDatabase<CoalescedInsert, void>(async (db, asked) => {
  const asError = (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure)));
  try {
    await insertAll(db, asked);
    return asked.map(() => undefined);
  } catch (error) {
    if (asked.length === 1) return [asError(error)];
    return Promise.all(asked.map((one) => insertAll(db, [one]).then(() => undefined, asError)));
  }
});

/**
 * Inserts one transaction outside any database transaction, sharing one statement with the other
 * inserts of the same event-loop turn (`insertTransactions`). Returns the row as stored; throws
 * the driver's error for this row only.
 */
export async function insertTransactionCoalesced(db: Db, values: NewTransaction, now: Date): Promise<TransactionRow> {
  const row = newRow(values, now);
  await coalescedInserts(db).load({ values, row });
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
 * With `when` (an SQL condition), nothing is claimed unless it holds.
 */
function claimKeySql(first: number, when?: string): string {
  const p = (i: number) => `$${first + i}`;
  const values = `${p(0)}::uuid, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::uuid, 201, ${p(5)}::jsonb, ${p(6)}::timestamptz, ${p(7)}::timestamptz`;
  return `insert into idempotency_keys (application_id, key, endpoint, request_hash, transaction_id, response_status, response_body, created_at, expires_at)
     ${when ? `select ${values} where ${when}` : `values (${values})`}
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

/**
 * Claims `claim`'s key (same rule as `claimIdempotencyKey`) and inserts `values` as a PENDING
 * transaction with its CREATED event only when the claim succeeded, in one statement (one round
 * trip, one database transaction). Returns the row as stored, or null when a live key held the
 * claim (the caller replays the stored response). `claim.transactionId` is set to the row's id.
 */
export async function insertTransactionOnce(db: Db, values: NewTransaction, claim: Omit<KeyClaim, 'transactionId' | 'createdAt'>, now: Date): Promise<TransactionRow | null> {
  const row = newRow(values, now);
  const { properties, once } = insertShape(writtenProperties([values]));
  const { rows } = await runStatement<{ created: number }>(db, once, [
    ...insertParameters(properties, [row]),
    ...claimParameters({ ...claim, transactionId: row.id, createdAt: now }),
  ]);
  return (rows[0]?.created ?? 0) > 0 ? row : null;
}

/**
 * Inserts `values` as a PENDING transaction with its CREATED event and writes `posting` (entries
 * naming the transaction, and the spends to check: `checkedPostingSql`) in one statement, both or
 * neither: outside a database transaction, the spent accounts' locks last that statement only.
 * Returns the row as it would be stored and the posting's outcome: `stale` (nothing written; run
 * it again), refused accounts (nothing written), or the entries' ids (both written). A reference
 * collision throws the driver's unique violation (23505).
 * With `claim`, the same statement claims the idempotency key once the balance checks passed
 * (`claimKeySql`; the stored response is `claim.responseOf(row)`): the key, the row and the
 * posting are written together or not at all, and a key a live request holds answers `held`
 * (nothing written; the caller replays the stored response).
 */
export async function insertTransactionWithPosting(
  db: Db,
  values: NewTransaction,
  posting: { entries: NewEntry[]; lines: NewLine[]; spends: BalanceDelta[] },
  now: Date,
  claim?: Omit<KeyClaim, 'transactionId' | 'createdAt' | 'responseBody'> & { responseOf: (row: TransactionRow) => unknown },
): Promise<{ row: TransactionRow; outcome: CheckedPostingOutcome }> {
  const row = newRow(values, now);
  const { properties, funded, fundedOnce } = insertShape(writtenProperties([values]));
  const columns = insertParameters(properties, [row]);
  if (!claim) return { row, outcome: await runCheckedPosting(db, funded, columns, posting) };
  const claimed = claimParameters({ ...claim, transactionId: row.id, responseBody: claim.responseOf(row), createdAt: now });
  return { row, outcome: await runCheckedPosting(db, fundedOnce, columns, posting, claimed) };
}

// What a status change reads of a transaction `t` (`RowForTransition`): the row, its version
// (`xmin`, the id of the database transaction that wrote it: any update makes a new one) and its
// pay-in fee terms (its rail's, and its merchant's override), so that the fee fixed at SUCCESS
// costs no second statement.
const forTransitionTermsColumns = `f.fee_percentage as terms_fee_percentage, f.fee_fixed as terms_fee_fixed,
          f.settlement_delay_seconds as terms_settlement_delay_seconds,
          f.override_percentage as terms_override_percentage, f.override_fixed as terms_override_fixed`;
const forTransitionColumns = `t.*, t.xmin::text as row_version, ${forTransitionTermsColumns}`;
const forTransitionTerms = `left join lateral (${feeTermsSelect('t.payment_method', "'PAY_IN'", 't.application_id')}) f on t.direction = 'PAY_IN'`;

/** A row as a status change reads it: the row, its pay-in fee terms and its version. */
export interface RowForTransition {
  row: TransactionRow;
  /** The rail's and merchant's pay-in fee terms (`StoredFeeTerms`; all null for a pay-out). */
  payInTerms: StoredFeeTerms;
  /** The row's version (`xmin`, decimal): `writeStatusChanges` writes only a row still at it. */
  version: string;
}

function rowForTransitionFrom(raw: Record<string, unknown>): RowForTransition {
  return { row: mapRow(transactions, raw), payInTerms: storedFeeTermsFrom(raw, 'terms_'), version: String(raw.row_version) };
}

// An operator's callback names its transaction by the token of its callback URL: the row as a
// status change reads it, and its rail, in one statement.
const byCallbackToken = statement(
  'transaction_by_callback_token_v2',
  `select ${forTransitionColumns}, ${prefixedSelectList(providers, 'p', 'rail_')}
     from transactions t left join providers p on p.code = t.payment_method
     ${forTransitionTerms}
    where t.callback_token = $1`,
);

/**
 * The transaction whose callback URL carries `token`, as a status change reads it
 * (`forTransition`, whose `row` is `row`), with its rail (null when it has none or the rail no
 * longer exists), or null when no transaction has that token. One statement.
 */
export async function transactionByCallbackToken(
  db: Db,
  token: string,
): Promise<{ row: TransactionRow; rail: RailRow | null; forTransition: RowForTransition } | null> {
  const { rows } = await runStatement<Record<string, unknown>>(db, byCallbackToken, [token]);
  const raw = rows[0];
  if (!raw) return null;
  const forTransition = rowForTransitionFrom(raw);
  return { row: forTransition.row, rail: mapPrefixedRow(providers, raw, 'rail_'), forTransition };
}

// The rows a status change reads (`forTransitionColumns`). Planned at each execution: it finds
// rows by a list of ids from a table's first rows on (see `statement`).
const forTransition = statement(
  'transactions_for_transition_v3',
  `select ${forTransitionColumns}
     from transactions t
     ${forTransitionTerms}
    where t.id = any($1::uuid[])`,
  { customPlan: true },
);

/** The rows of `ids` (any order; an unknown id has none), in one statement. */
export async function transactionsForTransition(db: Db, ids: string[]): Promise<RowForTransition[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, forTransition, [ids]);
  return rows.map(rowForTransitionFrom);
}

// Status changes with everything they write, in one statement. The compare-and-set: every row
// still at the version it was read at (so no field the change was planned from has moved since)
// takes its new status; each row that changed gets its status-change event, the ledger entries of
// its transaction (`postingWritesSql`) and its webhook events (`outboxWritesSql`); the entries and
// events of a row that did not change are not written.
// The rows are found by primary key (`t.id = any($1)`), and the expected status comes as a
// column of the batch rather than the literal 'PENDING': a literal matches the predicate of the
// partial index transactions_pending_poll_idx, and when the statistics are stale (a table that
// grew since its last ANALYZE) PostgreSQL then reads every PENDING row of that index to update
// a batch (test/postgres/batched-update-plans.test.ts). The same pattern is in
// every batched update keyed by id (initiation records, next polls, webhook attempts).
const settleWithEffects = statement(
  'settle_with_effects_v4',
  `with v as (
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::timestamptz[], $10::text[],
                          $11::text[], $12::boolean[], $13::text[], $14::text[], $15::text[]) with ordinality
       as v(id, status, failure_code, failure_reason, operator_reference, fee_amount, next_poll_at, late_watch_until, expected_status,
            operator_transaction_id, is_reservation_held, cause, detail, row_version, n)
   ), changed as (
     update transactions t
        set status = v.status, failure_code = v.failure_code, failure_reason = v.failure_reason,
            operator_reference = v.operator_reference, fee_amount = v.fee_amount, next_poll_at = v.next_poll_at,
            late_watch_until = v.late_watch_until, updated_at = $9::timestamptz,
            completed_at = case when v.status = 'REFUNDED' then t.completed_at else $9::timestamptz end,
            operator_transaction_id = v.operator_transaction_id, is_reservation_held = v.is_reservation_held
       from v
      where t.id = any($1::uuid[]) and t.id = v.id and t.status = v.expected_status and t.xmin = v.row_version::xid
     returning t.id
   ), event as (
     insert into transaction_events (transaction_id, from_status, to_status, cause, failure_code, detail, created_at)
     select v.id, v.expected_status, v.status, v.cause, v.failure_code, v.detail::jsonb, $9::timestamptz
       from v join changed c on c.id = v.id
      order by v.n
   ), ${postingWritesSql(16, 'pe.transaction_id in (select id from changed)')},
   ${outboxWritesSql(25, 'ov.transaction_id in (select id from changed)')}
   select id from changed`,
);

/**
 * One status change to write: the row's id, the status and version it must still have, what it
 * becomes, and its event's cause and detail.
 */
export interface StatusSettlement {
  id: string;
  /** The compare-and-set: the row changes only while it still has this status and this version. */
  expectedStatus: string;
  expectedVersion: string;
  status: string;
  failureCode: string | null;
  failureReason: string | null;
  operatorReference: string | null;
  operatorTransactionId: string | null;
  /** Base units, or null. */
  feeAmount: number | null;
  nextPollAt: Date | null;
  lateWatchUntil: Date | null;
  isReservationHeld: boolean;
  /** The status-change event's cause (`CALLBACK`, `POLL`, …) and its detail (a JSON object or null). */
  cause: string;
  detail: Record<string, unknown> | null;
}

/**
 * Writes `settlements` in one statement (`settleWithEffects`), each only if its row still has its
 * expected status and version, with, for each row that changed, its status-change event
 * (`transaction_events`, from the expected status to the new one), the `entries` (and `lines`) of
 * its transaction and its webhook `events`; `now` is the completion, update and event time.
 * Entries and events of a transaction whose row did not change are not written. Returns the ids
 * of the rows that changed (a row written is its read row with the settlement's values, since it
 * changes only at the version read). Throws the driver's error.
 */
export async function writeStatusChanges(
  db: Db,
  input: { settlements: StatusSettlement[]; entries: NewEntry[]; lines: NewLine[]; events: NewEventWithDelivery[]; now: Date },
): Promise<Set<string>> {
  const list = input.settlements;
  const { rows } = await runStatement<{ id: string }>(db, settleWithEffects, [
    list.map((s) => s.id),
    list.map((s) => s.status),
    list.map((s) => s.failureCode),
    list.map((s) => s.failureReason),
    list.map((s) => s.operatorReference),
    list.map((s) => s.feeAmount),
    list.map((s) => s.nextPollAt?.toISOString() ?? null),
    list.map((s) => s.lateWatchUntil?.toISOString() ?? null),
    input.now.toISOString(),
    list.map((s) => s.expectedStatus),
    list.map((s) => s.operatorTransactionId),
    list.map((s) => s.isReservationHeld),
    list.map((s) => s.cause),
    list.map((s) => (s.detail === null ? null : JSON.stringify(s.detail))),
    list.map((s) => s.expectedVersion),
    ...postingWritesValues(input.entries, input.lines),
    ...outboxWritesValues(input.events, input.now),
  ]);
  return new Set(rows.map((r) => r.id));
}

// The claim selects its batch ONCE (a materialized CTE): as `id in (select … limit n for update
// skip locked)` PostgreSQL may re-run the subquery for each row it updates, and each re-run,
// seeing the rows just leased as no longer due, returns the next ones: the limit did not hold.
// The update reaches the batch's rows as `id = any(array(select id from due))`, by primary key:
// joined as `from due where id = due.id`, PostgreSQL planned a hash join over a sequential scan of
// the whole table once its statistics counted a few thousand rows, so every claim of a draining
// backlog read the whole table (test/postgres/batched-update-plans.test.ts). The update asks
// nothing of the status: the batch's rows are locked by the CTE, PENDING when locked; a condition
// on the status let PostgreSQL read the whole partial index of PENDING rows to find the batch.
// The leased rows come back as a status change reads them (their new version and pay-in fee
// terms), so that the status change the answer decides need not read them again.
const claimTransactions = statement(
  'claim_due_transactions_v5',
  `with due as materialized (
     select id from transactions
      where status = 'PENDING' and next_poll_at <= $1::timestamptz and coalesce(payment_method, '') <> all($4::text[])
      order by next_poll_at
      limit $2
      for update skip locked),
   leased as (
     update transactions t
        set next_poll_at = $3::timestamptz, poll_attempts = t.poll_attempts + 1
      where t.id = any(array(select id from due))
     returning t.*, t.xmin::text as row_version)
   select t.*, ${forTransitionTermsColumns}
     from leased t ${forTransitionTerms}`,
);

/**
 * Leases due PENDING transactions (next poll at or before `now`, oldest first, at most `limit`,
 * skipping rows locked by another claimer and rows of the rails `skipRails`): their next poll
 * moves to `leaseUntil` and their poll count grows by one. Returns the rows as leased, as a status
 * change reads them (`RowForTransition`: the row, its version after the lease, its pay-in fee terms).
 */
export async function leaseDueTransactions(db: Db, input: { now: Date; limit: number; leaseUntil: Date; skipRails?: string[] }): Promise<RowForTransition[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, claimTransactions, [input.now.toISOString(), input.limit, input.leaseUntil.toISOString(), input.skipRails ?? []]);
  return rows.map(rowForTransitionFrom);
}

// Next polls of still-PENDING transactions, any number at a time, found by primary key with the
// expected status as a column of the batch (see `settleMany`).
const scheduleMany = statement(
  'schedule_next_polls_v3',
  `update transactions t set next_poll_at = v.at, status_query_reference = coalesce(v.status_query_reference, t.status_query_reference)
     from unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[]) as v(id, at, expected_status, status_query_reference)
    where t.id = any($1::uuid[]) and t.id = v.id and t.status = v.expected_status`,
);

/** A next poll to schedule: the transaction, when, and the id of the asynchronous status query just sent (if any). */
export interface NextPoll {
  id: string;
  at: Date;
  statusQueryReference?: string | undefined;
}

/**
 * Sets each still-PENDING transaction's next poll (and the id of the asynchronous status query
 * just sent, when there is one; otherwise the stored one stays), all in one statement. A
 * transaction no longer PENDING is left as it is. No statement when `polls` is empty.
 */
export async function scheduleNextPolls(db: Db, input: { polls: NextPoll[] }): Promise<void> {
  const { polls } = input;
  if (polls.length === 0) return;
  await runStatement(db, scheduleMany, [
    polls.map((p) => p.id),
    polls.map((p) => p.at.toISOString()),
    polls.map(() => 'PENDING'),
    polls.map((p) => p.statusQueryReference ?? null),
  ]);
}

// An initiation stored before its call: its operator id, callback token, times and first poll,
// on a PENDING transaction not yet initiated. The expected status is a parameter, as in the
// batched updates above, so that the plan reaches the row by its primary key.
const storeInitiationSql = statement(
  'store_initiation_v1',
  `update transactions
      set operator_reference = $2, callback_token = $3, initiated_at = $4::timestamptz, in_flight_until = $5::timestamptz,
          deadline_at = $6::timestamptz, next_poll_at = $7::timestamptz, updated_at = $4::timestamptz
    where id = $1::uuid and status = $8 and initiated_at is null
   returning id`,
);

/** An initiation to store before its call (times as instants; `nextPollAt` its first poll). */
export interface StoredInitiationValues {
  id: string;
  operatorReference: string;
  callbackToken: string;
  initiatedAt: Date;
  inFlightUntil: Date;
  deadlineAt: Date;
  nextPollAt: Date;
}

/**
 * Stores `values` on their transaction, provided it is still PENDING and not yet initiated (one
 * statement). Returns false when it was not (another caller initiated it, or it ended).
 */
export async function storeInitiation(db: Db, values: StoredInitiationValues): Promise<boolean> {
  const { rowCount } = await runStatement(db, storeInitiationSql, [
    values.id,
    values.operatorReference,
    values.callbackToken,
    values.initiatedAt.toISOString(),
    values.inFlightUntil.toISOString(),
    values.deadlineAt.toISOString(),
    values.nextPollAt.toISOString(),
    'PENDING',
  ]);
  return rowCount > 0;
}

// Initiation answers and their events, any number at a time, in one statement; only for
// transactions still PENDING. Planned at each execution (`customPlan`): every connection runs it
// from the first payments on, and a plan kept from a small table read the whole table at each
// execution as it grew (statement.ts).
const recordInitiations = statement(
  'record_initiations_v4',
  `with v as (
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
       as v(id, operator_reference, outcome, redirect_url, recorded_at, cause, detail, expected_status, in_flight_until)
   ), u as (
     update transactions t
        set operator_reference = v.operator_reference, initiation_outcome = v.outcome,
            redirect_url = coalesce(v.redirect_url, t.redirect_url), in_flight_until = v.in_flight_until, updated_at = v.recorded_at
       from v
      where t.id = any($1::uuid[]) and t.id = v.id and t.status = v.expected_status
      returning t.id)
   insert into transaction_events (transaction_id, from_status, to_status, cause, detail, created_at)
   select v.id, 'PENDING', 'PENDING', v.cause, v.detail::jsonb, v.recorded_at from v join u on u.id = v.id`,
  { customPlan: true },
);

/**
 * One initiation answer to record: the operator's id for it, the outcome, until when a request of
 * it may still reach the operator (null once acknowledged), and its event's cause and detail.
 */
export interface InitiationRecord {
  id: string;
  operatorReference: string;
  outcome: 'ACCEPTED' | 'UNKNOWN';
  redirectUrl: string | null;
  inFlightUntil: Date | null;
  recordedAt: Date;
  cause: string;
  detail: Record<string, unknown>;
}

/**
 * The parameters of `record_initiations_v4` (`recordInitiations`) for `records`, in the
 * statement's order: one array per column, each transaction expected still PENDING.
 */
export function initiationRecordValues(records: readonly InitiationRecord[]): unknown[] {
  return [
    records.map((r) => r.id),
    records.map((r) => r.operatorReference),
    records.map((r) => r.outcome),
    records.map((r) => r.redirectUrl),
    records.map((r) => r.recordedAt.toISOString()),
    records.map((r) => r.cause),
    records.map((r) => JSON.stringify(r.detail)),
    records.map(() => 'PENDING'),
    records.map((r) => r.inFlightUntil?.toISOString() ?? null),
  ];
}

const initiationRecorders = perDatabase<InitiationRecord, void>(async (db, records) => {
  await runStatement(db, recordInitiations, initiationRecordValues(records));
  return records.map(() => undefined);
});

/**
 * Records an initiation answer and its event (an ACCEPTED or UNKNOWN outcome; the caller passes
 * the prepared id unless the operator named another). Nothing is written for a transaction no
 * longer PENDING: a callback may already have settled it. The answers of one event-loop turn
 * share one statement (batch.ts). Throws the driver's error.
 */
export function recordInitiation(db: Db, record: InitiationRecord): Promise<void> {
  return initiationRecorders(db).load(record);
}
