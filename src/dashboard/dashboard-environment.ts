/**
 * The environment of a dashboard route when the caller sends none (SharePay's dashboard has no
 * TEST/LIVE switch and never sends `environment`). The default follows the merchant: LIVE once it
 * has an active LIVE API key or any LIVE transaction, TEST before — so a sandbox merchant sees its
 * TEST money and withdraws from the sandbox, and a merchant who went live sees its real money.
 * Every dashboard route that takes an `environment` resolves it here, and nowhere else.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { apiKeys, applications, transactions } from '../db/schema.ts';

/** An environment: LIVE (real rails) or TEST (sandbox rail). */
export type DashboardEnvironment = 'LIVE' | 'TEST';

/**
 * `requested` when the caller sent one; else LIVE if `merchantId` has an active LIVE key (on an
 * application not deleted) or any LIVE transaction (deleted applications included: their history
 * stays), TEST otherwise. One query of two `exists`, evaluated in order: an active LIVE key
 * decides at once; without one, the merchant's transactions are read through the
 * (application_id, created_at) index until a LIVE one — all of them for a TEST-only merchant.
 */
export async function dashboardEnvironment(db: Db, merchantId: string, requested: DashboardEnvironment | undefined): Promise<DashboardEnvironment> {
  if (requested) return requested;
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
  return row?.isLive === true ? 'LIVE' : 'TEST';
}
