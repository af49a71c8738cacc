/**
 * The dashboard chart's statements: the labels of a run of time buckets of a zone, and the count
 * and net volume of transactions per (key, bucket), every bucket included (`generate_series`), with
 * `date_trunc` placing each transaction in the wall-clock buckets of the zone. One statement
 * each, whatever the volume; the aggregate runs on the (application_id, created_at) index.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { netAmountSql } from './net-amount.ts';

/** What the chart groups transactions by. */
export type ChartKey = 'STATUS' | 'PROVIDER' | 'APPLICATION';

/**
 * A run of buckets of `unit` in the zone `timeZone` (an IANA name the database knows): from the
 * midnight `daysBefore` days before the day holding `now`, to the last bucket of that day.
 */
export interface BucketRun {
  now: Date;
  timeZone: string;
  unit: 'hour' | 'day';
  daysBefore: number;
}

/** Key of a transaction for `groupBy` (SQL); a missing provider shows as `NONE`, an application as its id. */
function keyOf(groupBy: ChartKey): SQL {
  switch (groupBy) {
    case 'STATUS':
      return sql`${transactions.status}`;
    case 'PROVIDER':
      return sql`coalesce(${transactions.paymentMethod}, 'NONE')`;
    case 'APPLICATION':
      return sql`${transactions.applicationId}::text`;
  }
}

/** The buckets of `run` as a `generate_series` of wall-clock times of its zone. */
function bucketSeries(run: BucketRun): SQL {
  const today = sql`date_trunc('day', ${run.now.toISOString()}::timestamptz at time zone ${run.timeZone})`;
  return sql`generate_series(${today} - make_interval(days => ${run.daysBefore}::int),
                             ${today} + interval '1 day' - ${`1 ${run.unit}`}::interval,
                             ${`1 ${run.unit}`}::interval)`;
}

/** The labels of `run`'s buckets, in order: `HH24:00` for hours, `YYYY-MM-DD` for days. */
export async function bucketLabels(db: Db, run: BucketRun): Promise<string[]> {
  const format = run.unit === 'hour' ? 'HH24:00' : 'YYYY-MM-DD';
  const rows = rowsOf<{ label: string }>(await db.execute(sql`select to_char(b, ${format}) as label from ${bucketSeries(run)} as b order by b`));
  return rows.map((r) => r.label);
}

/**
 * For each key present among the transactions matching `where` in `currency` within `run`, one
 * row per bucket of `run` in order (0 where it has none): the count and Σ net amount (base units,
 * `netAmountSql`: a pay-in less its fee, as SharePay's chart sums them). Rows are ordered by key,
 * then bucket.
 */
export async function bucketTotals(
  db: Db,
  run: BucketRun,
  input: { where: SQL; currency: string; groupBy: ChartKey },
): Promise<{ key: string; count: number; volume: number }[]> {
  const rows = rowsOf<{ key: string; n: string; volume: string }>(
    await db.execute(sql`
      with agg as (
        select date_trunc(${run.unit}, ${transactions.createdAt} at time zone ${run.timeZone}) as bucket, ${keyOf(input.groupBy)} as key,
               count(*) as n, coalesce(sum(${netAmountSql()}), 0) as volume
        from ${transactions}
        where ${input.where} and ${transactions.currency} = ${input.currency}
        group by 1, 2
      ),
      keys as (select distinct key from agg),
      series as (select ${bucketSeries(run)} as bucket)
      select k.key, coalesce(agg.n, 0)::text as n, coalesce(agg.volume, 0)::text as volume
      from keys k cross join series s
      left join agg on agg.key = k.key and agg.bucket = s.bucket
      order by k.key, s.bucket`),
  );
  return rows.map((r) => ({ key: r.key, count: Number(r.n), volume: Number(r.volume) }));
}
