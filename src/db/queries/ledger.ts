/**
 * The ledger's statements (ledger_accounts, ledger_entries, ledger_lines) behind typed functions;
 * the posting rules that call them live in src/ledger/. Every function runs in the `db` it is
 * given (the caller's database transaction) and throws the driver's error.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';
import { runStatement, statement } from '../statement.ts';

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

/** One account's change: its normal-side delta in base units (positive: the balance grows). */
export interface AccountChange {
  account: LedgerAccount;
  delta: bigint;
}

/** What `addToBalances` did to one account: its id, and whether this call created it. */
export interface BalanceAdded {
  id: number;
  key: string;
  inserted: boolean;
}

/**
 * Adds each change's delta to its account's balance and bumps its version, creating the account
 * on first use, in one statement, locking the rows in the order given (callers give key order, so
 * two postings never deadlock). A non-negative account whose balance would go below zero is
 * neither updated nor returned; a non-negative account created by a debit starts at zero (the
 * caller refuses it: `inserted` with a negative delta). `createdAt` dates the accounts created.
 */
export async function addToBalances(db: Db, input: { changes: AccountChange[]; createdAt: Date }): Promise<BalanceAdded[]> {
  const createdAt = input.createdAt.toISOString();
  const rows = sql.join(
    input.changes.map(({ account, delta }) => {
      const start = account.isNonNegative && delta < 0n ? 0n : delta;
      return sql`(${account.key}, ${account.kind}, ${account.currency}, ${account.normalSide}, ${account.isNonNegative}, ${account.applicationId ?? null}::uuid, ${account.environment ?? null}, ${start.toString()}::bigint, ${delta.toString()}::bigint, 1, ${createdAt}::timestamptz)`;
    }),
    sql`, `,
  );
  const result = await db.execute(sql`
    insert into ledger_accounts (key, kind, currency, normal_side, is_non_negative, application_id, environment, balance, last_delta, version, created_at)
    values ${rows}
    on conflict (key) do update
      set balance = ledger_accounts.balance + excluded.last_delta, last_delta = excluded.last_delta, version = ledger_accounts.version + 1
      where not ledger_accounts.is_non_negative or ledger_accounts.balance + excluded.last_delta >= 0
    returning id, key, (xmax = 0) as inserted`);
  return rowsOf<{ id: number | string; key: string; inserted: boolean }>(result).map((r) => ({ id: Number(r.id), key: r.key, inserted: r.inserted }));
}

/** Creates `account` with a zero balance unless it exists; true when this call created it (one round trip). */
export async function insertAccountIfMissing(db: Db, input: { account: LedgerAccount; createdAt: Date }): Promise<boolean> {
  const { account } = input;
  const result = await db.execute(sql`
    insert into ledger_accounts (key, kind, currency, normal_side, is_non_negative, application_id, environment, balance, last_delta, version, created_at)
    values (${account.key}, ${account.kind}, ${account.currency}, ${account.normalSide}, ${account.isNonNegative}, ${account.applicationId ?? null}::uuid,
            ${account.environment ?? null}, 0, 0, 0, ${input.createdAt.toISOString()}::timestamptz)
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

/** A line of an entry of the batch: the entry's position (from 1), the account's id and the signed amount. */
export interface NewLine {
  entry: number;
  accountId: number;
  amount: number;
}

// Entries and their lines, any number at a time: each entry's id is drawn first, with its position
// (from 1), and each line names the position of its entry. Answers the ids in position order.
const insertEntriesSql = statement(
  'insert_ledger_entries_v2',
  `with e as (
     select nextval(pg_get_serial_sequence('ledger_entries', 'id')) as id, v.*
       from unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[]) with ordinality
         as v(kind, transaction_id, currency, description, created_at, n)
   ), entry as (
     insert into ledger_entries (id, kind, transaction_id, currency, description, created_at)
     select id, kind, transaction_id, currency, description, created_at from e
   ), line as (
     insert into ledger_lines (entry_id, account_id, amount)
     select e.id, l.account_id, l.amount from unnest($6::int8[], $7::bigint[], $8::bigint[]) as l(n, account_id, amount) join e on e.n = l.n
   )
   select id from e order by n`,
);

/** Inserts `entries` and their `lines` in one statement; returns the entries' ids in order. */
export async function insertEntries(db: Db, input: { entries: NewEntry[]; lines: NewLine[] }): Promise<number[]> {
  const { entries, lines } = input;
  const { rows } = await runStatement<{ id: number | string }>(db, insertEntriesSql, [
    entries.map((e) => e.kind),
    entries.map((e) => e.transactionId),
    entries.map((e) => e.currency),
    entries.map((e) => e.description),
    entries.map((e) => e.createdAt.toISOString()),
    lines.map((l) => l.entry),
    lines.map((l) => l.accountId),
    lines.map((l) => l.amount),
  ]);
  return rows.map((r) => Number(r.id));
}
