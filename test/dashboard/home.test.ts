/**
 * The home screen's reads of Kolo's web app (`GET /api/v1/merchants/home/today` and `…/period`):
 * today's volume, count and last transactions in the reader's day, and over 7 or 30 days the
 * success rate of pay-ins and their daily volume — the same figures as the transaction stats and
 * the chart, computed by the server. Payments go through the merchant API and the sandbox rail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess, PATHS, checkoutBody } from '../helpers/merchant-api.ts';
import { chargeTo, transferTo } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let empty: DashboardAccount;
let shop: Tenant;
const refs = {} as Record<'paid' | 'declined' | 'paidToday' | 'checkout' | 'payout', string>;

const DAY = 86_400_000;
const as = (who: DashboardAccount, path: string) => asAccount(h, who.accessToken, 'GET', path);

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h);
  empty = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
  // Yesterday: one paid charge, one declined. Today: a paid charge, a pending checkout, a transfer.
  refs.paid = await chargeTo(h, shop, 'SUCCESS', 'CMD-1');
  refs.declined = await chargeTo(h, shop, 'FAILED', 'CMD-2');
  h.clock.advance(DAY);
  refs.paidToday = await chargeTo(h, shop, 'SUCCESS', 'CMD-3');
  refs.payout = await transferTo(h, shop, 'SUCCESS');
  refs.checkout = expectSuccess(await h.request('POST', PATHS.checkout, { key: shop.key, body: checkoutBody({ merchantReference: 'CMD-4' }) }), 201).reference;
  // The day went by: fresh access tokens.
  for (const account of [merchant, empty]) account.accessToken = (await login(h, account.email, account.password)).accessToken;
}, 120_000);
afterAll(async () => h?.close());

describe('GET /api/v1/merchants/home/today', () => {
  it("counts today's transactions and the money received, lists the newest", async () => {
    const data = expectSuccess(await as(merchant, '/api/v1/merchants/home/today?environment=TEST&timeZone=UTC'), 200);
    // Today: the paid charge, the transfer and the pending checkout; only the paid charge is money received.
    expect(data).toMatchObject({ currency: 'XAF', volume: 5000, count: 3 });
    expect(data.lastTransactions.map((t: { reference: string }) => t.reference)).toEqual([refs.checkout, refs.payout, refs.paidToday, refs.declined, refs.paid]);
    expect(data.lastTransactions[1]).toMatchObject({ direction: 'PAY_OUT', payerAccount: '237677000001' });
  });

  it('is empty in LIVE, and for a merchant without application', async () => {
    expect(expectSuccess(await as(merchant, '/api/v1/merchants/home/today?environment=LIVE'), 200)).toEqual({ currency: 'XAF', volume: 0, count: 0, lastTransactions: [] });
    expect(expectSuccess(await as(empty, '/api/v1/merchants/home/today'), 200)).toEqual({ currency: null, volume: 0, count: 0, lastTransactions: [] });
  });

  it('refuses a time zone that is not an IANA name', async () => {
    expectError(await as(merchant, '/api/v1/merchants/home/today?timeZone=%2B03:00'), 400, 'INVALID_PARAMETER');
  });
});

describe('GET /api/v1/merchants/home/period', () => {
  it('gives the success rate of finished pay-ins and the daily volume of the chart', async () => {
    const data = expectSuccess(await as(merchant, '/api/v1/merchants/home/period?environment=TEST&timeZone=UTC'), 200);
    // Finished pay-ins: two paid, one declined (the pending checkout is not finished).
    expect(data.interval).toBe('LAST_7_DAYS');
    expect(data.successRate).toBeCloseTo(2 / 3, 10);
    expect(data.labels).toHaveLength(7);
    // The chart's volumes of SUCCESS and REFUNDED, summed per day by the server.
    const chart = expectSuccess(await as(merchant, '/api/v1/merchants/transactions/chart?environment=TEST&timeZone=UTC&interval=LAST_7_DAYS&groupBy=STATUS'), 200);
    const moved = chart.series.filter((s: { key: string }) => s.key === 'SUCCESS' || s.key === 'REFUNDED');
    expect(data.labels).toEqual(chart.labels);
    expect(data.volumes).toEqual(chart.labels.map((_: string, i: number) => moved.reduce((sum: number, s: { volumes: number[] }) => sum + s.volumes[i]!, 0)));
    expect(data.volumes.slice(-2).every((volume: number) => volume > 0)).toBe(true);
  });

  it('covers 30 days on demand, and has no rate without a finished payment', async () => {
    const month = expectSuccess(await as(merchant, '/api/v1/merchants/home/period?environment=TEST&interval=LAST_30_DAYS'), 200);
    expect(month).toMatchObject({ interval: 'LAST_30_DAYS', currency: 'XAF' });
    expect(month.labels).toHaveLength(30);
    const none = expectSuccess(await as(empty, '/api/v1/merchants/home/period'), 200);
    expect(none).toMatchObject({ currency: null, successRate: null });
    expect(none.volumes).toEqual(Array(7).fill(0));
    expectError(await as(merchant, '/api/v1/merchants/home/period?interval=LAST_90_DAYS'), 400, 'INVALID_PARAMETER');
  });
});
