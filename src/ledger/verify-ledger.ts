/**
 * The ledger's invariant check (`kolo ledger verify`, and every concurrency and crash test):
 * 1. Σ of all lines = 0, and every entry balances;
 * 2. every account's balance (stored + deltas not yet rolled up) = Σ of its lines on its normal side;
 * 3. no non-negative account is below zero;
 * 4. every funded pay-out holds exactly its reservation (amount + fee) in RESERVED (or
 *    SUSPENSE_RESERVED) while its money may still leave — PENDING, or FAILED at its deadline with
 *    the reservation held — and nothing once paid or released;
 * 5. every application's BATCH_RESERVED balance (per environment and currency) = Σ (amount + fee)
 *    of the items of its approved batches not yet sent (docs/batches.md).
 * Each check is one aggregate query (db/queries/ledger-checks.ts); at most `limit` discrepancies
 * of each kind are reported.
 */
import type { Db } from '../db/client.ts';
import { balanceMismatches, batchReservationMismatches, ledgerTotals, negativeBalances, reservationMismatches, unbalancedEntries } from '../db/queries/ledger-checks.ts';

/** One broken invariant, described for a human. */
export interface Discrepancy {
  check: 'TOTAL' | 'ENTRY' | 'BALANCE' | 'NEGATIVE' | 'RESERVATION' | 'BATCH_RESERVATION';
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

/** Called as each of the six checks starts (`step` from 1 to `of`), e.g. for a progress line. */
export type LedgerCheckProgress = (step: number, of: number, what: string) => void;

/**
 * Verifies the invariants over the whole ledger; never throws for a discrepancy. `onCheck`, if
 * given, is told as each check starts (the checks of a large ledger take seconds each).
 */
export async function verifyLedger(db: Db, limit = 10, onCheck?: LedgerCheckProgress): Promise<LedgerReport> {
  const discrepancies: Discrepancy[] = [];
  onCheck?.(1, 6, 'Σ of all lines');
  const totals = await ledgerTotals(db);
  if (BigInt(totals.total) !== 0n) discrepancies.push({ check: 'TOTAL', detail: `Σ of all lines = ${totals.total}, not 0` });
  onCheck?.(2, 6, `every entry balances (${totals.entries} entries, ${totals.lines} lines)`);
  for (const e of await unbalancedEntries(db, limit)) {
    discrepancies.push({ check: 'ENTRY', detail: `entry ${e.id} (${e.kind}): Σ = ${e.total} over ${e.lines} line(s)` });
  }
  onCheck?.(3, 6, `every balance = Σ of its lines (${totals.accounts} accounts)`);
  for (const b of await balanceMismatches(db, limit)) {
    discrepancies.push({ check: 'BALANCE', detail: `account ${b.key}: balance ${b.balance} ≠ Σ of its lines ${b.lines_total}` });
  }
  onCheck?.(4, 6, 'no non-negative account below zero');
  for (const n of await negativeBalances(db, limit)) discrepancies.push({ check: 'NEGATIVE', detail: `account ${n.key}: balance ${n.balance} < 0` });
  onCheck?.(5, 6, 'pay-out reservations');
  for (const r of await reservationMismatches(db, limit)) {
    const expected = r.status === 'PENDING' || r.is_reservation_held ? r.reserved : '0';
    discrepancies.push({ check: 'RESERVATION', detail: `pay-out ${r.reference} (${r.status}): ${r.held} held in reserve, expected ${expected}` });
  }
  onCheck?.(6, 6, 'batch reservations');
  for (const b of await batchReservationMismatches(db, limit)) {
    discrepancies.push({
      check: 'BATCH_RESERVATION',
      detail: `application ${b.application_id} (${b.environment} ${b.currency}): ${b.held} held for batches, expected ${b.expected} (items of approved batches not yet sent)`,
    });
  }
  return {
    ok: discrepancies.length === 0,
    accounts: totals.accounts,
    entries: totals.entries,
    lines: totals.lines,
    discrepancies,
  };
}
