/**
 * The environment of every dashboard route that takes one, when the caller sends none (SharePay's
 * dashboard never sends it): LIVE if the merchant has an active LIVE API key or any LIVE
 * transaction, TEST otherwise. Each route is called, for each kind of merchant, three times —
 * without `environment`, with LIVE, with TEST — and the answer without it must be the one of the
 * merchant's environment (the two explicit answers differ, so the comparison decides). A last test
 * checks that the table names every such route of /openapi.json. Payments go through the real
 * merchant API on the sandbox rail; LIVE rows, which need a real operator, are inserted directly.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { transactions } from '../../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, loginStaff, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo, settle, transferTo } from '../helpers/webhooks.ts';

type Environment = 'LIVE' | 'TEST';

/** A kind of merchant, what makes it so, and the environment it must get by default. */
interface Merchant {
  label: string;
  expected: Environment;
  account: DashboardAccount;
  /** Its application with a TEST key: sandbox pay-ins and pay-outs, so TEST answers are never empty. */
  sandbox: Tenant;
}

let h: Harness;
let admin: StaffAccount;
const merchants: Merchant[] = [];

/** A dashboard merchant with one application and an active TEST key, one paid charge and one transfer. */
async function sandboxMerchant(): Promise<{ account: DashboardAccount; sandbox: Tenant }> {
  const account = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: account.accountId, name: 'Bac à sable', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'test', environment: 'TEST' });
  const sandbox = { merchantId: account.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
  await chargeTo(h, sandbox, 'SUCCESS');
  await transferTo(h, sandbox, 'SUCCESS');
  return { account, sandbox };
}

/** A LIVE row of `applicationId` (a real operator would have made it). */
async function insertLive(applicationId: string, direction: 'PAY_IN' | 'PAY_OUT'): Promise<void> {
  const now = h.clock.now();
  await h.services.db.insert(transactions).values({
    id: randomUUID(),
    reference: `${direction === 'PAY_IN' ? 'PI' : 'PO'}-${randomBytes(6).toString('hex').toUpperCase()}`,
    applicationId,
    direction,
    type: direction === 'PAY_IN' ? 'CHARGE' : null,
    environment: 'LIVE',
    status: 'SUCCESS',
    amount: 7000,
    feeAmount: 105,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    payerAccount: '237677000009',
    createdAt: now,
    updatedAt: now,
    completedAt: now,
  });
}

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });

  // TEST keys and TEST transactions only.
  const testOnly = await sandboxMerchant();
  merchants.push({ label: 'TEST only', expected: 'TEST', ...testOnly });

  // A LIVE key that was revoked, and no LIVE transaction: still TEST.
  const revoked = await sandboxMerchant();
  const revokedApp = await createApplication(h.services, { merchantId: revoked.account.accountId, name: 'Ancienne prod', currency: 'XAF' });
  await createApiKey(h.services, { applicationId: revokedApp.id, name: 'live', environment: 'LIVE' });
  const revoke = await asAccount(h, revoked.account.accessToken, 'DELETE', `/api/v1/merchants/apps/${revokedApp.id}/api-keys`);
  expect(revoke.status).toBe(204);
  merchants.push({ label: 'revoked LIVE key', expected: 'TEST', ...revoked });

  // An active LIVE key on another application, no LIVE transaction yet: LIVE.
  const liveKey = await sandboxMerchant();
  const production = await createApplication(h.services, { merchantId: liveKey.account.accountId, name: 'Production', currency: 'XAF' });
  await createApiKey(h.services, { applicationId: production.id, name: 'live', environment: 'LIVE' });
  merchants.push({ label: 'active LIVE key', expected: 'LIVE', ...liveKey });

  // LIVE transactions but no active LIVE key (e.g. a LIVE fund collection's payments): LIVE.
  const liveRows = await sandboxMerchant();
  await insertLive(liveRows.sandbox.applicationId, 'PAY_IN');
  await insertLive(liveRows.sandbox.applicationId, 'PAY_OUT');
  merchants.push({ label: 'LIVE transactions', expected: 'LIVE', ...liveRows });

  await settle(h);
  Object.assign(admin, await loginStaff(h, admin));
  for (const account of merchants.map((m) => m.account)) Object.assign(account, await login(h, account.email, account.password));
});
afterAll(async () => h?.close());

/** What a read route answers: the JSON `data`, or the body of a CSV export. */
async function read(token: string, path: string): Promise<unknown> {
  const response = await asAccount(h, token, 'GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return response.headers.get('content-type')?.startsWith('text/csv') ? response.text : response.json.data;
}

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** Every dashboard read route that takes `environment` in its query; `{id}` is the merchant (admin family). */
const READ_ROUTES: string[] = [
  '/api/v1/merchants/balance',
  '/api/v1/merchants/dashboard',
  ...['transactions', 'transactions-in', 'transactions-out'].flatMap((list) =>
    ['', '/stats', '/export'].flatMap((suffix) => [`/api/v1/merchants/${list}${suffix}`, `/api/v1/admin/merchants/{id}/${list}${suffix}`]),
  ),
  '/api/v1/merchants/transactions/chart',
  '/api/v1/admin/merchants/{id}/transactions/chart',
  '/api/v1/merchants/home/today',
  '/api/v1/merchants/home/period',
];

describe('read routes', () => {
  for (const route of READ_ROUTES) {
    it(`GET ${route}`, async () => {
      for (const m of merchants) {
        const isAdmin = route.startsWith('/api/v1/admin/');
        const token = isAdmin ? admin.accessToken : m.account.accessToken;
        const path = route.replace('{id}', m.account.accountId);
        const [implicit, live, test] = [await read(token, path), await read(token, withQuery(path, 'environment=LIVE')), await read(token, withQuery(path, 'environment=TEST'))];
        expect(live, `${m.label}: LIVE and TEST answers must differ`).not.toEqual(test);
        expect(implicit, `${m.label} reads ${m.expected} by default`).toEqual(m.expected === 'LIVE' ? live : test);
      }
    });
  }
});

describe('write routes', () => {
  it('PUT /api/v1/merchants/withdrawals/config', async () => {
    for (const m of merchants) {
      const path = '/api/v1/merchants/withdrawals/config';
      const set = expectSuccess(await asAccount(h, m.account.accessToken, 'PUT', path, { body: { mode: 'MANUAL' } }), 200);
      expect(set.environment, m.label).toBe(m.expected);
      const other = m.expected === 'LIVE' ? 'TEST' : 'LIVE';
      expect(expectSuccess(await asAccount(h, m.account.accessToken, 'PUT', path, { body: { mode: 'MANUAL', environment: other } }), 200).environment).toBe(other);
    }
  });

  it('POST /api/v1/merchants/apps/{applicationId}/fund-collections', async () => {
    for (const m of merchants) {
      const path = `/api/v1/merchants/apps/${m.sandbox.applicationId}/fund-collections`;
      const created = expectSuccess(await asAccount(h, m.account.accessToken, 'POST', path, { body: { title: `Collecte ${m.label}` } }), 201);
      expect(created.environment, m.label).toBe(m.expected);
    }
  });

  it('POST /api/v1/merchants/withdrawals/withdraw', async () => {
    const body = { amount: 1000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '677000001', beneficiaryName: 'Awa', applicationId: '' };
    for (const m of merchants) {
      const withdraw = (extra: Record<string, unknown>) =>
        asAccount(h, m.account.accessToken, 'POST', '/api/v1/merchants/withdrawals/withdraw', { body: { ...body, applicationId: m.sandbox.applicationId, ...extra } });
      if (m.expected === 'TEST') {
        // From the sandbox balance: a TEST pay-out.
        const data = expectSuccess(await withdraw({}), 201);
        const detail = expectSuccess(await asAccount(h, m.account.accessToken, 'GET', `/api/v1/merchants/transactions-out/${data.reference}`), 200);
        expect(detail, m.label).toMatchObject({ type: 'WITHDRAWAL', environment: 'TEST' });
      } else {
        // LIVE: this harness has no LIVE connector, so the rail is refused exactly as with environment=LIVE,
        // while environment=TEST would have paid out from the sandbox.
        const implicit = await withdraw({});
        const explicit = await withdraw({ environment: 'LIVE' });
        expectError(implicit, 404, 'PROVIDER_NOT_FOUND');
        expect({ ...implicit.json, timestamp: null }).toEqual({ ...explicit.json, timestamp: null });
        expectSuccess(await withdraw({ environment: 'TEST' }), 201);
      }
    }
  });
  // A dashboard transfer and its fee quote: from the sandbox balance on a TEST merchant; on a LIVE
  // one, the rail is refused exactly as with environment=LIVE (this harness has no LIVE connector),
  // while environment=TEST would have paid out from the sandbox.
  it('POST /api/v1/merchants/apps/{appId}/transfer and GET …/transfer/fee', async () => {
    for (const m of merchants) {
      const base = `/api/v1/merchants/apps/${m.sandbox.applicationId}/transfer`;
      const body = { amount: 1000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000071', beneficiaryName: 'Awa' };
      const send = (extra: Record<string, unknown>) => asAccount(h, m.account.accessToken, 'POST', base, { body: { ...body, ...extra } });
      const quote = (extra: string) => asAccount(h, m.account.accessToken, 'GET', `${base}/fee?amount=1000&currency=XAF&paymentMethod=MTN_MOMO_CM${extra}`);
      const strip = (r: { status: number; json: unknown }) => ({ status: r.status, body: { ...(r.json as object), timestamp: null } });
      if (m.expected === 'TEST') {
        const data = expectSuccess(await send({}), 201);
        const detail = expectSuccess(await asAccount(h, m.account.accessToken, 'GET', `/api/v1/merchants/transactions-out/${data.reference}`), 200);
        expect(detail, m.label).toMatchObject({ environment: 'TEST' });
        expect(strip(await quote('')), m.label).toEqual(strip(await quote('&environment=TEST')));
      } else {
        const implicit = await send({});
        expect(implicit.status, m.label).toBeGreaterThanOrEqual(400);
        expect(strip(implicit), m.label).toEqual(strip(await send({ environment: 'LIVE' })));
        expect(strip(await quote('')), m.label).toEqual(strip(await quote('&environment=LIVE')));
        expectSuccess(await send({ environment: 'TEST' }), 201);
      }
    }
  });
  // A dashboard batch: TEST on a TEST merchant; on a LIVE one, answered exactly as with
  // environment=LIVE (this harness has no LIVE connector), while environment=TEST is a TEST batch.
  it('POST /api/v1/merchants/apps/{appId}/batches', async () => {
    const item = { amount: 1000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000071', beneficiaryName: 'Awa' };
    for (const m of merchants) {
      const path = `/api/v1/merchants/apps/${m.sandbox.applicationId}/batches`;
      const create = (extra: Record<string, unknown>) => asAccount(h, m.account.accessToken, 'POST', path, { body: { items: [item], ...extra } });
      const strip = (r: { status: number; json: unknown }) => ({ status: r.status, body: { ...(r.json as object), timestamp: null } });
      if (m.expected === 'TEST') {
        expect(expectSuccess(await create({}), 201).batch.environment, m.label).toBe('TEST');
      } else {
        const implicit = await create({});
        if (implicit.status === 201) expect(implicit.json.data.batch.environment, m.label).toBe('LIVE');
        else expect(strip(implicit), m.label).toEqual(strip(await create({ environment: 'LIVE' })));
        expect(expectSuccess(await create({ environment: 'TEST' }), 201).batch.environment, m.label).toBe('TEST');
      }
    }
  });
  // The batch list, read after the test above made each merchant a TEST batch (and a LIVE one
  // where LIVE took it): the two environments' lists differ, and none asked reads the merchant's.
  it('GET /api/v1/merchants/batches', async () => {
    for (const m of merchants) {
      const path = '/api/v1/merchants/batches';
      const [implicit, live, test] = [await read(m.account.accessToken, path), await read(m.account.accessToken, withQuery(path, 'environment=LIVE')), await read(m.account.accessToken, withQuery(path, 'environment=TEST'))];
      expect(live, `${m.label}: LIVE and TEST answers must differ`).not.toEqual(test);
      expect(implicit, `${m.label} reads ${m.expected} by default`).toEqual(m.expected === 'LIVE' ? live : test);
    }
  });
});

describe('coverage', () => {
  it('the tables above name every dashboard route of /openapi.json whose environment is optional', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    type Operation = { parameters?: { name: string; in: string; required?: boolean }[]; requestBody?: { content: Record<string, { schema: { properties?: object; required?: string[] } }> } };
    const found: string[] = [];
    for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, Operation>>)) {
      if (!path.startsWith('/api/v1/merchants') && !path.startsWith('/api/v1/admin')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const inQuery = operation.parameters?.some((p) => p.name === 'environment' && p.in === 'query' && !p.required);
        const schema = operation.requestBody?.content['application/json']?.schema;
        const inBody = schema?.properties && 'environment' in schema.properties && !schema.required?.includes('environment');
        if (inQuery || inBody) found.push(`${method.toUpperCase()} ${path}`);
      }
    }
    const tested = [
      ...READ_ROUTES.map((r) => `GET ${r}`),
      'PUT /api/v1/merchants/withdrawals/config',
      'POST /api/v1/merchants/apps/{applicationId}/fund-collections',
      'POST /api/v1/merchants/withdrawals/withdraw',
      'POST /api/v1/merchants/apps/{appId}/transfer',
      'GET /api/v1/merchants/apps/{appId}/transfer/fee',
      'POST /api/v1/merchants/apps/{appId}/batches',
      'GET /api/v1/merchants/batches',
    ];
    // The platform overview is about every merchant, not one: LIVE unless asked (its own default).
    // The fund collections list takes `environment` as a filter: without it, every collection.
    expect(found.sort()).toEqual([...tested, 'GET /api/v1/admin/stats/overview', 'GET /api/v1/merchants/fund-collections'].sort());
    const description = spec.paths['/api/v1/merchants/balance'].get.parameters.find((p: { name: string }) => p.name === 'environment').description;
    expect(description).toMatch(/clé API LIVE active ou au moins une transaction LIVE, sinon TEST/);
  });
});
