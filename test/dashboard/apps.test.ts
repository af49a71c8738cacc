import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';

let h: Harness;
let merchant: DashboardAccount;
let other: DashboardAccount;
let support: DashboardAccount;
let admin: DashboardAccount;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  [merchant, other, support, admin] = await Promise.all([
    createDashboardAccount(h),
    createDashboardAccount(h),
    createStaffAccount(h, { role: 'SUPPORT' }),
    createStaffAccount(h, { role: 'ADMIN' }),
  ]);
});
afterAll(async () => h.close());

const as = (a: DashboardAccount, method: string, path: string, body?: unknown) =>
  asAccount(h, a.accessToken, method, path, body === undefined ? {} : { body });

describe('applications', () => {
  it('creates with every field, shows the webhook secret once, lists, reads, updates and deletes', async () => {
    const created = await as(merchant, 'POST', '/api/v1/merchants/apps', {
      name: 'Boutique',
      description: 'Ma boutique',
      logoUrl: 'https://cdn.example.test/logo.png',
      websiteUrl: 'https://shop.example.test',
      themeColor: '#1A2b3C',
      currency: 'XAF',
      webhookUrl: 'http://127.0.0.1:9/hook',
      successUrl: 'https://shop.example.test/ok',
      cancelUrl: 'https://shop.example.test/ko',
    });
    expect(created.status).toBe(201);
    const app = created.json.data;
    expect(app).toMatchObject({
      name: 'Boutique',
      status: 'ACTIVE',
      currency: 'XAF',
      themeColor: '#1A2b3C',
      activeKeyPrefix: null,
      activeKeyEnvironment: null,
    });
    expect(app.plainTextWebhookSecret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const read = await as(merchant, 'GET', `/api/v1/merchants/apps/${app.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data.plainTextWebhookSecret).toBeUndefined();
    expect(read.json.data.successUrl).toBe('https://shop.example.test/ok');

    const list = await as(merchant, 'GET', '/api/v1/merchants/apps');
    expect(list.json.data.map((a: { id: string }) => a.id)).toEqual([app.id]);

    const patched = await as(merchant, 'PATCH', `/api/v1/merchants/apps/${app.id}`, { name: 'Boutique 2', description: null, currency: 'EUR' });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({ name: 'Boutique 2', description: null, currency: 'XAF' });

    const deleted = await as(merchant, 'DELETE', `/api/v1/merchants/apps/${app.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await as(merchant, 'GET', `/api/v1/merchants/apps/${app.id}`)).json.code).toBe('APP_NOT_FOUND');
  });

  it('keeps names unique per merchant (any case), not across merchants', async () => {
    expect((await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Unique', currency: 'XAF' })).status).toBe(201);
    const dup = await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'UNIQUE', currency: 'XAF' });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('APP_NAME_ALREADY_EXISTS');
    expect((await as(other, 'POST', '/api/v1/merchants/apps', { name: 'Unique', currency: 'XAF' })).status).toBe(201);
  });

  it('validates fields: colour, currency, URL scheme and length (500 accepted, 501 rejected)', async () => {
    const bad = await as(merchant, 'POST', '/api/v1/merchants/apps', {
      name: '',
      currency: 'xaf',
      themeColor: 'red',
      websiteUrl: 'ftp://example.test',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.data).sort()).toEqual(['currency', 'name', 'themeColor', 'websiteUrl']);
    const base = 'https://example.test/';
    const url500 = base + 'a'.repeat(500 - base.length);
    expect((await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Long', currency: 'XAF', successUrl: url500 })).status).toBe(201);
    const tooLong = await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Longer', currency: 'XAF', successUrl: url500 + 'a' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.data.successUrl).toBeDefined();
  });

  it('staff cannot create applications; SUPPORT reads any but writes none; ADMIN writes any', async () => {
    const app = (await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Roles', currency: 'XAF' })).json.data;
    expect((await as(support, 'POST', '/api/v1/merchants/apps', { name: 'X', currency: 'XAF' })).json.code).toBe('ACCESS_DENIED');
    expect((await as(support, 'GET', `/api/v1/merchants/apps/${app.id}`)).status).toBe(200);
    expect((await as(support, 'GET', '/api/v1/merchants/apps')).json.data.some((a: { id: string }) => a.id === app.id)).toBe(true);
    const denied = await as(support, 'PATCH', `/api/v1/merchants/apps/${app.id}`, { name: 'Nope' });
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe('ACCESS_DENIED');
    expect((await as(admin, 'PATCH', `/api/v1/merchants/apps/${app.id}`, { themeColor: '#000000' })).status).toBe(200);
    // Another merchant sees nothing, exactly like an unknown id.
    const foreign = await as(other, 'GET', `/api/v1/merchants/apps/${app.id}`);
    const unknown = await as(other, 'GET', '/api/v1/merchants/apps/00000000-0000-4000-8000-000000000000');
    expect(foreign.status).toBe(404);
    expect({ ...foreign.json, timestamp: 0 }).toEqual({ ...unknown.json, timestamp: 0 });
  });
});

describe('API keys', () => {
  it('creates (once), lists newest first, reads the active one, rotates and revokes', async () => {
    const app = (await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Keys', currency: 'XAF' })).json.data;
    const path = `/api/v1/merchants/apps/${app.id}/api-keys`;
    expect((await as(merchant, 'GET', `${path}/active`)).json.code).toBe('API_KEY_NOT_FOUND');
    const created = await as(merchant, 'POST', path, { name: 'Prod', environment: 'LIVE' });
    expect(created.status).toBe(201);
    expect(created.json.data.plainTextKey).toMatch(/^sk_live_[0-9a-f]{128}$/);
    expect(created.json.data.keyPrefix).toBe(created.json.data.plainTextKey.slice(0, 16));
    const second = await as(merchant, 'POST', path, { name: 'Test', environment: 'TEST' });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe('API_KEY_ALREADY_ACTIVE');
    const bad = await as(merchant, 'POST', path, { name: 'x', environment: 'PROD' });
    expect(Object.keys(bad.json.data).sort()).toEqual(['environment', 'name']);

    const active = await as(merchant, 'GET', `${path}/active`);
    expect(active.json.data).toMatchObject({ id: created.json.data.id, active: true, lastUsedAt: null });
    expect(active.json.data.plainTextKey).toBeUndefined();
    const appView = await as(merchant, 'GET', `/api/v1/merchants/apps/${app.id}`);
    expect(appView.json.data).toMatchObject({ activeKeyPrefix: created.json.data.keyPrefix, activeKeyEnvironment: 'LIVE' });

    h.clock.advance(1000);
    const rotated = await as(merchant, 'POST', `${path}/rotate`, { name: 'Test', environment: 'TEST' });
    expect(rotated.status).toBe(201);
    expect(rotated.json.data.plainTextKey).toMatch(/^sk_test_/);
    const list = await as(merchant, 'GET', path);
    expect(list.json.data.map((k: { id: string; active: boolean }) => [k.id, k.active])).toEqual([
      [rotated.json.data.id, true],
      [created.json.data.id, false],
    ]);

    expect((await as(support, 'POST', `${path}/rotate`, { name: 'Nope', environment: 'TEST' })).status).toBe(403);
    expect((await as(support, 'GET', path)).status).toBe(200);
    expect((await as(other, 'GET', path)).json.code).toBe('APP_NOT_FOUND');

    const revoked = await as(merchant, 'DELETE', path);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect((await h.request('POST', '/api/v1/pay-in/charge', { key: rotated.json.data.plainTextKey, body: {} })).status).toBe(401);
    expect((await as(merchant, 'DELETE', path)).json.code).toBe('API_KEY_NOT_FOUND');
  });

  it('deleting an application revokes its key at once', async () => {
    const app = (await as(merchant, 'POST', '/api/v1/merchants/apps', { name: 'Gone', currency: 'XAF' })).json.data;
    const key = (await as(merchant, 'POST', `/api/v1/merchants/apps/${app.id}/api-keys`, { name: 'k1', environment: 'TEST' })).json.data;
    expect((await as(merchant, 'DELETE', `/api/v1/merchants/apps/${app.id}`)).status).toBe(204);
    expect((await h.request('POST', '/api/v1/pay-in/charge', { key: key.plainTextKey, body: {} })).status).toBe(401);
  });
});
