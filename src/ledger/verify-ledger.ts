/**
 * The ledger's invariant check (`kolo ledger verify`, and every concurrency and crash test):
 * 1. Σ of all lines = 0, and every entry balances;
 * 2. every account's kept balance = Σ of its lines on its normal side;
 * 3. no non-negative account is below zero;
 * 4. every funded pay-out holds exactly its reservation (amount + fee) in RESERVED (or
 *    SUSPENSE_RESERVED) while its money may still leave — PENDING, or FAILED at its deadline with
 *    the reservation held — and nothing once paid or released.
 * Each check is one aggregate query (db/queries/ledger-checks.ts); at most `limit` discrepancies
 * of each kind are reported.
 */
import type { Db } from '../db/client.ts';
import { balanceMismatches, ledgerTotals, negativeBalances, reservationMismatches, unbalancedEntries } from '../db/queries/ledger-checks.ts';

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

/** Verifies the invariants over the whole ledger; never throws for a discrepancy. */
export async function verifyLedger(db: Db, limit = 10): Promise<LedgerReport> {
  const discrepancies: Discrepancy[] = [];
  const totals = await ledgerTotals(db);
  if (BigInt(totals.total) !== 0n) discrepancies.push({ check: 'TOTAL', detail: `Σ of all lines = ${totals.total}, not 0` });
  for (const e of await unbalancedEntries(db, limit)) {
    discrepancies.push({ check: 'ENTRY', detail: `entry ${e.id} (${e.kind}): Σ = ${e.total} over ${e.lines} line(s)` });
  }
  for (const b of await balanceMismatches(db, limit)) {
    discrepancies.push({ check: 'BALANCE', detail: `account ${b.key}: balance ${b.balance} ≠ Σ of its lines ${b.lines_total}` });
  }
  for (const n of await negativeBalances(db, limit)) discrepancies.push({ check: 'NEGATIVE', detail: `account ${n.key}: balance ${n.balance} < 0` });
  for (const r of await reservationMismatches(db, limit)) {
    const expected = r.status === 'PENDING' || r.is_reservation_held ? r.reserved : '0';
    discrepancies.push({ check: 'RESERVATION', detail: `pay-out ${r.reference} (${r.status}): ${r.held} held in reserve, expected ${expected}` });
  }
  return {
    ok: discrepancies.length === 0,
    accounts: totals.accounts,
    entries: totals.entries,
    lines: totals.lines,
    discrepancies,
  };
}
