/**
 * The aggregate queries of the ledger's invariant check (ledger/verify-ledger.ts): each one
 * statement over the whole ledger, returning at most `limit` offending rows. Amounts come back
 * as decimal text (`numeric` sums can exceed 2^53).
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';

/** Counts of accounts, entries and lines, and Σ of every line's amount (decimal text). */
export async function ledgerTotals(db: Db): Promise<{ accounts: number; entries: number; lines: number; total: string }> {
  const [row] = rowsOf<{ accounts: string | number; entries: string | number; lines: string | number; total: string }>(
    await db.execute(sql`
      select (select count(*) from ledger_accounts) as accounts,
             (select count(*) from ledger_entries) as entries,
             count(*) as lines, coalesce(sum(amount), 0)::text as total
      from ledger_lines`),
  );
  return { accounts: Number(row!.accounts), entries: Number(row!.entries), lines: Number(row!.lines), total: row!.total };
}

/** Entries whose lines do not sum to 0 or that have fewer than two lines, by id. */
export async function unbalancedEntries(db: Db, limit: number): Promise<{ id: string | number; kind: string; total: string; lines: string | number }[]> {
  return rowsOf(
    await db.execute(sql`
      select e.id, e.kind, coalesce(sum(l.amount), 0)::text as total, count(l.id) as lines
      from ledger_entries e left join ledger_lines l on l.entry_id = e.id
      group by e.id, e.kind
      having coalesce(sum(l.amount), 0) <> 0 or count(l.id) < 2
      order by e.id limit ${limit}`),
  );
}

/** Accounts whose balance (stored + pending deltas) differs from Σ of their lines on their normal side, by id. */
export async function balanceMismatches(db: Db, limit: number): Promise<{ id: string | number; key: string; balance: string; lines_total: string }[]> {
  return rowsOf(
    await db.execute(sql`
      select a.id, a.key, b.balance::text as balance, s.total::text as lines_total
      from ledger_accounts a
      cross join lateral (
        select a.balance + coalesce((select sum(d.amount) from ledger_balance_deltas d where d.account_id = a.id), 0) as balance
      ) b
      cross join lateral (
        select coalesce(sum(l.amount), 0) * (case a.normal_side when 'DEBIT' then 1 else -1 end) as total
        from ledger_lines l where l.account_id = a.id
      ) s
      where b.balance <> s.total
      order by a.id limit ${limit}`),
  );
}

/** Non-negative accounts whose balance (stored + pending deltas) is below zero, by id. */
export async function negativeBalances(db: Db, limit: number): Promise<{ key: string; balance: string }[]> {
  return rowsOf(
    await db.execute(sql`
      select key, b.balance::text as balance from ledger_accounts a
      cross join lateral (
        select a.balance + coalesce((select sum(d.amount) from ledger_balance_deltas d where d.account_id = a.id), 0) as balance
      ) b
      where is_non_negative and b.balance < 0 order by id limit ${limit}`),
  );
}

/**
 * Funded pay-outs whose money held in RESERVED / SUSPENSE_RESERVED is not their reservation while
 * it may still leave (PENDING, or the reservation held), or not 0 otherwise; by reference.
 */
export async function reservationMismatches(
  db: Db,
  limit: number,
): Promise<{ reference: string; status: string; is_reservation_held: boolean; reserved: string; held: string }[]> {
  return rowsOf(
    await db.execute(sql`
      select t.reference, t.status, t.is_reservation_held, t.reserved_amount::text as reserved, r.held::text as held
      from transactions t
      cross join lateral (
        select coalesce(-sum(l.amount), 0) as held
        from ledger_entries e
        join ledger_lines l on l.entry_id = e.id
        join ledger_accounts a on a.id = l.account_id and a.kind in ('RESERVED', 'SUSPENSE_RESERVED')
        where e.transaction_id = t.id
      ) r
      where t.direction = 'PAY_OUT' and t.reserved_amount is not null
        and r.held <> case when t.status = 'PENDING' or t.is_reservation_held then t.reserved_amount else 0 end
      order by t.reference limit ${limit}`),
  );
}

/**
 * Applications whose BATCH_RESERVED balance (stored + pending deltas) per environment and
 * currency is not Σ (amount + fee) of the WAITING items of their approved batches (APPROVED or
 * PROCESSING): the money approval reserved and the dispatcher has not yet moved to a pay-out.
 * Both sides are read in full outer join, so a reservation without items and items without a
 * reservation are both reported; by key.
 */
export async function batchReservationMismatches(
  db: Db,
  limit: number,
): Promise<{ application_id: string; environment: string; currency: string; held: string; expected: string }[]> {
  return rowsOf(
    await db.execute(sql`
      with held as (
        select a.application_id, a.environment, a.currency,
               sum(a.balance + coalesce((select sum(d.amount) from ledger_balance_deltas d where d.account_id = a.id), 0)) as held
        from ledger_accounts a where a.kind = 'BATCH_RESERVED'
        group by a.application_id, a.environment, a.currency
      ), expected as (
        select b.application_id, b.environment, b.currency, sum(i.amount + i.fee_amount) as expected
        from batch_items i join batches b on b.id = i.batch_id
        where i.status = 'WAITING' and b.status in ('APPROVED', 'PROCESSING')
        group by b.application_id, b.environment, b.currency
      )
      select coalesce(h.application_id, e.application_id)::text as application_id,
             coalesce(h.environment, e.environment) as environment,
             coalesce(h.currency, e.currency) as currency,
             coalesce(h.held, 0)::text as held, coalesce(e.expected, 0)::text as expected
      from held h full outer join expected e
        on e.application_id = h.application_id and e.environment = h.environment and e.currency = h.currency
      where coalesce(h.held, 0) <> coalesce(e.expected, 0)
      order by 1, 2, 3 limit ${limit}`),
  );
}
