import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';

let h: Harness;
let admin: StaffAccount;
let support: StaffAccount;
let merchant: DashboardAccount;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  merchant = await createDashboardAccount(h);
});
afterAll(async () => h.close());

const as = (a: DashboardAccount, method: string, path: string, body?: unknown) =>
  asAccount(h, a.accessToken, method, path, body === undefined ? {} : { body });

describe('merchants', () => {
  it('pages merchants with the page object, filters by status, reads one', async () => {
    const page = await as(support, 'GET', '/api/v1/admin/merchants?page=0&size=1');
    expect(page.status).toBe(200);
    expect(page.json.data).toMatchObject({ size: 1, number: 0, first: true });
    expect(page.json.data.content).toHaveLength(1);
    expect(page.json.data.totalElements).toBeGreaterThanOrEqual(1);
    const suspended = await as(admin, 'GET', '/api/v1/admin/merchants?status=SUSPENDED');
    expect(suspended.json.data.content).toEqual([]);
    const one = await as(support, 'GET', `/api/v1/admin/merchants/${merchant.accountId}`);
    expect(one.json.data).toMatchObject({ id: merchant.accountId, email: merchant.email, role: 'MERCHANT' });
    expect((await as(admin, 'GET', `/api/v1/admin/merchants/${admin.accountId}`)).json.code).toBe('USER_NOT_FOUND');
    const overview = await as(admin, 'GET', `/api/v1/admin/merchants/${merchant.accountId}/overview`);
    expect(overview.json.data).toMatchObject({ applicationCount: 0, transactionCount: 0 });
    expect((await as(admin, 'GET', '/api/v1/admin/merchants?size=101')).json.code).toBe('INVALID_PARAMETER');
  });

  it('sets the KYC level, suspends (sessions closed, login refused) and reactivates', async () => {
    const m = await createDashboardAccount(h);
    const kyc = await as(admin, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/kyc`, { kycLevel: 'VERIFIED' });
    expect(kyc.json.data.kycLevel).toBe('VERIFIED');
    expect((await as(admin, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/kyc`, { kycLevel: 'GOLD' })).status).toBe(400);
    const suspended = await as(admin, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/status`, { status: 'SUSPENDED' });
    expect(suspended.json.data.status).toBe('SUSPENDED');
    // Suspension closes the merchant's sessions: its access token stops working at once.
    expect((await as(m, 'GET', '/api/v1/merchants/me')).status).toBe(401);
    const refused = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
    expect(refused.json.code).toBe('ACCOUNT_NOT_ACTIVE');
    await as(admin, 'PATCH', `/api/v1/admin/merchants/${m.accountId}/status`, { status: 'ACTIVE' });
    await login(h, m.email, m.password);
  });
});

describe('staff', () => {
  it('creates SUPPORT, who can log in; suspends and deletes; an admin cannot lock themselves out', async () => {
    const created = await as(admin, 'POST', '/api/v1/admin/staff', {
      fullName: 'Agent Support',
      email: 'agent@example.test',
      password: 'mot-de-passe-agent',
      role: 'SUPPORT',
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ role: 'SUPPORT', status: 'ACTIVE' });
    const dup = await as(admin, 'POST', '/api/v1/admin/staff', {
      fullName: 'Agent',
      email: 'AGENT@example.test',
      password: 'mot-de-passe-agent',
      role: 'ADMIN',
    });
    expect(dup.json.code).toBe('EMAIL_ALREADY_EXISTS');
    const bad = await as(admin, 'POST', '/api/v1/admin/staff', { fullName: 'M', email: 'm@example.test', password: 'mot-de-passe-m', role: 'MERCHANT' });
    expect(bad.status).toBe(400);
    await login(h, 'agent@example.test', 'mot-de-passe-agent');

    const list = await as(admin, 'GET', '/api/v1/admin/staff');
    expect(list.json.data.content.map((s: { email: string }) => s.email)).toContain('agent@example.test');
    const id = created.json.data.id;
    expect((await as(admin, 'PATCH', `/api/v1/admin/staff/${id}/status`, { status: 'SUSPENDED' })).json.data.status).toBe('SUSPENDED');
    expect((await as(admin, 'DELETE', `/api/v1/admin/staff/${id}`)).status).toBe(204);
    expect((await h.request('POST', '/api/v1/auth/login', { body: { email: 'agent@example.test', password: 'mot-de-passe-agent' } })).status).toBe(403);
    expect((await as(admin, 'DELETE', `/api/v1/admin/staff/${admin.accountId}`)).json.code).toBe('ACCESS_DENIED');
    expect((await as(admin, 'PATCH', `/api/v1/admin/staff/${merchant.accountId}/status`, { status: 'SUSPENDED' })).json.code).toBe('USER_NOT_FOUND');
  });
});

describe('providers', () => {
  it('lists, creates, updates limits and fees, and toggles a rail; the merchant API follows', async () => {
    const list = await as(support, 'GET', '/api/v1/admin/providers');
    expect(list.json.data.map((p: { code: string }) => p.code)).toContain('MTN_MOMO_CM');
    const created = await as(admin, 'POST', '/api/v1/admin/providers', {
      code: 'MOOV_MONEY_TG',
      name: 'Moov Money Togo',
      type: 'MOBILE_MONEY',
      country: 'TG',
      currency: 'XOF',
      feePercentage: 1.25,
      feeFixed: 0,
      minAmount: 100,
      maxAmount: 500000,
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ code: 'MOOV_MONEY_TG', operator: 'MOOV_MONEY', feePercentage: 1.25, active: true });
    expect((await as(admin, 'POST', '/api/v1/admin/providers', { ...created.json.data, id: undefined })).json.code).toBe('PROVIDER_ALREADY_EXISTS');
    const bad = await as(admin, 'POST', '/api/v1/admin/providers', { code: 'x', name: '', country: 'tg', currency: 'X', minAmount: 0, maxAmount: 1 });
    expect(Object.keys(bad.json.data).sort()).toEqual(['code', 'country', 'currency', 'minAmount', 'name']);

    const mtn = list.json.data.find((p: { code: string }) => p.code === 'MTN_MOMO_CM');
    const { id, createdAt: _c, updatedAt: _u, ...fields } = mtn;
    const updated = await as(admin, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields, maxAmount: 1000 });
    expect(updated.json.data.maxAmount).toBe(1000);
    expect((await as(admin, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields, minAmount: 2000, maxAmount: 1000 })).status).toBe(400);

    const tenant = await h.createTenant();
    const charge = (amount: number) =>
      h.request('POST', '/api/v1/pay-in/charge', {
        key: tenant.key,
        body: { amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
      });
    expect((await charge(5000)).json.code).toBe('AMOUNT_ABOVE_MAXIMUM');
    const off = await as(admin, 'PATCH', `/api/v1/admin/providers/${id}/toggle`);
    expect(off.json.data.active).toBe(false);
    expect((await charge(500)).json.code).toBe('PROVIDER_NOT_FOUND');
    expect((await as(admin, 'PATCH', `/api/v1/admin/providers/${id}/toggle`)).json.data.active).toBe(true);
    expect((await as(admin, 'PATCH', '/api/v1/admin/providers/00000000-0000-4000-8000-000000000000/toggle')).json.code).toBe('PROVIDER_NOT_FOUND');
  });
});

describe('audit log', () => {
  it('records state-changing actions with actor, role, target, IP and changed fields, without secrets', async () => {
    const app = await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Audit', currency: 'XAF' });
    await as(merchant, 'PATCH', `/api/v1/merchants/apps/${app.json.data.id}`, { name: 'Audit 2' });
    await as(merchant, 'POST', `/api/v1/merchants/apps/${app.json.data.id}/api-keys`, { name: 'Clé', environment: 'TEST' });
    const page = await as(admin, 'GET', '/api/v1/admin/audit-log?size=100');
    expect(page.status).toBe(200);
    const entries = page.json.data.content as Array<Record<string, any>>;
    const update = entries.find((e) => e.action === 'APPLICATION_UPDATED' && e.targetId === app.json.data.id);
    expect(update).toMatchObject({
      actorId: merchant.accountId,
      actorRole: 'MERCHANT',
      targetType: 'APPLICATION',
      clientIp: '127.0.0.1',
      before: { name: 'Audit' },
      after: { name: 'Audit 2' },
    });
    expect(entries.some((e) => e.action === 'API_KEY_CREATED')).toBe(true);
    expect(entries.some((e) => e.action === 'PROVIDER_TOGGLED' && e.actorRole === 'ADMIN')).toBe(true);
    expect(page.text).not.toMatch(/sk_test_[0-9a-f]{128}|whsec_[0-9a-f]{64}|scrypt\$/);
    // Newest first.
    expect(entries[0]!.id).toBeGreaterThan(entries[entries.length - 1]!.id);
  });
});
