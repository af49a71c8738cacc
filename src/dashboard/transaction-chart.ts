/**
 * The dashboard chart (`GET /api/v1/merchants/transactions/chart`): counts and volumes of a
 * merchant's transactions per time bucket and per key (status, provider or application), computed
 * in SQL — `generate_series` makes every bucket (empty ones included), `date_trunc` places each
 * transaction, the aggregate runs on the (application_id, created_at) index, without a join — so
 * the answer is one query whatever the volume.
 *
 * Buckets are the days of a time zone (the reader's, UTC by default), like the dashboard's
 * "today": TODAY is the 24 wall-clock hours of the current day in that zone (labels `HH:00`; on a
 * DST change the skipped hour stays empty and the repeated one counts both), LAST_7_DAYS and
 * LAST_30_DAYS are whole days of that zone ending today (labels `YYYY-MM-DD`, 23 or 25 hours long
 * on DST changes). One currency at a time; volumes are net amounts (a pay-in less its fee, as
 * SharePay's chart sums them) in its base unit.
 */
import type { Db } from '../db/client.ts';
import { bucketLabels, bucketTotals } from '../db/queries/transaction-chart.ts';
import type { Clock } from '../domain/clock.ts';
import { dayBounds } from './reader-days.ts';
import { transactionWhere, type TransactionFilter } from './transactions.ts';

export const CHART_INTERVALS = ['TODAY', 'LAST_7_DAYS', 'LAST_30_DAYS'] as const;
export type ChartInterval = (typeof CHART_INTERVALS)[number];
export const CHART_GROUPS = ['STATUS', 'PROVIDER', 'APPLICATION'] as const;
export type ChartGroup = (typeof CHART_GROUPS)[number];

/**
 * One line of the chart: `counts[i]` and `volumes[i]` belong to `labels[i]`. A volume is Σ net
 * amount, base units, as the lists show `netAmount` (a pay-in less its fee, a pay-out plus its
 * fee; a fee not taken counts 0).
 */
export interface ChartSeries {
  key: string;
  counts: number[];
  volumes: number[];
}

/** The chart as `…/transactions/chart` answers it. */
export interface TransactionChart {
  interval: ChartInterval;
  groupBy: ChartGroup;
  currency: string | null;
  labels: string[];
  series: ChartSeries[];
}

/** Bucket width and count of an interval, ending with the bucket holding now; days before today's. */
function buckets(interval: ChartInterval): { unit: 'hour' | 'day'; count: number; daysBefore: number } {
  if (interval === 'TODAY') return { unit: 'hour', count: 24, daysBefore: 0 };
  const days = interval === 'LAST_7_DAYS' ? 7 : 30;
  return { unit: 'day', count: days, daysBefore: days - 1 };
}

/**
 * The chart of `merchantId`'s transactions matching `filter` (its date bounds are replaced by
 * the interval's) in `currency`, with days and hours of `timeZone` (an IANA name PostgreSQL
 * knows: see `canonicalTimeZone`). Series are sorted by key; a key appears when it has at least
 * one transaction in the interval.
 */
export async function transactionChart(
  db: Db,
  clock: Clock,
  merchantId: string,
  query: { interval: ChartInterval; groupBy: ChartGroup; currency: string | null; timeZone: string; filter: TransactionFilter },
): Promise<TransactionChart> {
  const { unit, count, daysBefore } = buckets(query.interval);
  const now = clock.now();
  const zone = query.timeZone;
  // First, as it checks that the database knows the zone.
  const { from, to } = await dayBounds(db, now, zone, daysBefore);
  const run = { now, timeZone: zone, unit, daysBefore };
  const labels = await bucketLabels(db, run);
  if (query.currency === null) return { interval: query.interval, groupBy: query.groupBy, currency: null, labels, series: [] };

  const { where, appNames } = await transactionWhere(db, merchantId, { ...query.filter, from, to });
  const rows = await bucketTotals(db, run, { where, currency: query.currency, groupBy: query.groupBy });
  const series: ChartSeries[] = [];
  for (let i = 0; i < rows.length; i += count) {
    const slice = rows.slice(i, i + count);
    const key = query.groupBy === 'APPLICATION' ? (appNames.get(slice[0]!.key) ?? slice[0]!.key) : slice[0]!.key;
    series.push({ key, counts: slice.map((r) => r.count), volumes: slice.map((r) => r.volume) });
  }
  series.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { interval: query.interval, groupBy: query.groupBy, currency: query.currency, labels, series };
}
