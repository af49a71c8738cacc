/**
 * The double-entry ledger: accounts with a stored balance, the balance deltas appended since the
 * last roll-up, and an append-only journal of entries whose lines sum to zero. Amounts are signed integers in the currency's base unit: a
 * positive line is a debit, a negative line a credit. An account's `balance` is kept on its normal
 * side (`DEBIT`: Σ lines; `CREDIT`: −Σ lines), so a merchant's available balance reads as a
 * positive number. An account's balance is `balance` + Σ of its rows in `ledger_balance_deltas`:
 * a posting appends one delta row per account (no row lock), and the background jobs fold the
 * deltas into `balance` in batches (ledger/roll-up-balances.ts).
 *
 * Invariants held by the database, not by code that reads before it writes:
 * - `ledger_accounts_non_negative`: an account flagged `is_non_negative` never goes below zero
 *   (the posting's conditional upsert refuses first; the CHECK is the last line of defence);
 * - lines and entries are append-only (triggers in the migration refuse UPDATE and DELETE);
 * - at most one entry of a kind per transaction (`ledger_entries_tx_kind_key`), so a replayed
 *   status change cannot post twice.
 * `kolo ledger verify` checks the rest: Σ of all lines = 0, every entry balanced, every balance
 * = its lines.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * One ledger account. `key` names it uniquely (e.g. `app:<id>:TEST:XAF:AVAILABLE`);
 * `application_id`/`environment` are only there so balances can be listed per application.
 */
export const ledgerAccounts = pgTable(
  'ledger_accounts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    key: text('key').notNull(),
    kind: text('kind').notNull(),
    currency: text('currency').notNull(),
    /** DEBIT (assets: operator float, sandbox funding) or CREDIT (liabilities, revenue, suspense). */
    normalSide: text('normal_side').notNull(),
    isNonNegative: boolean('is_non_negative').notNull(),
    applicationId: uuid('application_id'),
    environment: text('environment'),
    /**
     * Stored balance on the normal side, base units: the account's balance as of its last
     * roll-up. The balance is this plus Σ of the account's `ledger_balance_deltas`.
     */
    storedBalance: bigint('balance', { mode: 'number' }).notNull(),
    /** Incremented by every roll-up that folds deltas into the stored balance. */
    version: bigint('version', { mode: 'number' }).notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('ledger_accounts_key_key').on(t.key),
    index('ledger_accounts_app_idx').on(t.applicationId, t.environment),
    check('ledger_accounts_non_negative', sql`not ${t.isNonNegative} or ${t.storedBalance} >= 0`),
    check('ledger_accounts_normal_side', sql`${t.normalSide} in ('DEBIT', 'CREDIT')`),
  ],
);

/**
 * A change of an account's balance (normal side, base units) not yet folded into its stored
 * balance: one row per account touched by a posting, written in the posting's statement, deleted
 * by the roll-up in the statement that adds it to `ledger_accounts.balance`. Insert-only between
 * roll-ups, so concurrent postings to one account never wait on each other.
 */
export const ledgerBalanceDeltas = pgTable(
  'ledger_balance_deltas',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => ledgerAccounts.id),
    amount: bigint('amount', { mode: 'number' }).notNull(),
  },
  (t) => [index('ledger_balance_deltas_account_idx').on(t.accountId)],
);

/** A journal entry: what happened (`kind`), to which transaction, in which currency. */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    transactionId: uuid('transaction_id'),
    currency: text('currency').notNull(),
    description: text('description'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('ledger_entries_tx_kind_key').on(t.transactionId, t.kind).where(sql`${t.transactionId} is not null`),
  ],
);

/** A line of an entry: a signed amount (debit > 0, credit < 0) on one account. */
export const ledgerLines = pgTable(
  'ledger_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    entryId: bigint('entry_id', { mode: 'number' })
      .notNull()
      .references(() => ledgerEntries.id),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => ledgerAccounts.id),
    amount: bigint('amount', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('ledger_lines_entry_idx').on(t.entryId),
    index('ledger_lines_account_idx').on(t.accountId),
    check('ledger_lines_nonzero', sql`${t.amount} <> 0`),
  ],
);

/**
 * Pay-in money a rail holds as pending (`settlement_delay_seconds` > 0): released to the
 * available balance at `release_at` by the background jobs, once (`released_at`). One row per
 * credit of a transaction: `credit_kind` is the kind of the ledger entry that credited the
 * merchant's PENDING balance (`PAYIN_SUCCESS`, or `LATE_SUCCESS_KEPT…` for a late success kept).
 */
export const pendingSettlements = pgTable(
  'pending_settlements',
  {
    transactionId: uuid('transaction_id').notNull(),
    creditKind: text('credit_kind').notNull().default('PAYIN_SUCCESS'),
    applicationId: uuid('application_id').notNull(),
    environment: text('environment').notNull(),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    releaseAt: ts('release_at').notNull(),
    releasedAt: ts('released_at'),
  },
  (t) => [
    primaryKey({ columns: [t.transactionId, t.creditKind] }),
    index('pending_settlements_due_idx').on(t.releaseAt).where(sql`${t.releasedAt} is null`),
  ],
);
