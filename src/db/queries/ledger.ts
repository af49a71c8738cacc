/**
 * The ledger's statements (ledger_accounts, ledger_entries, ledger_lines) behind typed functions;
 * the posting rules that call them live in src/ledger/. Every function runs in the `db` it is
 * given (the caller's database transaction) and throws the driver's error.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';
import { knownBy } from '../handle.ts';
import { runStatement, statement, type Statement } from '../statement.ts';

/** An account as the ledger stores it: its unique key and what it is. */
export interface LedgerAccount {
  key: string;
  kind: string;
  currency: string;
  normalSide: 'DEBIT' | 'CREDIT';
  /** Whether the balance may never go below zero (merchant balances, reservations). */
  isNonNegative: boolean;
  applicationId?: string | null;
  environment?: string | null;
}

/** An account's id as stored, by its key. */
export interface AccountId {
  id: number;
  key: string;
}

// The accounts' ids, creating the missing ones (zero balance); see `ensureAccounts`. `settled`:
// the row was written by a transaction older than this one, so it is committed for good (an
// account is never deleted); a row this transaction (or one of its savepoints, whose ids come
// after the transaction's own) may have written is not.
const ensureAccountsSql = statement(
  'ensure_ledger_accounts_v2',
  `with wanted as (
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::uuid[], $7::text[])
       as w(key, kind, currency, normal_side, is_non_negative, application_id, environment)
   ), created as (
     insert into ledger_accounts (key, kind, currency, normal_side, is_non_negative, application_id, environment, balance, version, created_at)
     select key, kind, currency, normal_side, is_non_negative, application_id, environment, 0, 0, $8::timestamptz from wanted
     on conflict (key) do nothing
     returning id, key
   )
   select id, key, false as settled from created
   union all
   select a.id, a.key, a.xmin::text::bigint < (pg_current_xact_id()::text::bigint % 4294967296) as settled
     from ledger_accounts a join wanted w on w.key = a.key`,
);

/** The ids of settled accounts by key, per database (`knownBy`), at most `KNOWN_ACCOUNTS_MAX`. */
const KNOWN_ACCOUNTS = Symbol('ledger account ids');
const KNOWN_ACCOUNTS_MAX = 50_000;

/**
 * Forgets the ids of `keys` (a posting on them failed: should one of them come from a rolled-back
 * creation, the next posting creates it again).
 */
export function forgetAccounts(db: Db, keys: string[]): void {
  const known = knownBy(db, KNOWN_ACCOUNTS, () => new Map<string, number>());
  for (const key of keys) known.delete(key);
}

/**
 * The ids of `accounts`, creating with a zero balance those that do not exist yet, in one
 * statement that locks nothing, or none at all when every id is known: the id of an account
 * committed by an earlier transaction is kept for the life of the database handle (accounts are
 * never deleted), so a posting on the platform's and a merchant's usual accounts does not ask
 * for them again. An account created at the same moment by another, still open transaction is
 * not seen by this statement's snapshot: it is asked again (after that transaction ends), at most
 * three times. Throws when an account is still missing then.
 */
export async function ensureAccounts(db: Db, input: { accounts: LedgerAccount[]; createdAt: Date }): Promise<Map<string, number>> {
  const createdAt = input.createdAt.toISOString();
  const known = knownBy(db, KNOWN_ACCOUNTS, () => new Map<string, number>());
  const ids = new Map<string, number>();
  let missing = input.accounts.filter((a) => {
    const id = known.get(a.key);
    if (id !== undefined) ids.set(a.key, id);
    return id === undefined;
  });
  for (let attempt = 0; attempt < 3 && missing.length > 0; attempt++) {
    const { rows } = await runStatement<{ id: number | string; key: string; settled: boolean }>(db, ensureAccountsSql, [
      missing.map((a) => a.key),
      missing.map((a) => a.kind),
      missing.map((a) => a.currency),
      missing.map((a) => a.normalSide),
      missing.map((a) => a.isNonNegative),
      missing.map((a) => a.applicationId ?? null),
      missing.map((a) => a.environment ?? null),
      createdAt,
    ]);
    if (known.size + rows.length > KNOWN_ACCOUNTS_MAX) known.clear();
    for (const r of rows) {
      ids.set(r.key, Number(r.id));
      if (r.settled) known.set(r.key, Number(r.id));
    }
    missing = missing.filter((a) => !ids.has(a.key));
  }
  if (missing.length > 0) throw new Error(`ledger: accounts ${missing.map((a) => a.key).join(', ')} could not be created`);
  return ids;
}

/** Creates `account` with a zero balance unless it exists; true when this call created it (one round trip). */
export async function insertAccountIfMissing(db: Db, input: { account: LedgerAccount; createdAt: Date }): Promise<boolean> {
  const { account } = input;
  const result = await db.execute(sql`
    insert into ledger_accounts (key, kind, currency, normal_side, is_non_negative, application_id, environment, balance, version, created_at)
    values (${account.key}, ${account.kind}, ${account.currency}, ${account.normalSide}, ${account.isNonNegative}, ${account.applicationId ?? null}::uuid,
            ${account.environment ?? null}, 0, 0, ${input.createdAt.toISOString()}::timestamptz)
    on conflict (key) do nothing
    returning id`);
  return rowsOf(result).length === 1;
}

/** A journal entry to insert; its lines name it by position in the batch (from 1). */
export interface NewEntry {
  kind: string;
  transactionId: string | null;
  currency: string;
  description: string | null;
  createdAt: Date;
}

/**
 * A line of an entry of the batch: the entry's position (from 1), the account's id, the signed
 * amount (debit > 0) and the account's normal-side change it makes (`accountDelta`).
 */
export interface NewLine {
  entry: number;
  accountId: number;
  amount: number;
  delta: bigint;
}

/** An account's normal-side change in base units (positive: the balance grows). */
export interface BalanceDelta {
  accountId: number;
  delta: bigint;
}

/**
 * The CTEs that write a posting (named `posting_*`), reading its entries from parameters
 * `$first` … `$first + 4` (kind, transaction id, currency, description, creation time) and its
 * lines from `$first + 5` … `$first + 8` (entry position from 1, account id, amount, delta):
 * the entries for which `keep` (an SQL condition on the entry's columns as `pe.*`) holds get
 * their ids (drawn first, with their position), their lines, and one balance delta per touched
 * account (the sum of its lines' deltas, unless 0) appended to `ledger_balance_deltas`.
 * `posting_e` lists the written entries (`id`, `n`). Shared by the posting statement below and
 * the status change's (transactions.ts), so that a posting is written by one SQL text.
 */
export function postingWritesSql(first: number, keep: string): string {
  const p = (i: number) => `$${first + i}`;
  return `posting_e as (
     select nextval(pg_get_serial_sequence('ledger_entries', 'id')) as id, pe.*
       from unnest(${p(0)}::text[], ${p(1)}::uuid[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::timestamptz[]) with ordinality
         as pe(kind, transaction_id, currency, description, created_at, n)
      where ${keep}
   ), posting_l as (
     select * from unnest(${p(5)}::int8[], ${p(6)}::int8[], ${p(7)}::bigint[], ${p(8)}::bigint[]) as pl(n, account_id, amount, delta)
   ), posting_entry as (
     insert into ledger_entries (id, kind, transaction_id, currency, description, created_at)
     select id, kind, transaction_id, currency, description, created_at from posting_e
   ), posting_line as (
     insert into ledger_lines (entry_id, account_id, amount)
     select e.id, l.account_id, l.amount from posting_l l join posting_e e on e.n = l.n
   ), posting_delta as (
     insert into ledger_balance_deltas (account_id, amount)
     select l.account_id, sum(l.delta) from posting_l l join posting_e e on e.n = l.n
      group by l.account_id having sum(l.delta) <> 0
   )`;
}

/** The values of `postingWritesSql`'s nine parameters, in order. */
export function postingWritesValues(entries: NewEntry[], lines: NewLine[]): unknown[] {
  return [
    entries.map((e) => e.kind),
    entries.map((e) => e.transactionId),
    entries.map((e) => e.currency),
    entries.map((e) => e.description),
    entries.map((e) => e.createdAt.toISOString()),
    lines.map((l) => l.entry),
    lines.map((l) => l.accountId),
    lines.map((l) => l.amount),
    lines.map((l) => l.delta.toString()),
  ];
}

/** How many parameters `checkedPostingSql` takes from `$first` on: the spends' two, the posting's nine. */
export const CHECKED_POSTING_PARAMETERS = 11;

/**
 * The CTEs of a checked posting (before `postingWritesSql`'s, which they include): `lk` locks the
 * spent accounts (`FOR NO KEY UPDATE`, in key order, so two postings never deadlock) until the
 * transaction ends, and reads their newest version; `stale` is true when one of them changed since
 * the statement's snapshot (a spend or a roll-up committed while the statement waited for the
 * lock, whose deltas the snapshot may not show): then nothing is written and the caller runs the
 * statement again. Otherwise `chk` computes each spent account's balance after the posting (stored
 * + Σ deltas + this delta) and `ok` says whether every one stays at or above zero; when it does,
 * the posting is written and each spent account's version is raised (`spent`), so that the next
 * spender sees this spend as a change. Parameters: the spent accounts' ids at `$first` and their
 * deltas at `$first + 1`, then the posting's nine (`postingWritesValues`). A statement built on it
 * may write more under `(select ok from ok)` and ends with `checkedPostingResultSql`.
 *
 * With `claim` (an idempotency key's claim, `claim(when)` an INSERT that writes only when `when`
 * holds and returns a row when the key is now this posting's), the checks' verdict is `passed`,
 * the key is claimed only when they passed (the spent accounts already locked: every statement
 * built so takes the balance's lock before the key's), and `ok` is the claim's success: a key held
 * by a live request writes nothing (`checkedPostingResultSql(true)` answers `held`).
 */
export function checkedPostingSql(first: number, claim?: (when: string) => string): string {
  const p = (i: number) => `$${first + i}`;
  const verdict = 'not (select stale from stale) and coalesce(bool_and(pass), true)';
  const decided = claim
    ? `passed as (
     select ${verdict} as ok from chk
   ), claim as (
     ${claim('(select ok from passed)')}
   ), ok as (
     select exists (select 1 from claim) as ok
   )`
    : `ok as (
     select ${verdict} as ok from chk
   )`;
  return `lk as (
     select a.id, a.version from ledger_accounts a where a.id = any(${p(0)}::int8[]) order by a.key for no key update
   ), stale as (
     select exists (select 1 from lk join ledger_accounts s on s.id = lk.id where s.version <> lk.version) as stale
   ), chk as (
     select a.key,
            a.balance + coalesce((select sum(d.amount) from ledger_balance_deltas d where d.account_id = a.id), 0) + c.delta >= 0 as pass
       from unnest(${p(0)}::int8[], ${p(1)}::bigint[]) as c(account_id, delta) join ledger_accounts a on a.id = c.account_id
   ), ${decided}, spent as (
     update ledger_accounts a set version = a.version + 1 where a.id = any(${p(0)}::int8[]) and (select ok from ok)
   ), ${postingWritesSql(first + 2, '(select ok from ok)')}`;
}

/**
 * The answer of a checked posting: the written entries' ids, or the refused accounts' keys, or one
 * stale row; `claimed` for a statement whose `checkedPostingSql` has a claim: then one held row when
 * the checks passed and a live key held the claim.
 */
export function checkedPostingResultSql(claimed = false): string {
  return `select id, null::text as refused, n, false as stale, false as held from posting_e
   union all
   select null, key, null, false, false from chk where not pass and not (select stale from stale)
   union all
   select null, null, null, true, false from stale where stale${
     claimed
       ? `
   union all
   select null, null, null, false, true from passed where ok and not exists (select 1 from claim)`
       : ''
   }
   order by n`;
}

/**
 * What one run of a checked posting did: `stale` (nothing written, run again), or `held` (nothing
 * written: a live key held the claim; no ids, none refused), or its entries' ids or refused accounts.
 */
export type CheckedPostingOutcome = { stale: true } | { stale: false; held: boolean; ids: number[]; refused: string[] };

/**
 * Runs `checked` (a statement built on `checkedPostingSql`, whose parameters follow `leading`, its
 * own, and precede `trailing`, its claim's) once with `posting`, and reads its answer
 * (`checkedPostingResultSql`).
 */
export async function runCheckedPosting(
  db: Db,
  checked: Statement,
  leading: unknown[],
  posting: { entries: NewEntry[]; lines: NewLine[]; spends: BalanceDelta[] },
  trailing: unknown[] = [],
): Promise<CheckedPostingOutcome> {
  const { rows } = await runStatement<{ id: number | string | null; refused: string | null; stale: boolean; held: boolean }>(db, checked, [
    ...leading,
    posting.spends.map((d) => d.accountId),
    posting.spends.map((d) => d.delta.toString()),
    ...postingWritesValues(posting.entries, posting.lines),
    ...trailing,
  ]);
  if (rows.some((r) => r.stale)) return { stale: true };
  if (rows.some((r) => r.held)) return { stale: false, held: true, ids: [], refused: [] };
  const refused = rows.flatMap((r) => (r.refused === null ? [] : [r.refused]));
  return { stale: false, held: false, ids: refused.length > 0 ? [] : rows.map((r) => Number(r.id)), refused };
}

const insertPostingSql = statement('insert_ledger_posting_v4', `with ${checkedPostingSql(1)}\n   ${checkedPostingResultSql()}`);

/**
 * Writes a posting in one statement (`checkedPostingSql`): `entries` and their `lines`, and each
 * touched account's summed delta appended to `ledger_balance_deltas`, provided each account of
 * `spends` (a negative delta on an account that must not go below zero) stays at or above zero.
 * The spent accounts stay locked until the caller's transaction ends. Returns the entries' ids in
 * order, or the keys of the accounts that would go below zero (and then nothing was written).
 * One round trip, two when a spent account changed while the statement waited for its lock.
 * Throws an Error when, outside a database transaction, the spent accounts changed under three
 * runs in a row.
 */
export async function insertPosting(
  db: Db,
  input: { entries: NewEntry[]; lines: NewLine[]; spends: BalanceDelta[] },
): Promise<{ ids: number[]; refused: string[] }> {
  // In a database transaction (every caller's) the second run holds the locks the first took:
  // nothing can change the spent accounts' rows under it, so a third is never needed. Outside one
  // each run's locks end with it; the bound then keeps a contended spend from looping.
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await runCheckedPosting(db, insertPostingSql, [], input);
    if (!outcome.stale) return outcome;
  }
  throw new Error('ledger: the spent accounts kept changing under their own lock');
}

// The roll-up of the given accounts (locked by the caller): each account's deltas are summed,
// deleted and added to its stored balance in one statement (one snapshot: the rows summed are
// the rows deleted). An account that must not go negative and whose stored balance the sum would
// take below zero keeps its deltas (the CHECK would refuse it; verification reports it).
const rollUpSql = statement(
  'roll_up_ledger_balances_v1',
  `with s as (
     select d.account_id, sum(d.amount) as total
       from ledger_balance_deltas d where d.account_id = any($1::int8[]) group by d.account_id
   ), ok as (
     select s.account_id, s.total from s join ledger_accounts a on a.id = s.account_id
      where not a.is_non_negative or a.balance + s.total >= 0
   ), deleted as (
     delete from ledger_balance_deltas d using ok where d.account_id = ok.account_id returning d.account_id
   )
   update ledger_accounts a set balance = a.balance + ok.total, version = a.version + 1
     from ok where a.id = ok.account_id
   returning a.id`,
);

// Up to $1 accounts that have deltas to fold, locked (skipping those a posting or another
// roll-up holds), in key order.
const claimRollUpSql = statement(
  'claim_ledger_roll_up_v1',
  `select a.id from ledger_accounts a
    where a.id in (select distinct account_id from ledger_balance_deltas limit $1)
    order by a.key
    for no key update skip locked`,
);

/**
 * Folds the balance deltas of at most `limit` accounts into their stored balances, in the
 * caller's transaction: claims the accounts (skipping locked ones), then sums, deletes and adds
 * their deltas in one statement. Returns how many accounts were rolled up.
 */
export async function rollUpBalanceDeltas(db: Db, limit: number): Promise<number> {
  const { rows } = await runStatement<{ id: number | string }>(db, claimRollUpSql, [limit]);
  if (rows.length === 0) return 0;
  const done = await runStatement<{ id: number | string }>(db, rollUpSql, [rows.map((r) => Number(r.id))]);
  return done.rows.length;
}
