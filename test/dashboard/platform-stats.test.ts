/**
 * The administrators' statistics over a period, the public counters, and the exact shapes the
 * dashboard reads (`provider` on the profile, KYC levels and account statuses with today's values
 * kept as aliases, page objects with `number` and `page`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { transactions } from '../../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, loginStaff, DASHBOARD_TEST_ENV, login, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo, transferTo } from '../helpers/webhooks.ts';

let h: Harness;
let admin: StaffAccount;
let support: StaffAccount;
let merchant: DashboardAccount;
let shop: Tenant;

const as = (who: DashboardAccount, method: string, path: string, body?: unknown) =>
  asAccount(h, who.accessToken, method, path, body === undefined ? {} : { body });

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  merchant = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
});
afterAll(async () => h?.close());

describe('GET /api/v1/admin/stats/overview', () => {
  it('merchants, counts, volumes and success rate by rail over a period, for ADMIN and SUPPORT', async () => {
    await chargeTo(h, shop, 'SUCCESS');
    await chargeTo(h, shop, 'SUCCESS');
    await chargeTo(h, shop, 'FAILED');
    await transferTo(h, shop, 'SUCCESS');
    for (const who of [admin, support]) Object.assign(who, await loginStaff(h, who));

    const test = expectSuccess(await as(support, 'GET', '/api/v1/admin/stats/overview?environment=TEST'), 200);
    expect(test.environment).toBe('TEST');
    expect(test.merchants).toMatchObject({ total: 1, active: 1, newInPeriod: 1 });
    expect(test.transactions).toEqual({ count: 4, successCount: 3, failedCount: 1, pendingCount: 0, successRate: 0.75 });
    expect(test.volumes).toEqual([{ currency: 'XAF', payInVolume: 10_000, payOutVolume: 2000 }]);
    expect(test.byRail).toEqual([
      { provider: 'MTN_MOMO_CM', currency: 'XAF', count: 4, successCount: 3, failedCount: 1, pendingCount: 0, successRate: 0.75, volume: 12_000 },
    ]);

    // LIVE is the default and holds nothing yet; a period before the payments is empty too.
    const live = expectSuccess(await as(admin, 'GET', '/api/v1/admin/stats/overview'), 200);
    expect(live).toMatchObject({ environment: 'LIVE', transactions: { count: 0, successRate: null }, byRail: [], volumes: [] });
    const before = expectSuccess(await as(admin, 'GET', '/api/v1/admin/stats/overview?environment=TEST&from=2026-10-01&to=2026-10-31'), 200);
    expect(before).toMatchObject({ transactions: { count: 0 }, merchants: { total: 1, newInPeriod: 0 } });
    expect(before.from).toBe('2026-10-01T00:00:00.000');
  });

  it('refuses merchants (403) and bad periods (400 INVALID_PARAMETER)', async () => {
    expectError(await as(merchant, 'GET', '/api/v1/admin/stats/overview'), 403, 'ACCESS_DENIED');
    expectError(await as(admin, 'GET', '/api/v1/admin/stats/overview?from=2026-11-30&to=2026-11-01'), 400, 'INVALID_PARAMETER');
    expectError(await as(admin, 'GET', '/api/v1/admin/stats/overview?from=demain'), 400, 'INVALID_PARAMETER');
    expectError(await as(admin, 'GET', '/api/v1/admin/stats/overview?from=2099-01-01'), 400, 'INVALID_PARAMETER');
    expectError(await as(admin, 'GET', '/api/v1/admin/stats/overview?environment=PROD'), 400, 'INVALID_PARAMETER');
  });
});

describe('GET /api/v1/public/stats', () => {
  it('counts active merchants, LIVE payments that moved money and active rails, without credentials', async () => {
    const first = expectSuccess(await h.request('GET', '/api/v1/public/stats'), 200);
    expect(Object.keys(first).sort()).toEqual(['merchantCount', 'paymentMethodCount', 'transactionCount']);
    expect(first.merchantCount).toBe(1);
    expect(first.transactionCount).toBe(0); // TEST traffic is not counted
    const rails = expectSuccess(await as(admin, 'GET', '/api/v1/admin/providers'), 200);
    expect(first.paymentMethodCount).toBe(rails.filter((r: { active: boolean }) => r.active).length);

    const now = h.clock.now();
    await h.services.db.insert(transactions).values({
      id: randomUUID(),
      reference: 'PI-00000000AB12',
      applicationId: shop.applicationId,
      direction: 'PAY_IN',
      type: 'CHARGE',
      environment: 'LIVE',
      status: 'SUCCESS',
      amount: 1000,
      currency: 'XAF',
      paymentMethod: 'MTN_MOMO_CM',
      createdAt: now,
      updatedAt: now,
    });
    // Cached for a minute, then counted again.
    expect(expectSuccess(await h.request('GET', '/api/v1/public/stats'), 200).transactionCount).toBe(0);
    h.clock.advance(61_000);
    expect(expectSuccess(await h.request('GET', '/api/v1/public/stats'), 200).transactionCount).toBe(1);
  });
});

describe('shapes the dashboard reads', () => {
  it('GET /merchants/me carries provider LOCAL', async () => {
    const fresh = await createDashboardAccount(h);
    const me = expectSuccess(await as(fresh, 'GET', '/api/v1/merchants/me'), 200);
    expect(me.provider).toBe('LOCAL');
    const listed = expectSuccess(await as(fresh, 'PATCH', '/api/v1/merchants/me', { fullName: 'Awa' }), 200);
    expect(listed.provider).toBe('LOCAL');
  });

  it('KYC levels NONE, BASIC, ADVANCED, FULL, and VERIFIED still accepted', async () => {
    const m = await createDashboardAccount(h);
    const admin2 = await createStaffAccount(h, { role: 'ADMIN' });
    for (const kycLevel of ['NONE', 'BASIC', 'ADVANCED', 'FULL', 'VERIFIED']) {
      expect(expectSuccess(await as(admin2, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/kyc`, { kycLevel }), 200).kycLevel).toBe(kycLevel);
    }
    expectError(await as(admin2, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/kyc`, { kycLevel: 'GOLD' }), 400, 'VALIDATION_ERROR');
  });

  it('account statuses ACTIVE, INACTIVE, SUSPENDED, PENDING_VERIFICATION, and DELETED still accepted; any but ACTIVE refuses logins', async () => {
    const admin2 = await createStaffAccount(h, { role: 'ADMIN' });
    const m = await createDashboardAccount(h);
    for (const status of ['INACTIVE', 'SUSPENDED', 'PENDING_VERIFICATION', 'DELETED']) {
      expect(expectSuccess(await as(admin2, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/status`, { status }), 200).status).toBe(status);
      const refused = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
      expect(refused.status, status).not.toBe(200);
      expect(expectSuccess(await as(admin2, 'GET', `/api/v1/admin/merchants?status=${status}`), 200).content.map((a: { id: string }) => a.id)).toContain(
        m.accountId,
      );
      expect(expectSuccess(await as(admin2, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/status`, { status: 'ACTIVE' }), 200).status).toBe('ACTIVE');
    }
    await login(h, m.email, m.password);
    expectError(await as(admin2, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/status`, { status: 'BANNED' }), 400, 'VALIDATION_ERROR');
  });

  it('page objects carry both number and page', async () => {
    const merchants = expectSuccess(await as(admin, 'GET', '/api/v1/admin/merchants?page=0&size=1'), 200);
    expect(merchants).toMatchObject({ number: 0, page: 0, size: 1 });
    const second = expectSuccess(await as(admin, 'GET', '/api/v1/admin/merchants?page=1&size=1'), 200);
    expect(second).toMatchObject({ number: 1, page: 1 });
    const deliveries = expectSuccess(await as(merchant, 'GET', `/api/v1/merchants/apps/${shop.applicationId}/webhook/deliveries?page=2&size=5`), 200);
    expect(deliveries).toMatchObject({ number: 2, page: 2, size: 5 });
  });
});
