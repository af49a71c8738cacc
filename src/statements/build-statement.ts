/**
 * A merchant's statement for a range of UTC days: every movement of the balances of their
 * applications (AVAILABLE, PENDING, RESERVED), with the opening and closing balance of each
 * (environment, currency, balance). Computed from the journal only (ledger_lines of
 * ledger_entries): the opening balance is the sum of the lines before the range, never an
 * account's kept balance, so opening + Σ movements = closing holds by construction and can be
 * checked against `kolo ledger verify`. Amounts are base units on the balance's normal side
 * (a credit to the merchant is positive).
 */
import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications, transactions } from '../db/schema.ts';
import { ledgerAccounts, ledgerEntries, ledgerLines } from '../db/schema-ledger.ts';

/** The balances a statement covers. */
export const STATEMENT_BALANCES = ['AVAILABLE', 'PENDING', 'RESERVED'] as const;

/** One movement of one balance. */
export interface StatementMovement {
  /** When the ledger entry was posted (ISO 8601, UTC). */
  postedAt: string;
  environment: string;
  currency: string;
  balance: (typeof STATEMENT_BALANCES)[number];
  applicationId: string;
  applicationName: string;
  /** The ledger entry's kind (PAYIN_SUCCESS, PAYOUT_RESERVED…). */
  entryKind: string;
  /** Our reference of the transaction that caused it, or null (an entry without transaction). */
  reference: string | null;
  /** Signed amount on the balance, base units (+ credit to the merchant). */
  amount: number;
  /** The balance after this movement. */
  balanceAfter: number;
}

/** Opening, movements and closing of one (environment, currency, balance). */
export interface StatementTotal {
  environment: string;
  currency: string;
  balance: (typeof STATEMENT_BALANCES)[number];
  opening: number;
  credits: number;
  debits: number;
  closing: number;
  movementCount: number;
}

/** A statement: its range (UTC days, both included), totals and movements (oldest first). */
export interface Statement {
  from: string;
  to: string;
  totals: StatementTotal[];
  movements: StatementMovement[];
}

/** Whole days from `from` to `to`, both included (YYYY-MM-DD, UTC). */
export function statementDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

const keyOf = (environment: string, currency: string, balance: string) => `${environment}|${currency}|${balance}`;

/**
 * Builds the statement of merchant `merchantId` for the UTC days `from`..`to` (YYYY-MM-DD, both
 * included). Only accounts of the merchant's own applications are read.
 */
export async function buildStatement(db: Db, merchantId: string, from: string, to: string): Promise<Statement> {
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000);
  const apps = await db.select({ id: applications.id, name: applications.name }).from(applications).where(eq(applications.merchantId, merchantId));
  const appName = new Map(apps.map((a) => [a.id, a.name]));
  if (apps.length === 0) return { from, to, totals: [], movements: [] };
  const accounts = await db
    .select({ id: ledgerAccounts.id, kind: ledgerAccounts.kind, currency: ledgerAccounts.currency, environment: ledgerAccounts.environment, applicationId: ledgerAccounts.applicationId })
    .from(ledgerAccounts)
    .where(and(inArray(ledgerAccounts.applicationId, [...appName.keys()]), inArray(ledgerAccounts.kind, [...STATEMENT_BALANCES])));
  if (accounts.length === 0) return { from, to, totals: [], movements: [] };
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const accountIds = [...accountById.keys()];
  // Merchant balances are CREDIT-normal: the balance is −Σ lines.
  const openings = await db
    .select({ accountId: ledgerLines.accountId, total: sql<string>`coalesce(-sum(${ledgerLines.amount}), 0)::text` })
    .from(ledgerLines)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .where(and(inArray(ledgerLines.accountId, accountIds), lt(ledgerEntries.createdAt, start)))
    .groupBy(ledgerLines.accountId);
  const lines = await db
    .select({
      accountId: ledgerLines.accountId,
      amount: ledgerLines.amount,
      lineId: ledgerLines.id,
      entryKind: ledgerEntries.kind,
      postedAt: ledgerEntries.createdAt,
      reference: transactions.reference,
    })
    .from(ledgerLines)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .leftJoin(transactions, eq(transactions.id, ledgerEntries.transactionId))
    .where(and(inArray(ledgerLines.accountId, accountIds), gte(ledgerEntries.createdAt, start), lt(ledgerEntries.createdAt, end)))
    .orderBy(asc(ledgerEntries.createdAt), asc(ledgerLines.id));

  const totals = new Map<string, StatementTotal>();
  const totalOf = (environment: string, currency: string, balance: StatementTotal['balance']) => {
    const key = keyOf(environment, currency, balance);
    let total = totals.get(key);
    if (!total) {
      total = { environment, currency, balance, opening: 0, credits: 0, debits: 0, closing: 0, movementCount: 0 };
      totals.set(key, total);
    }
    return total;
  };
  // Every balance the merchant has in this range's environments and currencies is listed, moved or not.
  for (const a of accounts) totalOf(a.environment ?? '', a.currency, a.kind as StatementTotal['balance']);
  for (const o of openings) {
    const a = accountById.get(o.accountId)!;
    const total = totalOf(a.environment ?? '', a.currency, a.kind as StatementTotal['balance']);
    total.opening += Number(o.total);
  }
  for (const total of totals.values()) total.closing = total.opening;
  const movements: StatementMovement[] = [];
  for (const line of lines) {
    const a = accountById.get(line.accountId)!;
    const total = totalOf(a.environment ?? '', a.currency, a.kind as StatementTotal['balance']);
    const amount = -line.amount;
    if (amount > 0) total.credits += amount;
    else total.debits += -amount;
    total.closing += amount;
    total.movementCount++;
    movements.push({
      postedAt: line.postedAt.toISOString(),
      environment: a.environment ?? '',
      currency: a.currency,
      balance: a.kind as StatementTotal['balance'],
      applicationId: a.applicationId!,
      applicationName: appName.get(a.applicationId!) ?? '',
      entryKind: line.entryKind,
      reference: line.reference,
      amount,
      balanceAfter: total.closing,
    });
  }
  const order = (t: StatementTotal) => `${t.environment}|${t.currency}|${STATEMENT_BALANCES.indexOf(t.balance)}`;
  return { from, to, totals: [...totals.values()].sort((x, y) => order(x).localeCompare(order(y))), movements };
}
