/**
 * Fund collections through the dashboard API, at the paths and in the shapes SharePay's dashboard
 * calls: create, list with each filter, read, update, close, reopen, delete, every error code, the
 * roles, and expiry driven by the manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess, TIMESTAMP } from '../helpers/merchant-api.ts';

let h: Harness;
let owner: DashboardAccount;
let other: DashboardAccount;
let support: StaffAccount;
let admin: StaffAccount;
let appId: string;
let otherAppId: string;

const BASE = '/api/v1/merchants/fund-collections';
const as = (who: DashboardAccount, method: string, path: string, body?: unknown) => asAccount(h, who.accessToken, method, path, body === undefined ? {} : { body });
const create = (who: DashboardAccount, app: string, body: Record<string, unknown>) => as(who, 'POST', `/api/v1/merchants/apps/${app}/fund-collections`, body);
/** An ISO date `ms` from the harness clock's now. */
const inMs = (ms: number) => new Date(h.clock.now().getTime() + ms).toISOString();

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  owner = await createDashboardAccount(h);
  other = await createDashboardAccount(h);
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  appId = (await createApplication(h.services, { merchantId: owner.accountId, name: 'Tontine Akwa', currency: 'XAF' })).id;
  otherAppId = (await createApplication(h.services, { merchantId: other.accountId, name: 'Autre', currency: 'XAF' })).id;
});
afterAll(async () => h?.close());

describe('create', () => {
  it('creates a free-amount collection with every field the dashboard reads', async () => {
    const response = await create(owner, appId, {
      title: 'Mariage de Awa & Paul',
      description: 'Participation aux frais',
      coverImageUrl: 'https://images.example.com/mariage.jpg',
      isAmountFixed: false,
      amount: 2000,
      expiresAt: inMs(7 * 86_400_000),
      collectCustomerInfo: true,
      thankYouMessage: 'Merci du fond du cœur !',
    });
    const data = expectSuccess(response, 201);
    expect(Object.keys(data).sort()).toEqual(
      [
        'id', 'slug', 'collectUrl', 'title', 'description', 'status', 'currency', 'environment', 'amountFixed', 'amount', 'coverImageUrl',
        'collectCustomerInfo', 'thankYouMessage', 'expiresAt', 'applicationId', 'applicationName', 'createdAt', 'updatedAt',
      ].sort(),
    );
    expect(data).toMatchObject({
      title: 'Mariage de Awa & Paul',
      status: 'ACTIVE',
      currency: 'XAF',
      environment: 'TEST',
      amountFixed: false,
      amount: 2000,
      collectCustomerInfo: true,
      applicationId: appId,
      applicationName: 'Tontine Akwa',
    });
    expect(data.slug).toMatch(/^mariage-de-awa-paul-[0-9a-f]{8}$/);
    expect(data.collectUrl).toBe(`${h.baseUrl}/collect/${data.slug}`);
    expect(data.expiresAt).toMatch(TIMESTAMP);
    expect(data.createdAt).toMatch(TIMESTAMP);
  });

  it('takes the currency of the application and the merchant’s default environment (LIVE once it has an active LIVE key)', async () => {
    expect(expectSuccess(await create(owner, appId, { title: 'Avant' }), 201).environment).toBe('TEST');
    const live = await createApplication(h.services, { merchantId: owner.accountId, name: 'Live', currency: 'XAF' });
    await createApiKey(h.services, { applicationId: live.id, name: 'k', environment: 'LIVE' });
    const data = expectSuccess(await create(owner, live.id, { title: 'Cotisation', isAmountFixed: true, amount: 5000 }), 201);
    expect(data).toMatchObject({ currency: 'XAF', environment: 'LIVE', amountFixed: true, amount: 5000, expiresAt: null, description: null });
    const test = expectSuccess(await create(owner, live.id, { title: 'Essai', environment: 'TEST' }), 201);
    expect(test.environment).toBe('TEST');
    // The rule is the merchant's: its application without a key creates LIVE collections too.
    expect(expectSuccess(await create(owner, appId, { title: 'Après' }), 201).environment).toBe('LIVE');
  });

  it('AMOUNT_REQUIRED_FOR_FIXED: a fixed collection without an amount', async () => {
    expectError(await create(owner, appId, { title: 'Fixe', isAmountFixed: true }), 400, 'AMOUNT_REQUIRED_FOR_FIXED');
    expectError(await create(owner, appId, { title: 'Fixe', isAmountFixed: true, amount: null }), 400, 'AMOUNT_REQUIRED_FOR_FIXED');
  });

  it('CURRENCY_MISMATCH: another currency than the application’s', async () => {
    expectError(await create(owner, appId, { title: 'Euros', currency: 'EUR' }), 400, 'CURRENCY_MISMATCH');
  });

  it('VALIDATION_ERROR: missing title, past expiresAt, bad URL, bad date, zero amount', async () => {
    const missing = expectError(await create(owner, appId, {}), 400, 'VALIDATION_ERROR');
    expect(missing).toHaveProperty('title');
    const past = expectError(await create(owner, appId, { title: 'Passée', expiresAt: inMs(-1000) }), 400, 'VALIDATION_ERROR');
    expect(past.expiresAt).toBe('doit être une date future');
    expect(expectError(await create(owner, appId, { title: 'X', coverImageUrl: 'javascript:alert(1)' }), 400, 'VALIDATION_ERROR')).toHaveProperty('coverImageUrl');
    expect(expectError(await create(owner, appId, { title: 'X', expiresAt: 'demain' }), 400, 'VALIDATION_ERROR').expiresAt).toMatch(/ISO 8601/);
    expect(expectError(await create(owner, appId, { title: 'X', amount: 0 }), 400, 'VALIDATION_ERROR')).toHaveProperty('amount');
    expect(expectError(await create(owner, appId, { title: 'x'.repeat(256) }), 400, 'VALIDATION_ERROR')).toHaveProperty('title');
    expectSuccess(await create(owner, appId, { title: 'x'.repeat(255) }), 201);
  });

  it('APP_NOT_FOUND for another merchant’s or an unknown application; INVALID_PARAMETER for a malformed id; SUPPORT 403', async () => {
    const foreign = await create(owner, otherAppId, { title: 'Intrus' });
    const unknown = await create(owner, '00000000-0000-4000-8000-000000000000', { title: 'Intrus' });
    expectError(foreign, 404, 'APP_NOT_FOUND');
    expect({ ...foreign.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });
    expectError(await create(owner, 'pas-un-uuid', { title: 'X' }), 400, 'INVALID_PARAMETER');
    expectError(await create(support, appId, { title: 'X' }), 403, 'ACCESS_DENIED');
    const byAdmin = expectSuccess(await create(admin, otherAppId, { title: 'Par un admin' }), 201);
    expect(byAdmin.applicationId).toBe(otherAppId);
  });
});

describe('list', () => {
  it('answers a bare array (SharePay’s dashboard filters it), filters by application and status, pages, never shows another merchant’s', async () => {
    const merchant = await createDashboardAccount(h);
    const a = (await createApplication(h.services, { merchantId: merchant.accountId, name: 'A', currency: 'XAF' })).id;
    const b = (await createApplication(h.services, { merchantId: merchant.accountId, name: 'B', currency: 'XAF' })).id;
    const ids: Record<string, string> = {};
    for (const [name, app] of [['active', a], ['closed', a], ['expiring', b], ['deleted', b], ['open', b]] as const) {
      h.clock.advance(1000);
      const body = name === 'expiring' ? { title: name, expiresAt: inMs(60_000) } : { title: name };
      ids[name] = expectSuccess(await create(merchant, app, body), 201).id;
    }
    expectSuccess(await as(merchant, 'PATCH', `${BASE}/${ids.closed}/close`), 200);
    expect((await as(merchant, 'DELETE', `${BASE}/${ids.deleted}`)).status).toBe(204);
    h.clock.advance(61_000);
    const titles = async (query: string) => {
      const list = expectSuccess(await as(merchant, 'GET', `${BASE}${query}`), 200);
      expect(Array.isArray(list), query).toBe(true);
      return list.map((c: { title: string }) => c.title);
    };
    expect(await titles('')).toEqual(['open', 'expiring', 'closed', 'active']);
    expect(await titles(`?applicationId=${a}`)).toEqual(['closed', 'active']);
    expect(await titles(`?applicationId=${b}`)).toEqual(['open', 'expiring']);
    expect(await titles('?status=ACTIVE')).toEqual(['open', 'active']);
    expect(await titles('?status=CLOSED')).toEqual(['closed']);
    expect(await titles('?status=EXPIRED')).toEqual(['expiring']);
    expect(await titles('?status=DELETED')).toEqual(['deleted']);
    expect(await titles(`?applicationId=${b}&status=ACTIVE`)).toEqual(['open']);
    expect(await titles('?environment=TEST')).toEqual(['open', 'expiring', 'closed', 'active']);
    expect(await titles('?environment=LIVE')).toEqual([]);
    const raw = await as(merchant, 'GET', BASE);
    expect(Object.keys(raw.json)).toEqual(['success', 'code', 'message', 'data', 'timestamp']);
    expect(raw.json.data[0]).toMatchObject({ title: 'open', status: 'ACTIVE', applicationName: 'B', amountFixed: false, collectUrl: expect.any(String) });
    // What the dashboard does with it.
    expect(raw.json.data.filter((c: { status: string }) => c.status === 'EXPIRED').map((c: { title: string }) => c.title)).toEqual(['expiring']);
    expect(await titles('?page=0&size=3')).toEqual(['open', 'expiring', 'closed']);
    expect(await titles('?page=1&size=3')).toEqual(['active']);
    expect(await titles('?page=2&size=3')).toEqual([]);
    expect(await titles('?size=100')).toEqual(['open', 'expiring', 'closed', 'active']);
    // 100 at most, and by default.
    const many = await createDashboardAccount(h);
    const manyApp = (await createApplication(h.services, { merchantId: many.accountId, name: 'Beaucoup', currency: 'XAF' })).id;
    for (let i = 0; i < 101; i++) {
      h.clock.advance(1);
      expectSuccess(await create(many, manyApp, { title: `c${i}` }), 201);
    }
    const first = expectSuccess(await as(many, 'GET', BASE), 200);
    expect(first).toHaveLength(100);
    expect(first[0].title).toBe('c100');
    expect(expectSuccess(await as(many, 'GET', `${BASE}?page=1`), 200).map((c: { title: string }) => c.title)).toEqual(['c0']);

    // Another merchant sees none of these, and cannot filter on these applications.
    expect(expectSuccess(await as(other, 'GET', `${BASE}?status=ACTIVE`), 200).map((c: { applicationId: string }) => c.applicationId)).not.toContain(a);
    expectError(await as(other, 'GET', `${BASE}?applicationId=${a}`), 404, 'APP_NOT_FOUND');
    expectError(await as(merchant, 'GET', `${BASE}?status=OPEN`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, 'GET', `${BASE}?applicationId=nope`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, 'GET', `${BASE}?environment=PROD`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, 'GET', `${BASE}?size=101`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, 'GET', `${BASE}?size=0`), 400, 'INVALID_PARAMETER');
    // Staff see every merchant's.
    expect(expectSuccess(await as(support, 'GET', `${BASE}?applicationId=${a}`), 200)).toHaveLength(2);
  });
});

describe('read, update, close, reopen, delete', () => {
  it('reads one; another merchant gets 404 COLLECTION_NOT_FOUND like an unknown id; a malformed id is 400', async () => {
    const c = expectSuccess(await create(owner, appId, { title: 'Lecture' }), 201);
    expect(expectSuccess(await as(owner, 'GET', `${BASE}/${c.id}`), 200)).toEqual(c);
    const foreign = await as(other, 'GET', `${BASE}/${c.id}`);
    const unknown = await as(other, 'GET', `${BASE}/00000000-0000-4000-8000-000000000000`);
    expectError(foreign, 404, 'COLLECTION_NOT_FOUND');
    expect({ ...foreign.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });
    for (const [method, suffix] of [['PATCH', ''], ['PATCH', '/close'], ['PATCH', '/reopen'], ['DELETE', '']] as const) {
      expectError(await as(other, method, `${BASE}/${c.id}${suffix}`, method === 'PATCH' ? {} : undefined), 404, 'COLLECTION_NOT_FOUND');
      expectError(await as(owner, method, `${BASE}/123${suffix}`, method === 'PATCH' ? {} : undefined), 400, 'INVALID_PARAMETER');
    }
    expectError(await as(owner, 'GET', `${BASE}/not-a-uuid`), 400, 'INVALID_PARAMETER');
    expect(expectSuccess(await as(support, 'GET', `${BASE}/${c.id}`), 200).id).toBe(c.id);
    expectError(await as(support, 'PATCH', `${BASE}/${c.id}`, { title: 'Non' }), 403, 'ACCESS_DENIED');
    expectError(await as(support, 'PATCH', `${BASE}/${c.id}/close`), 403, 'ACCESS_DENIED');
    expectError(await as(support, 'DELETE', `${BASE}/${c.id}`), 403, 'ACCESS_DENIED');
  });

  it('updates fields, clears texts with null, removes the end date; AMOUNT_REQUIRED_FOR_FIXED and date rules apply', async () => {
    const c = expectSuccess(await create(owner, appId, { title: 'Avant', description: 'Texte', expiresAt: inMs(3_600_000) }), 201);
    h.clock.advance(1000);
    const updated = expectSuccess(
      await as(owner, 'PATCH', `${BASE}/${c.id}`, { title: 'Après', description: null, isAmountFixed: true, amount: 1500, thankYouMessage: 'Merci', currency: 'EUR' }),
      200,
    );
    expect(updated).toMatchObject({ title: 'Après', description: null, amountFixed: true, amount: 1500, thankYouMessage: 'Merci', currency: 'XAF', slug: c.slug });
    expect(updated.updatedAt).not.toBe(c.updatedAt);
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}`, { amount: null }), 400, 'AMOUNT_REQUIRED_FOR_FIXED');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}`, { isAmountFixed: false, amount: null }), 200)).toMatchObject({ amountFixed: false, amount: null });
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}`, { expiresAt: inMs(-1) }), 400, 'VALIDATION_ERROR');
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}`, { expiresAt: inMs(10_000), removeExpiresAt: true }), 400, 'VALIDATION_ERROR');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}`, { removeExpiresAt: true }), 200).expiresAt).toBeNull();
    const log = expectSuccess(await as(admin, 'GET', '/api/v1/admin/audit-log?page=0&size=5'), 200);
    expect(log.content[0]).toMatchObject({ action: 'FUND_COLLECTION_UPDATED', targetId: c.id, actorId: owner.accountId, after: { expiresAt: null } });
    expect(Object.keys(log.content[0].after)).toEqual(['expiresAt']);
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}`, { title: '' }), 400, 'VALIDATION_ERROR');
  });

  it('close and reopen: COLLECTION_ALREADY_CLOSED, COLLECTION_NOT_CLOSED, COLLECTION_NOT_EDITABLE', async () => {
    const c = expectSuccess(await create(owner, appId, { title: 'Fermeture' }), 201);
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`), 409, 'COLLECTION_NOT_CLOSED');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}/close`), 200).status).toBe('CLOSED');
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}/close`), 409, 'COLLECTION_ALREADY_CLOSED');
    const notEditable = await as(owner, 'PATCH', `${BASE}/${c.id}`, { title: 'Non' });
    expectError(notEditable, 409, 'COLLECTION_NOT_EDITABLE');
    expect(notEditable.json.message).toMatch(/rouvrez-la/);
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`), 200).status).toBe('ACTIVE');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}`, { title: 'Oui' }), 200).title).toBe('Oui');
  });

  it('expires at expiresAt (manual clock); reopening an expired collection needs a future date or none', async () => {
    const c = expectSuccess(await create(owner, appId, { title: 'Expire', expiresAt: inMs(60_000) }), 201);
    h.clock.advance(59_000);
    expect(expectSuccess(await as(owner, 'GET', `${BASE}/${c.id}`), 200).status).toBe('ACTIVE');
    h.clock.advance(1000);
    expect(expectSuccess(await as(owner, 'GET', `${BASE}/${c.id}`), 200).status).toBe('EXPIRED');
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}`, { title: 'Non' }), 409, 'COLLECTION_NOT_EDITABLE');
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}/close`), 409, 'COLLECTION_ALREADY_CLOSED');
    const stale = expectError(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`), 400, 'VALIDATION_ERROR');
    expect(stale.expiresAt).toMatch(/date future/);
    expectError(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`, { expiresAt: inMs(-5) }), 400, 'VALIDATION_ERROR');
    const reopened = expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`, { expiresAt: inMs(86_400_000) }), 200);
    expect(reopened.status).toBe('ACTIVE');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}/close`), 200).status).toBe('CLOSED');
    expect(expectSuccess(await as(owner, 'PATCH', `${BASE}/${c.id}/reopen`, { removeExpiresAt: true }), 200)).toMatchObject({ status: 'ACTIVE', expiresAt: null });
  });

  it('delete is final: 204, then 404 COLLECTION_NOT_FOUND on every route; ADMIN may act on any merchant’s', async () => {
    const c = expectSuccess(await create(other, otherAppId, { title: 'À supprimer' }), 201);
    expect(expectSuccess(await as(admin, 'PATCH', `${BASE}/${c.id}/close`), 200).status).toBe('CLOSED');
    const deleted = await as(other, 'DELETE', `${BASE}/${c.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await as(other, 'GET', `${BASE}/${c.id}`), 404, 'COLLECTION_NOT_FOUND');
    expectError(await as(other, 'PATCH', `${BASE}/${c.id}`, { title: 'X' }), 404, 'COLLECTION_NOT_FOUND');
    expectError(await as(other, 'PATCH', `${BASE}/${c.id}/reopen`), 404, 'COLLECTION_NOT_FOUND');
    expectError(await as(other, 'DELETE', `${BASE}/${c.id}`), 404, 'COLLECTION_NOT_FOUND');
    expectError(await as(admin, 'GET', `${BASE}/${c.id}`), 404, 'COLLECTION_NOT_FOUND');
    // Every change is in the audit log, with who did it.
    const log = expectSuccess(await as(admin, 'GET', '/api/v1/admin/audit-log?page=0&size=100'), 200);
    const entries = log.content.filter((e: { targetId: string }) => e.targetId === c.id);
    expect(entries.map((e: { action: string }) => e.action).reverse()).toEqual(['FUND_COLLECTION_CREATED', 'FUND_COLLECTION_CLOSED', 'FUND_COLLECTION_DELETED']);
    expect(entries[1]).toMatchObject({ actorId: admin.accountId, before: { status: 'ACTIVE' }, after: { status: 'CLOSED' } });
  });

  it('is documented in /openapi.json', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    for (const path of [
      '/api/v1/merchants/apps/{applicationId}/fund-collections',
      '/api/v1/merchants/fund-collections',
      '/api/v1/merchants/fund-collections/{id}',
      '/api/v1/merchants/fund-collections/{id}/close',
      '/api/v1/merchants/fund-collections/{id}/reopen',
      '/api/v1/public/collect/confirm',
      '/api/v1/public/collect/payments/{reference}',
    ]) {
      expect(spec.paths, path).toHaveProperty([path]);
    }
    expect(Object.keys(spec.paths['/api/v1/merchants/fund-collections/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(spec.paths['/api/v1/merchants/fund-collections/{id}'].get.security).toEqual([{ bearerAuth: [] }]);
    const list = spec.paths['/api/v1/merchants/fund-collections'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(list.type).toBe('array');
    expect(Object.keys(list.items.properties)).toEqual(expect.arrayContaining(['id', 'slug', 'collectUrl', 'title', 'status', 'amountFixed', 'applicationName']));
  });
});
