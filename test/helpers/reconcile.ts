/**
 * Reconciliation of what an operator simulator says it moved against what Kolo's ledger posted
 * on that operator's float, transaction by transaction: for each Kolo transaction, the money the
 * simulator moved for it (pay-ins in, pay-outs out) equals the net of the ledger lines on the
 * rail's OPERATOR_FLOAT account for that transaction. A movement Kolo cannot attribute to a
 * transaction, or a float posting without a movement, is a discrepancy. Usable with any
 * simulator: the input is only `{reference, operatorReference?, direction, amount}` per movement.
 */
import { expect } from 'vitest';
import { and, eq, inArray, or } from 'drizzle-orm';
import { ledgerAccounts, ledgerEntries, ledgerLines } from '../../src/db/schema-ledger.ts';
import { transactions } from '../../src/db/schema.ts';
import { checkoutAttempts } from '../../src/db/schema-checkout.ts';
import { operatorFloatAccount } from '../../src/ledger/accounts.ts';
import type { Harness } from '../harness.ts';
import { expectLedgerBalanced } from './ledger.ts';

/**
 * One money movement as a simulator reports it (`sim.moved()`). `reference`: the correlation key
 * the operator received (a transaction reference, or a checkout attempt's `<reference>-<n>`);
 * `operatorReference`: the operator's id of the request, used when `reference` names no
 * transaction (an operator-side id such as an Orange payToken or a Daraja CheckoutRequestID);
 * `amount`: base units, positive, whichever the direction.
 */
export interface MovedMoney {
  reference: string;
  operatorReference?: string | null;
  direction: 'PAY_IN' | 'PAY_OUT';
  amount: number;
}

/** One Kolo transaction's line of the reconciliation. `moved` and `posted` are signed: money into the float positive. */
export interface ReconciliationLine {
  /** The Kolo transaction's reference, or the unattributed movement's reference. */
  reference: string;
  /** Σ of the simulator's movements attributed to it (pay-in +amount, pay-out −amount). */
  moved: number;
  /** Net of the ledger lines on the rails' OPERATOR_FLOAT accounts for it (debit +, credit −). */
  posted: number;
  /** False for a movement no Kolo transaction matches. */
  isAttributed: boolean;
}

/**
 * Which float accounts belong to the simulator: its rail codes, environment (default LIVE) and
 * currency; `references`, when given, keeps only the lines of these Kolo transactions (one
 * scenario's), movements included.
 */
export interface ReconcileScope {
  rails: readonly string[];
  currency: string;
  environment?: string;
  references?: readonly string[];
}

/**
 * The reconciliation of `moved` against the ledger in `scope`, one line per Kolo transaction that
 * has a movement or a float posting (ordered by reference). Read-only.
 */
export async function reconcile(h: Harness, moved: readonly MovedMoney[], scope: ReconcileScope): Promise<ReconciliationLine[]> {
  const db = h.services.db;
  const environment = scope.environment ?? 'LIVE';
  const lines = new Map<string, ReconciliationLine>();
  const lineOf = (reference: string, isAttributed = true) => {
    let line = lines.get(reference);
    if (!line) lines.set(reference, (line = { reference, moved: 0, posted: 0, isAttributed }));
    return line;
  };

  for (const m of moved) {
    const signed = m.direction === 'PAY_IN' ? m.amount : -m.amount;
    const reference = await transactionReferenceOf(h, m);
    if (reference) lineOf(reference).moved += signed;
    else lineOf(`unattributed:${m.reference}`, false).moved += signed;
  }

  const floatKeys = scope.rails.map((rail) => operatorFloatAccount(rail, environment, scope.currency).key);
  const posted = await db
    .select({ reference: transactions.reference, amount: ledgerLines.amount })
    .from(ledgerLines)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerLines.accountId))
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .innerJoin(transactions, eq(transactions.id, ledgerEntries.transactionId))
    .where(inArray(ledgerAccounts.key, floatKeys));
  for (const p of posted) lineOf(p.reference).posted += Number(p.amount);

  const only = scope.references ? new Set(scope.references) : null;
  return [...lines.values()].filter((l) => !only || only.has(l.reference)).sort((a, b) => a.reference.localeCompare(b.reference));
}

/** The Kolo transaction a movement belongs to: by reference, then checkout attempt, then operator reference. */
async function transactionReferenceOf(h: Harness, m: MovedMoney): Promise<string | null> {
  const db = h.services.db;
  const [direct] = await db.select({ reference: transactions.reference }).from(transactions).where(eq(transactions.reference, m.reference));
  if (direct) return direct.reference;
  const attemptMatch = m.operatorReference
    ? or(eq(checkoutAttempts.correlationId, m.reference), eq(checkoutAttempts.operatorReference, m.operatorReference))
    : eq(checkoutAttempts.correlationId, m.reference);
  const [attempt] = await db
    .select({ reference: transactions.reference })
    .from(checkoutAttempts)
    .innerJoin(transactions, eq(transactions.id, checkoutAttempts.transactionId))
    .where(attemptMatch);
  if (attempt) return attempt.reference;
  if (!m.operatorReference) return null;
  const [byOperator] = await db
    .select({ reference: transactions.reference })
    .from(transactions)
    .where(and(eq(transactions.operatorReference, m.operatorReference), eq(transactions.direction, m.direction)));
  return byOperator?.reference ?? null;
}

/**
 * Asserts the money holds after a scenario: `kolo ledger verify`'s invariants, then every line of
 * `reconcile` attributed and equal (moved = posted). Returns the lines (for a closing summary).
 */
export async function expectReconciled(h: Harness, moved: readonly MovedMoney[], scope: ReconcileScope): Promise<ReconciliationLine[]> {
  await expectLedgerBalanced(h.services.db);
  const lines = await reconcile(h, moved, scope);
  expect(lines.filter((l) => !l.isAttributed || l.moved !== l.posted)).toEqual([]);
  return lines;
}

/** The kinds of the ledger entries posted for the transaction `reference`, in posting order. */
export async function ledgerEntryKinds(h: Harness, reference: string): Promise<string[]> {
  const rows = await h.services.db
    .select({ kind: ledgerEntries.kind, id: ledgerEntries.id })
    .from(ledgerEntries)
    .innerJoin(transactions, eq(transactions.id, ledgerEntries.transactionId))
    .where(eq(transactions.reference, reference));
  return rows.sort((a, b) => a.id - b.id).map((r) => r.kind);
}

/** Totals of a reconciliation by direction (money into the float is a pay-in), base units, positive. */
export interface ReconciliationTotals {
  payIn: { moved: number; posted: number };
  payOut: { moved: number; posted: number };
  mismatches: number;
}

/** Sums `lines` by direction, for a test run's closing figures. */
export function reconciliationTotals(lines: readonly ReconciliationLine[]): ReconciliationTotals {
  const totals: ReconciliationTotals = { payIn: { moved: 0, posted: 0 }, payOut: { moved: 0, posted: 0 }, mismatches: 0 };
  for (const line of lines) {
    if (!line.isAttributed || line.moved !== line.posted) totals.mismatches += 1;
    const side = (line.moved || line.posted) >= 0 ? totals.payIn : totals.payOut;
    side.moved += Math.abs(line.moved);
    side.posted += Math.abs(line.posted);
  }
  return totals;
}
