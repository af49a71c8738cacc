/**
 * What a merchant sees of their money, in the shapes SharePay's dashboard reads:
 * `GET /api/v1/merchants/balance` and `GET /api/v1/merchants/dashboard`, whose balances are read
 * from the ledger (never recomputed from transactions), in the environment the caller names
 * (`environment=TEST` shows the sandbox balances: a TEST application that never moved money shows
 * its opening balance). The dashboard's figures and lists are of pay-ins only, as SharePay's.
 */
import { dayBounds } from '../dashboard/reader-days.ts';
import { and, desc, eq, gte, inArray, isNull, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { applications, transactions } from '../db/schema.ts';
import { sumHolderBalances } from '../ledger/balances.ts';
import type { Services } from '../services.ts';
import { ensureSandboxOpening } from './transaction-postings.ts';
import { dashboardTransactionView, type DashboardTransaction } from '../dashboard/transactions.ts';
import { netAmountSql } from '../db/queries/net-amount.ts';
import { maskAccountNumber } from '../domain/msisdn.ts';

export type { DashboardTransaction };

/** One line of `GET /api/v1/merchants/balance` (base units). */
export interface BalanceLine {
  availableAmount: number;
  pendingAmount: number;
  /** Held for pay-outs in flight. */
  reservedAmount: number;
  /** Held for the items of approved batches not yet sent (the BATCH_RESERVED account). */
  batchReservedAmount: number;
  currency: string;
}

/** Options: the environment and an optional single application of the merchant. */
export interface BalanceQuery {
  environment: 'LIVE' | 'TEST';
  applicationId?: string | undefined;
}

async function merchantApplications(db: Db, merchantId: string, applicationId?: string) {
  return db
    .select({ id: applications.id, name: applications.name, currency: applications.currency, createdAt: applications.createdAt })
    .from(applications)
    .where(
      and(
        eq(applications.merchantId, merchantId),
        isNull(applications.deletedAt),
        applicationId ? eq(applications.id, applicationId) : undefined,
      ),
    )
    .orderBy(applications.createdAt);
}

/** The merchant's balances per currency, Σ over their applications (or the one asked for). */
export async function merchantBalances(services: Services, merchantId: string, query: BalanceQuery): Promise<BalanceLine[]> {
  const apps = await merchantApplications(services.db, merchantId, query.applicationId);
  if (query.environment === 'TEST') {
    await transaction(services.db, async (tx) => {
      for (const app of apps) await ensureSandboxOpening(tx, services, app.id, 'TEST', app.currency);
    });
  }
  const sums = await sumHolderBalances(
    services.db,
    apps.map((a) => a.id),
    query.environment,
  );
  const currencies = new Set([...apps.map((a) => a.currency), ...sums.map((s) => s.currency)]);
  return [...currencies].sort().map((currency) => {
    const s = sums.find((x) => x.currency === currency);
    return { availableAmount: s?.available ?? 0, pendingAmount: s?.pending ?? 0, reservedAmount: s?.reserved ?? 0, batchReservedAmount: s?.batchReserved ?? 0, currency };
  });
}

/** `GET /api/v1/merchants/dashboard` data, before serialisation. */
export interface DashboardSummary {
  availableBalance: number;
  pendingBalance: number;
  currency: string | null;
  /** Σ (amount − fee) of today's SUCCESS and REFUNDED pay-ins, base units. */
  dailyVolume: number;
  /** Pay-ins created today, whatever their status. */
  todayTransactionCount: number;
  /** Today's pay-ins, newest first, payer accounts masked. */
  todayTransactions: DashboardTransaction[];
  /** The five newest pay-ins, payer accounts masked. */
  lastFiveTransactions: DashboardTransaction[];
}

/** Bound of `todayTransactions` (the full list is paged elsewhere). */
const TODAY_LIST_MAX = 50;

/**
 * The dashboard summary of a merchant in one currency (`currency`, else their oldest
 * application's), as SharePay's dashboard shows it: balances from the ledger; then pay-ins only,
 * since SharePay's overview shows every item as money received (pay-outs, withdrawals and refunds
 * are not there): their count and the net volume (amount − fee) of the SUCCESS and REFUNDED ones
 * since midnight in `timeZone` (an IANA name PostgreSQL knows, e.g. UTC or Africa/Nairobi), today's
 * and the five newest, each payer's account masked to its last four digits (`••••0001`).
 */
export async function merchantDashboard(
  services: Services,
  merchantId: string,
  query: BalanceQuery & { currency?: string | undefined; timeZone: string },
): Promise<DashboardSummary> {
  const apps = await merchantApplications(services.db, merchantId, query.applicationId);
  const currency = query.currency ?? apps[0]?.currency ?? null;
  const balances = await merchantBalances(services, merchantId, query);
  const balance = balances.find((b) => b.currency === currency);
  const inCurrency = apps.filter((a) => a.currency === currency);
  const ids = inCurrency.map((a) => a.id);
  const names = new Map(apps.map((a) => [a.id, a.name]));
  const empty = { availableBalance: balance?.availableAmount ?? 0, pendingBalance: balance?.pendingAmount ?? 0, currency };
  if (ids.length === 0) return { ...empty, dailyVolume: 0, todayTransactionCount: 0, todayTransactions: [], lastFiveTransactions: [] };
  const { from: dayStart } = await dayBounds(services.db, services.clock.now(), query.timeZone);
  const scope = and(inArray(transactions.applicationId, ids), eq(transactions.environment, query.environment), eq(transactions.direction, 'PAY_IN'));
  const [stats] = await services.db
    .select({
      count: sql<string>`count(*)::text`,
      volume: sql<string>`coalesce(sum(${netAmountSql()}) filter (where ${transactions.status} in ('SUCCESS', 'REFUNDED')), 0)::text`,
    })
    .from(transactions)
    .where(and(scope, gte(transactions.createdAt, dayStart)));
  const today = await services.db
    .select()
    .from(transactions)
    .where(and(scope, gte(transactions.createdAt, dayStart)))
    .orderBy(desc(transactions.createdAt))
    .limit(TODAY_LIST_MAX);
  const lastFive = await services.db.select().from(transactions).where(scope).orderBy(desc(transactions.createdAt)).limit(5);
  const view = (row: typeof transactions.$inferSelect): DashboardTransaction => {
    const item = dashboardTransactionView(row, names.get(row.applicationId) ?? '');
    return { ...item, payerAccount: item.payerAccount === null ? null : maskAccountNumber(item.payerAccount) };
  };
  return {
    ...empty,
    dailyVolume: Number(stats?.volume ?? 0),
    todayTransactionCount: Number(stats?.count ?? 0),
    todayTransactions: today.map(view),
    lastFiveTransactions: lastFive.map(view),
  };
}
