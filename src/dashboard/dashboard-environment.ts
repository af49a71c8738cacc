/**
 * The environment of a dashboard route when the caller sends none (SharePay's dashboard has no
 * TEST/LIVE switch and never sends `environment`). The default follows the merchant: LIVE once it
 * has an active LIVE API key or any LIVE transaction, TEST before — so a sandbox merchant sees its
 * TEST money and withdraws from the sandbox, and a merchant who went live sees its real money.
 * Every dashboard route that takes an `environment` resolves it here, and nowhere else.
 */
import type { Db } from '../db/client.ts';
import { hasGoneLive } from '../db/queries/dashboard.ts';

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
  return (await hasGoneLive(db, merchantId)) ? 'LIVE' : 'TEST';
}
