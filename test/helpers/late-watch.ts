/**
 * The setting of the late-watch tests (late successes, held pay-outs): a harness with a
 * dashboard merchant, the MTN_MOMO_CM rail giving up after 60 s (the sandbox's late number,
 * …198, succeeds after 120 s), TEST applications of that merchant with a webhook URL, and a
 * poller tick after a step of the manual clock.
 */
import { eq } from 'drizzle-orm';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { providers } from '../../src/db/schema.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from './dashboard.ts';

/** The rail deadline the late-watch tests set on MTN_MOMO_CM, seconds. */
export const LATE_RAIL_DEADLINE_SECONDS = 60;

/** A started late-watch setting (see the file comment). */
export interface LateWatchSetting {
  h: Harness;
  merchant: DashboardAccount;
  /** A new TEST application `name` of the merchant (XAF, webhook URL set) and its key. */
  tenant(name: string): Promise<Tenant>;
  /** Advances the manual clock by `ms` and runs one poller tick. */
  tick(ms: number): Promise<void>;
  /** Sets MTN_MOMO_CM's deadline, seconds (restore `LATE_RAIL_DEADLINE_SECONDS` after). */
  setRailDeadline(seconds: number): Promise<void>;
}

/** Starts the late-watch setting. */
export async function startLateWatchSetting(): Promise<LateWatchSetting> {
  const h = await startHarness({ ...DASHBOARD_TEST_ENV });
  const merchant = await createDashboardAccount(h);
  const setRailDeadline = async (seconds: number) => {
    await h.services.db.update(providers).set({ pendingTimeoutSeconds: seconds }).where(eq(providers.code, 'MTN_MOMO_CM'));
  };
  await setRailDeadline(LATE_RAIL_DEADLINE_SECONDS);
  return {
    h,
    merchant,
    async tenant(name) {
      const app = await createApplication(h.services, { merchantId: merchant.accountId, name, currency: 'XAF', webhookUrl: 'https://merchant.example/hooks' });
      const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
      return { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
    },
    async tick(ms) {
      h.clock.advance(ms);
      await pollOnce(h.services);
    },
    setRailDeadline,
  };
}
