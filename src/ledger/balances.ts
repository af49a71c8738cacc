/**
 * Reading balances: the normal-side balances of an application's accounts, each its stored
 * balance plus the deltas appended since the last roll-up (`accountBalanceSql`). One query.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { ledgerAccounts } from '../db/schema-ledger.ts';

/** An account's current balance in SQL: its stored balance + Σ of its pending deltas. */
export const accountBalanceSql = sql<number>`(ledger_accounts.balance + coalesce((select sum(d.amount) from ledger_balance_deltas d where d.account_id = ledger_accounts.id), 0))::bigint`.mapWith(Number);

/** Balances of one currency of an application in an environment, base units. */
export interface HolderBalance {
  currency: string;
  available: number;
  pending: number;
  /** Held for pay-outs in flight (RESERVED). */
  reserved: number;
  /** Held for the items of approved batches not yet sent (BATCH_RESERVED). */
  batchReserved: number;
}

/** The application's balances in `environment`, one per currency that has accounts, sorted by currency. */
export async function holderBalances(db: Db, applicationId: string, environment: string): Promise<HolderBalance[]> {
  const rows = await db
    .select({ kind: ledgerAccounts.kind, currency: ledgerAccounts.currency, balance: accountBalanceSql })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.applicationId, applicationId),
        eq(ledgerAccounts.environment, environment),
        inArray(ledgerAccounts.kind, ['AVAILABLE', 'PENDING', 'RESERVED', 'BATCH_RESERVED']),
      ),
    );
  const byCurrency = new Map<string, HolderBalance>();
  for (const row of rows) {
    const b = byCurrency.get(row.currency) ?? { currency: row.currency, available: 0, pending: 0, reserved: 0, batchReserved: 0 };
    if (row.kind === 'AVAILABLE') b.available = row.balance;
    else if (row.kind === 'PENDING') b.pending = row.balance;
    else if (row.kind === 'RESERVED') b.reserved = row.balance;
    else b.batchReserved = row.balance;
    byCurrency.set(row.currency, b);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** The balance of the account named `key`, or 0 when it does not exist yet. */
export async function accountBalance(db: Db, key: string): Promise<number> {
  const [row] = await db.select({ balance: accountBalanceSql }).from(ledgerAccounts).where(eq(ledgerAccounts.key, key));
  return row?.balance ?? 0;
}

/** Σ of the balances of several holders in `environment`, per currency (one grouped query), sorted by currency. */
export async function sumHolderBalances(db: Db, applicationIds: string[], environment: string): Promise<HolderBalance[]> {
  if (applicationIds.length === 0) return [];
  const rows = await db
    .select({ kind: ledgerAccounts.kind, currency: ledgerAccounts.currency, total: sql<string>`sum(${accountBalanceSql})::text` })
    .from(ledgerAccounts)
    .where(
      and(
        inArray(ledgerAccounts.applicationId, applicationIds),
        eq(ledgerAccounts.environment, environment),
        inArray(ledgerAccounts.kind, ['AVAILABLE', 'PENDING', 'RESERVED', 'BATCH_RESERVED']),
      ),
    )
    .groupBy(ledgerAccounts.kind, ledgerAccounts.currency);
  const byCurrency = new Map<string, HolderBalance>();
  for (const row of rows) {
    const b = byCurrency.get(row.currency) ?? { currency: row.currency, available: 0, pending: 0, reserved: 0, batchReserved: 0 };
    const total = Number(row.total);
    if (row.kind === 'AVAILABLE') b.available = total;
    else if (row.kind === 'PENDING') b.pending = total;
    else if (row.kind === 'RESERVED') b.reserved = total;
    else b.batchReserved = total;
    byCurrency.set(row.currency, b);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
