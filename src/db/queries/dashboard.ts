/**
 * Statements of the dashboard's own reads that are not transaction lists: the bounds of a
 * reader's days and whether a merchant has gone live.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../client.ts';
import { apiKeys, applications, transactions } from '../schema.ts';

/**
 * The first instant of the day in `timeZone` (an IANA name) that is `daysBefore` days before the
 * day holding `now`, and the first instant of the day after `now`'s, computed with `AT TIME
 * ZONE` (days of 23 or 25 hours keep their length). Throws the driver's error, PostgreSQL's 22023
 * when it does not know the zone.
 */
export async function zoneDayBounds(db: Db, input: { now: Date; timeZone: string; daysBefore: number }): Promise<{ from: Date; to: Date }> {
  const [row] = rowsOf<{ from: string; to: string }>(
    await db.execute(sql`
      with today as (select date_trunc('day', ${input.now.toISOString()}::timestamptz at time zone ${input.timeZone}) as d)
      select (extract(epoch from (d - make_interval(days => ${input.daysBefore}::int)) at time zone ${input.timeZone}) * 1000)::bigint::text as from,
             (extract(epoch from (d + interval '1 day') at time zone ${input.timeZone}) * 1000)::bigint::text as to
      from today`),
  );
  // Epoch milliseconds: independent of the session's TimeZone setting.
  return { from: new Date(Number(row!.from)), to: new Date(Number(row!.to)) };
}

/**
 * True when `merchantId` has an active LIVE key on an application not deleted, or any LIVE
 * transaction (deleted applications included). One query of two `exists`, evaluated in order: an
 * active LIVE key decides at once; without one, the merchant's transactions are read through the
 * (application_id, created_at) index until a LIVE one — all of them for a TEST-only merchant.
 */
export async function hasGoneLive(db: Db, merchantId: string): Promise<boolean> {
  const [row] = rowsOf<{ isLive: boolean }>(
    await db.execute(sql`
      select exists (
               select 1 from ${apiKeys} k join ${applications} a on a.id = k.application_id
               where a.merchant_id = ${merchantId} and a.deleted_at is null and k.active and k.environment = 'LIVE'
             )
          or exists (
               select 1 from ${transactions} t
               where t.application_id in (select id from ${applications} where merchant_id = ${merchantId})
                 and t.environment = 'LIVE'
             ) as "isLive"`),
  );
  return row?.isLive === true;
}
