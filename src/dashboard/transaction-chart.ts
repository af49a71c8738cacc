/**
 * The dashboard chart (`GET /api/v1/merchants/transactions/chart`): counts and volumes of a
 * merchant's transactions per time bucket and per key (status, provider or application), computed
 * in SQL — `generate_series` makes every bucket (empty ones included), `date_trunc` places each
 * transaction, the aggregate runs on the (application_id, created_at) index, without a join — so
 * the answer is one query whatever the volume.
 *
 * Buckets are UTC like the dashboard's "today": TODAY is the 24 hours of the current UTC day
 * (labels `HH:00`), LAST_7_DAYS and LAST_30_DAYS are whole UTC days ending today (labels
 * `YYYY-MM-DD`). One currency at a time; volumes in its base unit.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
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

/** Bucket width and count of an interval, ending with the bucket holding `now`. */
function buckets(interval: ChartInterval, now: Date): { unit: 'hour' | 'day'; first: Date; count: number } {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (interval === 'TODAY') return { unit: 'hour', first: new Date(day), count: 24 };
  const days = interval === 'LAST_7_DAYS' ? 7 : 30;
  return { unit: 'day', first: new Date(day - (days - 1) * 86_400_000), count: days };
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
 * the interval's) in `currency`. Series are sorted by key; a key appears when it has at least
 * one transaction in the interval.
 */
export async function transactionChart(
  db: Db,
  clock: Clock,
  merchantId: string,
  query: { interval: ChartInterval; groupBy: ChartGroup; currency: string | null; filter: TransactionFilter },
): Promise<TransactionChart> {
  const { unit, first, count } = buckets(query.interval, clock.now());
  const step = unit === 'hour' ? 3_600_000 : 86_400_000;
  const end = new Date(first.getTime() + count * step);
  const labelFormat = unit === 'hour' ? 'HH24:00' : 'YYYY-MM-DD';
  const labelRows = rowsOf<{ label: string }>(
    await db.execute(sql`
      select to_char(b, ${labelFormat}) as label
      from generate_series(${first.toISOString()}::timestamptz at time zone 'UTC',
                           ${new Date(end.getTime() - step).toISOString()}::timestamptz at time zone 'UTC',
                           ${`1 ${unit}`}::interval) as b
      order by b`),
  );
  const labels = labelRows.map((r) => r.label);
  if (query.currency === null) return { interval: query.interval, groupBy: query.groupBy, currency: null, labels, series: [] };

  const { where, appNames } = await transactionWhere(db, merchantId, { ...query.filter, from: first, to: end });
  const key = keyOf(query.groupBy);
  // Every (bucket, key) pair: generate_series × the keys present, left-joined to the aggregate.
  const rows = rowsOf<{ key: string; n: string; volume: string }>(
    await db.execute(sql`
      with agg as (
        select date_trunc(${unit}, ${transactions.createdAt} at time zone 'UTC') as bucket, ${key} as key,
               count(*) as n, coalesce(sum(${transactions.amount}), 0) as volume
        from ${transactions}
        where ${where} and ${transactions.currency} = ${query.currency}
        group by 1, 2
      ),
      keys as (select distinct key from agg),
      series as (
        select generate_series(${first.toISOString()}::timestamptz at time zone 'UTC',
                               ${new Date(end.getTime() - step).toISOString()}::timestamptz at time zone 'UTC',
                               ${`1 ${unit}`}::interval) as bucket
      )
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
