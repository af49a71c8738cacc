/**
 * Withdrawals, at the paths SharePay's dashboard calls: accounts, configuration, a manual
 * withdrawal through the funded pay-out path, and THRESHOLD / PERIODIC / INSTANT runs from the
 * background jobs — once per period, idempotently, also when runs overlap.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactions } from '../../src/db/schema.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { periodKey, runAutomaticWithdrawals, sweepAmount } from '../../src/withdrawals/index.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo, settle } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';

const OPENING = 1_000_000;
const BASE = '/api/v1/merchants/withdrawals';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

async function merchantWithApp(): Promise<{ m: DashboardAccount; t: Tenant }> {
  const m = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: m.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  return { m, t: { merchantId: m.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id } };
}

const as = (m: DashboardAccount, method: string, path: string, body?: unknown) => asAccount(h, m.accessToken, method, path, { body });

async function withdrawalsOf(t: Tenant) {
  return h.services.db.select().from(transactions).where(and(eq(transactions.applicationId, t.applicationId), eq(transactions.type, 'WITHDRAWAL')));
}

describe('withdrawal accounts', () => {
  it('add (normalised; the first is the default), list, choose the default, delete; another merchant cannot touch them', async () => {
    const { m } = await merchantWithApp();
    const rails = expectSuccess(await as(m, 'GET', '/api/v1/merchants/providers'), 200);
    const railName = (code: string) => rails.find((r: { code: string }) => r.code === code).name;
    expect(railName('MTN_MOMO_CM')).toMatch(/MTN/);
    const first = expectSuccess(await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '+237 677 00 00 01', accountName: 'Awa' }), 201);
    expect(first).toMatchObject({ providerCode: 'MTN_MOMO_CM', accountNumber: '237677000001', accountName: 'Awa', isDefault: true });
    // The dashboard shows each account "Via" its rail: name and type, on every answer that carries an account.
    expect(first).toMatchObject({ providerName: railName('MTN_MOMO_CM'), providerType: 'MOBILE_MONEY' });
    const second = expectSuccess(await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'ORANGE_MONEY_CM', accountNumber: '699000001', accountName: 'Awa OM' }), 201);
    expect(second.isDefault).toBe(false);
    const switched = expectSuccess(await as(m, 'PATCH', `${BASE}/accounts/${second.id}/default`), 200);
    expect(switched).toMatchObject({ isDefault: true, providerName: railName('ORANGE_MONEY_CM'), providerType: 'MOBILE_MONEY' });
    const list = expectSuccess(await as(m, 'GET', `${BASE}/accounts`), 200);
    // Same creation time on the manual clock: compare in code order.
    expect(list.map((a: { providerCode: string; providerName: string; providerType: string }) => [a.providerCode, a.providerName, a.providerType]).sort()).toEqual([
      ['MTN_MOMO_CM', railName('MTN_MOMO_CM'), 'MOBILE_MONEY'],
      ['ORANGE_MONEY_CM', railName('ORANGE_MONEY_CM'), 'MOBILE_MONEY'],
    ]);
    expect(Object.fromEntries(list.map((a: { id: string; isDefault: boolean }) => [a.id, a.isDefault]))).toEqual({
      [first.id]: false,
      [second.id]: true,
    });
    expectError(await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '12', accountName: 'X' }), 400, 'VALIDATION_ERROR');
    expectError(await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'NOPE_XX', accountNumber: '677000001', accountName: 'X' }), 404, 'PROVIDER_NOT_FOUND');

    const { m: other } = await merchantWithApp();
    expectError(await as(other, 'DELETE', `${BASE}/accounts/${first.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await as(other, 'PATCH', `${BASE}/accounts/${first.id}/default`), 404, 'RESOURCE_NOT_FOUND');
    expect((await as(m, 'DELETE', `${BASE}/accounts/${first.id}`)).status).toBe(204);
    expect(expectSuccess(await as(m, 'GET', `${BASE}/accounts`), 200)).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('reads null (MANUAL) until set; checks what each mode needs', async () => {
    const { m } = await merchantWithApp();
    expect(expectSuccess(await as(m, 'GET', `${BASE}/config`), 200)).toBeNull();
    expectError(await as(m, 'PUT', `${BASE}/config`, { mode: 'INSTANT' }), 400, 'VALIDATION_ERROR');
    await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' });
    const noThreshold = await as(m, 'PUT', `${BASE}/config`, { mode: 'THRESHOLD' });
    expectError(noThreshold, 400, 'VALIDATION_ERROR');
    expect(noThreshold.json.data).toHaveProperty('thresholdAmount');
    expectError(await as(m, 'PUT', `${BASE}/config`, { mode: 'PERIODIC' }), 400, 'VALIDATION_ERROR');
    const set = expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'PERIODIC', period: 'WEEKLY' }), 200);
    // A TEST-only merchant: its configuration is TEST unless it says otherwise.
    expect(set).toMatchObject({ mode: 'PERIODIC', period: 'WEEKLY', thresholdAmount: null, currency: 'XAF', environment: 'TEST', lastTriggeredAt: null });
    expect(set.account).toMatchObject({ accountNumber: '237677000001', isDefault: true, providerName: expect.stringMatching(/MTN/), providerType: 'MOBILE_MONEY' });
    expect(expectSuccess(await as(m, 'GET', `${BASE}/config?currency=XAF`), 200)).toMatchObject({ mode: 'PERIODIC' });
    expect(expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'MANUAL' }), 200)).toMatchObject({ mode: 'MANUAL', period: null });
  });
});

describe('manual withdrawal', () => {
  it('is a funded pay-out from the application balance to the given account', async () => {
    const { m, t } = await merchantWithApp();
    const body = { amount: 250_000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '677000001', beneficiaryName: 'Awa', environment: 'TEST' };
    const created = expectSuccess(await as(m, 'POST', `${BASE}/withdraw`, body), 201);
    expect(created).toMatchObject({ status: 'PENDING', amount: 250_000, feeAmount: 0, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa' });
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - 250_000, pending: 0, reserved: 250_000 });
    await settle(h);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - 250_000, pending: 0, reserved: 0 });
    expectError(await as(m, 'POST', `${BASE}/withdraw`, { ...body, amount: 750_001 }), 400, 'INSUFFICIENT_BALANCE');
    // LIVE has no balance (and, here, no connector): refused before anything is written.
    expect((await as(m, 'POST', `${BASE}/withdraw`, { ...body, environment: 'LIVE' })).status).toBe(404);
    const staff = await createStaffAccount(h, { role: 'ADMIN' });
    expectError(await as(staff, 'POST', `${BASE}/withdraw`, body), 403, 'ACCESS_DENIED');
  });
});

describe('automatic withdrawals from the background jobs', () => {
  it('THRESHOLD sweeps an application once its available balance reaches the threshold', async () => {
    const { m, t } = await merchantWithApp();
    await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' });
    expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'THRESHOLD', thresholdAmount: OPENING + 2000, environment: 'TEST' }), 200);
    await pollOnce(h.services);
    expect(await withdrawalsOf(t)).toHaveLength(0);
    await chargeTo(h, t, 'SUCCESS'); // +4 925 → above the threshold; that tick sweeps
    const made = await withdrawalsOf(t);
    expect(made).toHaveLength(1);
    // Capped at the rail's maximum (1 000 000); the rest stays.
    expect(made[0]).toMatchObject({ amount: 1_000_000, beneficiaryAccount: '237677000001', status: 'PENDING' });
    await settle(h);
    expect(await withdrawalsOf(t)).toHaveLength(1);
    expect(await tenantBalances(h, t)).toEqual({ available: 4925, pending: 0, reserved: 0 });
    expect(expectSuccess(await as(m, 'GET', `${BASE}/config`), 200).lastTriggeredAt).not.toBeNull();
  });

  it('PERIODIC runs once per period, even when runs overlap, and again in the next period', async () => {
    const { m, t } = await merchantWithApp();
    await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' });
    expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'PERIODIC', period: 'DAILY', environment: 'TEST' }), 200);
    await Promise.all([runAutomaticWithdrawals(h.services), runAutomaticWithdrawals(h.services), runAutomaticWithdrawals(h.services)]);
    expect(await withdrawalsOf(t)).toHaveLength(1);
    await chargeTo(h, t, 'SUCCESS');
    await pollOnce(h.services);
    expect(await withdrawalsOf(t)).toHaveLength(1);
    h.clock.advance(24 * 3_600_000);
    await pollOnce(h.services);
    await pollOnce(h.services);
    const made = await withdrawalsOf(t);
    expect(made).toHaveLength(2);
    expect(made.map((w) => w.amount).sort((a, b) => a - b)).toEqual([4925, 1_000_000]);
    await settle(h);
  });

  it('INSTANT sweeps whatever is available at every run', async () => {
    const { m, t } = await merchantWithApp();
    await as(m, 'POST', `${BASE}/accounts`, { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' });
    expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'INSTANT', environment: 'TEST' }), 200);
    await pollOnce(h.services);
    expect(await tenantBalances(h, t)).toEqual({ available: 0, pending: 0, reserved: OPENING });
    await chargeTo(h, t, 'SUCCESS');
    await pollOnce(h.services);
    expect((await tenantBalances(h, t)).available).toBe(0);
    expect(await withdrawalsOf(t)).toHaveLength(2);
    await expectSuccess(await as(m, 'PUT', `${BASE}/config`, { mode: 'MANUAL' }), 200);
    await settle(h);
  });
});

describe('sweepAmount and periodKey', () => {
  it('the largest amount whose amount + fee fits, within the rail limits', () => {
    const rail = { minAmount: 100, maxAmount: 1_000_000 };
    expect(sweepAmount(10_150, { basisPoints: 150, fixed: 0 }, rail)).toBe(10_000);
    expect(sweepAmount(10_151, { basisPoints: 150, fixed: 0 }, rail)).toBe(10_001);
    expect(sweepAmount(10_100, { basisPoints: 0, fixed: 100 }, rail)).toBe(10_000);
    expect(sweepAmount(99, { basisPoints: 0, fixed: 0 }, rail)).toBe(0);
    expect(sweepAmount(5_000_000, { basisPoints: 0, fixed: 0 }, rail)).toBe(1_000_000);
  });
  it('UTC periods: day, ISO week (Monday), month', () => {
    const sunday = new Date('2026-11-22T23:59:59Z');
    expect(periodKey(sunday, 'DAILY')).toBe('D:2026-11-22');
    expect(periodKey(sunday, 'WEEKLY')).toBe('W:2026-11-16');
    expect(periodKey(new Date('2026-11-23T00:00:00Z'), 'WEEKLY')).toBe('W:2026-11-23');
    expect(periodKey(sunday, 'MONTHLY')).toBe('M:2026-11');
  });
});
