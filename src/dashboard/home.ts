/**
 * The figures of the home screen of Kolo's web app (`GET /api/v1/merchants/home/…`), computed
 * here so the browser only formats them: today's volume, count and last transactions, and over
 * the last 7 or 30 days the success rate of pay-ins and their daily volume. Days are the
 * reader's (`timeZone`, an IANA name), like the chart's. Built from the same reads as the
 * transaction list, its stats and its chart (transactions.ts, transaction-chart.ts), so the home
 * screen and those screens never disagree.
 */
import type { Db } from '../db/client.ts';
import type { Clock } from '../domain/clock.ts';
import { oldestApplicationCurrency } from '../accounts/applications.ts';
import { dayBounds } from './reader-days.ts';
import { transactionChart } from './transaction-chart.ts';
import { pageTransactions, transactionStats, type DashboardTransaction } from './transactions.ts';

/** How many transactions the home screen lists. */
export const HOME_LAST_COUNT = 5;

/** The periods the home screen offers, as the chart names them. */
export const HOME_INTERVALS = ['LAST_7_DAYS', 'LAST_30_DAYS'] as const;
export type HomeInterval = (typeof HOME_INTERVALS)[number];

/** Statuses of a pay-in whose money moved: what counts as a success and as volume. */
const MONEY_MOVED = new Set(['SUCCESS', 'REFUNDED']);

/** What both home reads are asked for. */
export interface HomeQuery {
  environment: 'LIVE' | 'TEST';
  /** IANA name of the reader's zone (canonical, see `canonicalTimeZone`). */
  timeZone: string;
}

/** Today on the home screen, in one currency (the merchant's oldest application's). */
export interface HomeToday {
  /** Null when the merchant has no application (then the figures are 0 and the list empty). */
  currency: string | null;
  /** Σ amount of the pay-ins SUCCESS or REFUNDED created since the reader's midnight (base units). */
  volume: number;
  /** Transactions (pay-ins and pay-outs) created since the reader's midnight. */
  count: number;
  /** The `HOME_LAST_COUNT` newest transactions, both directions, newest first. */
  lastTransactions: DashboardTransaction[];
}

/**
 * Today's figures of `merchantId` in `query.environment`: volume and count since the reader's
 * midnight and the newest transactions, all in the currency of the oldest application. Throws
 * INVALID_PARAMETER when the database does not know the zone.
 */
export async function homeToday(db: Db, clock: Clock, merchantId: string, query: HomeQuery): Promise<HomeToday> {
  const currency = await oldestApplicationCurrency(db, merchantId);
  const { from } = await dayBounds(db, clock.now(), query.timeZone);
  if (currency === null) return { currency, volume: 0, count: 0, lastTransactions: [] };
  const scope = { environment: query.environment, currency };
  const all = await transactionStats(db, merchantId, { ...scope, from });
  const payIns = await transactionStats(db, merchantId, { ...scope, from, direction: 'PAY_IN' });
  const last = await pageTransactions(db, merchantId, scope, 0, HOME_LAST_COUNT);
  return { currency, volume: payIns.successVolume, count: all.total, lastTransactions: last.rows };
}

/** A period on the home screen. */
export interface HomePeriod {
  interval: HomeInterval;
  /** The chart's currency (the oldest application's); null without application. */
  currency: string | null;
  /**
   * Pay-ins SUCCESS or REFUNDED over the finished ones (every status but PENDING), all
   * currencies, since the reader's midnight `days - 1` days ago; null when none is finished.
   */
  successRate: number | null;
  /** The reader's days, `YYYY-MM-DD`, oldest first. */
  labels: string[];
  /** Per day of `labels`: the chart's volume (net of fees) of the pay-ins SUCCESS or REFUNDED, in `currency`. */
  volumes: number[];
}

/**
 * The period `query.interval` of `merchantId` in `query.environment`: success rate and daily
 * volume of pay-ins. Throws INVALID_PARAMETER when the database does not know the zone.
 */
export async function homePeriod(db: Db, clock: Clock, merchantId: string, query: HomeQuery & { interval: HomeInterval }): Promise<HomePeriod> {
  const days = query.interval === 'LAST_7_DAYS' ? 7 : 30;
  const currency = await oldestApplicationCurrency(db, merchantId);
  const chart = await transactionChart(db, clock, merchantId, {
    interval: query.interval,
    groupBy: 'STATUS',
    currency,
    timeZone: query.timeZone,
    filter: { direction: 'PAY_IN', environment: query.environment },
  });
  const { from } = await dayBounds(db, clock.now(), query.timeZone, days - 1);
  const stats = await transactionStats(db, merchantId, { direction: 'PAY_IN', environment: query.environment, from });
  const finished = stats.total - stats.pendingCount;
  const moved = chart.series.filter((series) => MONEY_MOVED.has(series.key));
  return {
    interval: query.interval,
    currency,
    successRate: finished > 0 ? (stats.successCount + stats.refundedCount) / finished : null,
    labels: chart.labels,
    volumes: chart.labels.map((_, day) => moved.reduce((sum, series) => sum + (series.volumes[day] ?? 0), 0)),
  };
}
