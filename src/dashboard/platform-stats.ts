/**
 * Platform statistics: the administrators' overview over a period
 * (`GET /api/v1/admin/stats/overview`) and the public counters (`GET /api/v1/public/stats`, without
 * authentication). Aggregates in SQL, one query per figure group.
 */
import { and, count, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { accounts, providers, transactions } from '../db/schema.ts';

/** Statuses where money moved (a REFUNDED pay-in had succeeded first). */
const MOVED = sql`${transactions.status} in ('SUCCESS', 'REFUNDED')`;

/** Success rate: moved ÷ finished (PENDING excluded), 4 decimals; null when nothing finished. */
function rate(moved: number, finished: number): number | null {
  return finished === 0 ? null : Math.round((moved / finished) * 10_000) / 10_000;
}

/** One rail over the period. */
export interface RailStats {
  provider: string;
  currency: string;
  count: number;
  successCount: number;
  failedCount: number;
  pendingCount: number;
  /** (SUCCESS + REFUNDED) ÷ (all − PENDING); null when none finished. */
  successRate: number | null;
  /** Σ amount of the transactions where money moved, base units. */
  volume: number;
}

/** `GET /api/v1/admin/stats/overview` data. Period: `[from, to)`; one environment. */
export interface AdminStatsOverview {
  from: Date;
  to: Date;
  environment: 'LIVE' | 'TEST';
  merchants: { total: number; active: number; newInPeriod: number };
  transactions: { count: number; successCount: number; failedCount: number; pendingCount: number; successRate: number | null };
  /** Per currency: Σ amounts where money moved, pay-in and pay-out. */
  volumes: { currency: string; payInVolume: number; payOutVolume: number }[];
  byRail: RailStats[];
}

/** The administrators' overview of `[from, to)` in `environment`. */
export async function adminStatsOverview(db: Db, period: { from: Date; to: Date; environment: 'LIVE' | 'TEST' }): Promise<AdminStatsOverview> {
  const [m] = await db
    .select({
      total: count(),
      active: sql<string>`(count(*) filter (where ${accounts.status} = 'ACTIVE'))::text`,
      fresh: sql<string>`(count(*) filter (where ${accounts.createdAt} >= ${period.from.toISOString()}::timestamptz and ${accounts.createdAt} < ${period.to.toISOString()}::timestamptz))::text`,
    })
    .from(accounts)
    .where(eq(accounts.role, 'MERCHANT'));
  const inPeriod = and(
    eq(transactions.environment, period.environment),
    gte(transactions.createdAt, period.from),
    lt(transactions.createdAt, period.to),
  );
  const rails = await db
    .select({
      provider: sql<string>`coalesce(${transactions.paymentMethod}, 'NONE')`,
      currency: transactions.currency,
      direction: transactions.direction,
      n: sql<string>`count(*)::text`,
      moved: sql<string>`(count(*) filter (where ${MOVED}))::text`,
      failed: sql<string>`(count(*) filter (where ${transactions.status} = 'FAILED'))::text`,
      pending: sql<string>`(count(*) filter (where ${transactions.status} = 'PENDING'))::text`,
      volume: sql<string>`(coalesce(sum(${transactions.amount}) filter (where ${MOVED}), 0))::text`,
    })
    .from(transactions)
    .where(inPeriod)
    .groupBy(sql`1`, transactions.currency, transactions.direction);
  const byRail = new Map<string, RailStats>();
  const volumes = new Map<string, { currency: string; payInVolume: number; payOutVolume: number }>();
  for (const r of rails) {
    const key = `${r.provider} ${r.currency}`;
    const s = byRail.get(key) ?? { provider: r.provider, currency: r.currency, count: 0, successCount: 0, failedCount: 0, pendingCount: 0, successRate: null, volume: 0 };
    s.count += Number(r.n);
    s.successCount += Number(r.moved);
    s.failedCount += Number(r.failed);
    s.pendingCount += Number(r.pending);
    s.volume += Number(r.volume);
    byRail.set(key, s);
    const v = volumes.get(r.currency) ?? { currency: r.currency, payInVolume: 0, payOutVolume: 0 };
    if (r.direction === 'PAY_IN') v.payInVolume += Number(r.volume);
    else v.payOutVolume += Number(r.volume);
    volumes.set(r.currency, v);
  }
  const railList = [...byRail.values()]
    .map((s) => ({ ...s, successRate: rate(s.successCount, s.count - s.pendingCount) }))
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.currency.localeCompare(b.currency));
  const totals = railList.reduce(
    (t, s) => ({ count: t.count + s.count, successCount: t.successCount + s.successCount, failedCount: t.failedCount + s.failedCount, pendingCount: t.pendingCount + s.pendingCount }),
    { count: 0, successCount: 0, failedCount: 0, pendingCount: 0 },
  );
  return {
    ...period,
    merchants: { total: Number(m?.total ?? 0), active: Number(m?.active ?? 0), newInPeriod: Number(m?.fresh ?? 0) },
    transactions: { ...totals, successRate: rate(totals.successCount, totals.count - totals.pendingCount) },
    volumes: [...volumes.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    byRail: railList,
  };
}

/** `GET /api/v1/public/stats` data. */
export interface PublicStats {
  /** ACTIVE merchant accounts. */
  merchantCount: number;
  /** LIVE transactions where money moved (TEST traffic is not counted). */
  transactionCount: number;
  /** Active rails. */
  paymentMethodCount: number;
}

/** The public counters. */
export async function publicStats(db: Db): Promise<PublicStats> {
  const [merchants] = await db.select({ n: count() }).from(accounts).where(and(eq(accounts.role, 'MERCHANT'), eq(accounts.status, 'ACTIVE')));
  const [moved] = await db
    .select({ n: count() })
    .from(transactions)
    .where(and(eq(transactions.environment, 'LIVE'), inArray(transactions.status, ['SUCCESS', 'REFUNDED'])));
  const [rails] = await db.select({ n: count() }).from(providers).where(eq(providers.active, true));
  return { merchantCount: Number(merchants?.n ?? 0), transactionCount: Number(moved?.n ?? 0), paymentMethodCount: Number(rails?.n ?? 0) };
}
