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
 * on DST changes). One currency at a time; volumes in its base unit.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { dayBounds } from './reader-days.ts';
import { transactionWhere, type TransactionFilter } from './transactions.ts';

export const CHART_INTERVALS = ['TODAY', 'LAST_7_DAYS', 'LAST_30_DAYS'] as const;
export type ChartInterval = (typeof CHART_INTERVALS)[number];
export const CHART_GROUPS = ['STATUS', 'PROVIDER', 'APPLICATION'] as const;
export type ChartGroup = (typeof CHART_GROUPS)[number];

/** One line of the chart: `counts[i]` and `volumes[i]` (Σ amount, base units) belong to `labels[i]`. */
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

/** Key of a transaction for `groupBy` (SQL); a missing provider shows as `NONE`. */
function keyOf(groupBy: ChartGroup): SQL {
  switch (groupBy) {
    case 'STATUS':
      return sql`${transactions.status}`;
    case 'PROVIDER':
      return sql`coalesce(${transactions.paymentMethod}, 'NONE')`;
    case 'APPLICATION':
      // The id here; names are put in place afterwards (no join in the aggregate).
      return sql`${transactions.applicationId}::text`;
  }
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
  // The buckets as wall-clock times of the zone: from the first day's midnight to the last bucket of today.
  const today = sql`date_trunc('day', ${now.toISOString()}::timestamptz at time zone ${zone})`;
  const bucketSeries = sql`generate_series(${today} - make_interval(days => ${daysBefore}::int),
                                           ${today} + interval '1 day' - ${`1 ${unit}`}::interval,
                                           ${`1 ${unit}`}::interval)`;
  const labelFormat = unit === 'hour' ? 'HH24:00' : 'YYYY-MM-DD';
  const labelRows = rowsOf<{ label: string }>(await db.execute(sql`select to_char(b, ${labelFormat}) as label from ${bucketSeries} as b order by b`));
  const labels = labelRows.map((r) => r.label);
  if (query.currency === null) return { interval: query.interval, groupBy: query.groupBy, currency: null, labels, series: [] };

  const { where, appNames } = await transactionWhere(db, merchantId, { ...query.filter, from, to });
  const key = keyOf(query.groupBy);
  // Every (bucket, key) pair: generate_series × the keys present, left-joined to the aggregate.
  const rows = rowsOf<{ key: string; n: string; volume: string }>(
    await db.execute(sql`
      with agg as (
        select date_trunc(${unit}, ${transactions.createdAt} at time zone ${zone}) as bucket, ${key} as key,
               count(*) as n, coalesce(sum(${transactions.amount}), 0) as volume
        from ${transactions}
        where ${where} and ${transactions.currency} = ${query.currency}
        group by 1, 2
      ),
      keys as (select distinct key from agg),
      series as (select ${bucketSeries} as bucket)
      select k.key, coalesce(agg.n, 0)::text as n, coalesce(agg.volume, 0)::text as volume
      from keys k cross join series s
      left join agg on agg.key = k.key and agg.bucket = s.bucket
      order by k.key, s.bucket`),
  );
  const series: ChartSeries[] = [];
  for (let i = 0; i < rows.length; i += count) {
    const slice = rows.slice(i, i + count);
    const key = query.groupBy === 'APPLICATION' ? (appNames.get(slice[0]!.key) ?? slice[0]!.key) : slice[0]!.key;
    series.push({ key, counts: slice.map((r) => Number(r.n)), volumes: slice.map((r) => Number(r.volume)) });
  }
  series.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { interval: query.interval, groupBy: query.groupBy, currency: query.currency, labels, series };
}
