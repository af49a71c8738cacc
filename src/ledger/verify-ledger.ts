/**
 * The ledger's invariant check (`kolo ledger verify`, and every concurrency and crash test):
 * 1. Σ of all lines = 0, and every entry balances;
 * 2. every account's kept balance = Σ of its lines on its normal side;
 * 3. no non-negative account is below zero;
 * 4. every funded pay-out holds exactly its reservation (amount + fee) in RESERVED (or
 *    SUSPENSE_RESERVED) while its money may still leave — PENDING, or FAILED at its deadline with
 *    the reservation held — and nothing once paid or released.
 * Each check is one aggregate query; at most `limit` discrepancies of each kind are reported.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';

/** One broken invariant, described for a human. */
export interface Discrepancy {
  check: 'TOTAL' | 'ENTRY' | 'BALANCE' | 'NEGATIVE' | 'RESERVATION';
  detail: string;
}

/** Outcome of `verifyLedger`: ok when no discrepancy was found. */
export interface LedgerReport {
  ok: boolean;
  accounts: number;
  entries: number;
  lines: number;
  discrepancies: Discrepancy[];
}

/** Called as each of the five checks starts (`step` from 1 to `of`), e.g. for a progress line. */
export type LedgerCheckProgress = (step: number, of: number, what: string) => void;

/**
 * Verifies the invariants over the whole ledger; never throws for a discrepancy. `onCheck`, if
 * given, is told as each check starts (the checks of a large ledger take seconds each).
 */
export async function verifyLedger(db: Db, limit = 10, onCheck?: LedgerCheckProgress): Promise<LedgerReport> {
  const discrepancies: Discrepancy[] = [];
  onCheck?.(1, 5, 'Σ of all lines');
  const [totals] = rowsOf(
    await db.execute(sql`
      select (select count(*) from ledger_accounts) as accounts,
             (select count(*) from ledger_entries) as entries,
             count(*) as lines, coalesce(sum(amount), 0)::text as total
      from ledger_lines`),
  ) as { accounts: string | number; entries: string | number; lines: string | number; total: string }[];
  if (BigInt(totals!.total) !== 0n) discrepancies.push({ check: 'TOTAL', detail: `Σ of all lines = ${totals!.total}, not 0` });
  onCheck?.(2, 5, `every entry balances (${totals!.entries} entries, ${totals!.lines} lines)`);

  const entries = rowsOf(
    await db.execute(sql`
      select e.id, e.kind, coalesce(sum(l.amount), 0)::text as total, count(l.id) as lines
      from ledger_entries e left join ledger_lines l on l.entry_id = e.id
      group by e.id, e.kind
      having coalesce(sum(l.amount), 0) <> 0 or count(l.id) < 2
      order by e.id limit ${limit}`),
  ) as { id: string | number; kind: string; total: string; lines: string | number }[];
  for (const e of entries) {
    discrepancies.push({ check: 'ENTRY', detail: `entry ${e.id} (${e.kind}): Σ = ${e.total} over ${e.lines} line(s)` });
  }

  onCheck?.(3, 5, `every balance = Σ of its lines (${totals!.accounts} accounts)`);
  const balances = rowsOf(
    await db.execute(sql`
      select a.id, a.key, a.balance::text as balance, s.total::text as lines_total
      from ledger_accounts a
      cross join lateral (
        select coalesce(sum(l.amount), 0) * (case a.normal_side when 'DEBIT' then 1 else -1 end) as total
        from ledger_lines l where l.account_id = a.id
      ) s
      where a.balance <> s.total
      order by a.id limit ${limit}`),
  ) as { id: string | number; key: string; balance: string; lines_total: string }[];
  for (const b of balances) {
    discrepancies.push({ check: 'BALANCE', detail: `account ${b.key}: balance ${b.balance} ≠ Σ of its lines ${b.lines_total}` });
  }

  onCheck?.(4, 5, 'no non-negative account below zero');
  const negatives = rowsOf(
    await db.execute(sql`
      select key, balance::text as balance from ledger_accounts
      where is_non_negative and balance < 0 order by id limit ${limit}`),
  ) as { key: string; balance: string }[];
  for (const n of negatives) discrepancies.push({ check: 'NEGATIVE', detail: `account ${n.key}: balance ${n.balance} < 0` });

  onCheck?.(5, 5, 'pay-out reservations');
  const reservations = rowsOf(
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
  ) as { reference: string; status: string; is_reservation_held: boolean; reserved: string; held: string }[];
  for (const r of reservations) {
    const expected = r.status === 'PENDING' || r.is_reservation_held ? r.reserved : '0';
    discrepancies.push({ check: 'RESERVATION', detail: `pay-out ${r.reference} (${r.status}): ${r.held} held in reserve, expected ${expected}` });
  }

  return {
    ok: discrepancies.length === 0,
    accounts: Number(totals!.accounts),
    entries: Number(totals!.entries),
    lines: Number(totals!.lines),
    discrepancies,
  };
}
