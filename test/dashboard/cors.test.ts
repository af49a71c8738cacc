/**
 * CORS: with `CORS_ORIGINS`, a dashboard on a listed origin calls the dashboard API with
 * credentials and the Authorization header, preflights included; an origin not listed gets no CORS
 * header; the merchant API carries one only with `CORS_MERCHANT_API=true` (then with X-API-KEY and
 * Idempotency-Key, without credentials); the checkout pages never do; and without `CORS_ORIGINS`
 * nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { checkoutBody, expectSuccess, PATHS } from '../helpers/merchant-api.ts';

const DASHBOARD = 'https://dashboard.example.com';
const OTHER = 'https://evil.example.net';

let h: Harness;
let merchant: DashboardAccount;
let tenant: Tenant;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, CORS_ORIGINS: ` ${DASHBOARD}/ , http://localhost:3000` });
  merchant = await createDashboardAccount(h);
  tenant = await h.createTenant();
});
afterAll(async () => h?.close());

const preflight = (path: string, origin: string, method = 'GET') =>
  h.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('dashboard API', () => {
  it('answers a preflight from a listed origin with credentials, methods and the Authorization header', async () => {
    for (const [path, method] of [
      ['/api/v1/merchants/transactions', 'GET'],
      ['/api/v1/auth/login', 'POST'],
      ['/api/v1/admin/merchants', 'GET'],
      ['/api/v1/merchants/apps/00000000-0000-4000-8000-000000000000', 'PATCH'],
      ['/api/v1/public/stats', 'GET'],
    ] as const) {
      const response = await preflight(path, DASHBOARD, method);
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-allow-methods')).toContain(method);
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(response.headers.get('vary')?.toLowerCase()).toContain('origin');
    }
    expect((await preflight('/api/v1/merchants/me', 'http://localhost:3000')).headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('adds the headers to the real request (and its errors), exposing Retry-After and X-Request-Id', async () => {
    const ok = await h.request('GET', '/api/v1/merchants/me', { headers: { origin: DASHBOARD, authorization: `Bearer ${merchant.accessToken}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    // A 401 must be readable by the dashboard too (it refreshes its token on it).
    const denied = await h.request('GET', '/api/v1/merchants/me', { headers: { origin: DASHBOARD } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
  });

  it('gives an origin that is not listed no CORS header at all, preflight or request', async () => {
    const response = await preflight('/api/v1/merchants/transactions', OTHER);
    expect(response.status).toBe(404);
    expect(corsHeaders(response.headers)).toEqual([]);
    const request = await h.request('GET', '/api/v1/merchants/me', { headers: { origin: OTHER, authorization: `Bearer ${merchant.accessToken}` } });
    expect(request.status).toBe(200);
    expect(corsHeaders(request.headers)).toEqual([]);
    // Origins match exactly: another port or scheme is another origin.
    expect(corsHeaders((await preflight('/api/v1/merchants/me', 'http://dashboard.example.com')).headers)).toEqual([]);
  });
});

describe('merchant API and checkout pages', () => {
  it('carry no CORS header, even for a listed origin', async () => {
    const payment = await preflight(PATHS.checkout, DASHBOARD, 'POST');
    expect(payment.status).toBe(404);
    expect(corsHeaders(payment.headers)).toEqual([]);
    const created = await h.request('POST', PATHS.checkout, { key: tenant.key, body: checkoutBody(), headers: { origin: DASHBOARD } });
    const data = expectSuccess(created, 201);
    expect(corsHeaders(created.headers)).toEqual([]);
    const status = await h.request('GET', PATHS.payInStatus(data.reference), { key: tenant.key, headers: { origin: DASHBOARD } });
    expect(status.status).toBe(200);
    expect(corsHeaders(status.headers)).toEqual([]);

    const page = await h.request('GET', new URL(data.paymentUrl).pathname, { headers: { origin: DASHBOARD } });
    expect(page.status).toBe(200);
    expect(corsHeaders(page.headers)).toEqual([]);
    expect(corsHeaders((await preflight(new URL(data.paymentUrl).pathname, DASHBOARD, 'POST')).headers)).toEqual([]);
    expect(corsHeaders((await h.request('GET', '/actuator/health', { headers: { origin: DASHBOARD } })).headers)).toEqual([]);
  });
});

describe('merchant API with CORS_MERCHANT_API=true', () => {
  let open: Harness;
  let key: Tenant;
  beforeAll(async () => {
    open = await startHarness({ ...DASHBOARD_TEST_ENV, CORS_ORIGINS: DASHBOARD, CORS_MERCHANT_API: 'true' });
    key = await open.createTenant();
  });
  afterAll(async () => open?.close());

  const preflightOn = (path: string, origin: string, method: string, headers = 'x-api-key,idempotency-key,content-type') =>
    open.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

  it('answers the preflights of pay-ins, pay-outs, status reads and the webhook configuration with X-API-KEY and Idempotency-Key', async () => {
    for (const [path, method] of [
      [PATHS.checkout, 'POST'],
      [PATHS.charge, 'POST'],
      [PATHS.transfer, 'POST'],
      [PATHS.payInStatus('PI-0A1B2C3D4E5F'), 'GET'],
      [PATHS.payOutStatus('PO-0A1B2C3D4E5F'), 'GET'],
      ['/api/v1/pay-in/refund', 'POST'],
      ['/api/v1/webhook', 'PATCH'],
      ['/api/v1/webhook/test', 'POST'],
      [`/${PATHS.checkout}`, 'POST'],
    ] as const) {
      const response = await preflightOn(path, DASHBOARD, method);
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin'), path).toBe(DASHBOARD);
      expect(response.headers.get('access-control-allow-methods'), path).toContain(method);
      const allowed = response.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
      for (const header of ['x-api-key', 'idempotency-key', 'content-type']) expect(allowed, `${path} ${header}`).toContain(header);
      // The key is a header, not a cookie: no credentials.
      expect(response.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });

  it('adds the headers to the real calls, errors included', async () => {
    const created = await open.request('POST', PATHS.checkout, { key: key.key, body: checkoutBody(), headers: { origin: DASHBOARD, 'idempotency-key': 'idem-cors-1' } });
    const data = expectSuccess(created, 201);
    expect(created.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(created.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    const status = await open.request('GET', PATHS.payInStatus(data.reference), { key: key.key, headers: { origin: DASHBOARD } });
    expect(status.status).toBe(200);
    expect(status.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    const refused = await open.request('POST', PATHS.checkout, { key: 'sk_test_nope', body: checkoutBody(), headers: { origin: DASHBOARD } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
  });

  it('still gives nothing to an origin not listed, nor to the checkout pages, health or callbacks', async () => {
    const other = await preflightOn(PATHS.checkout, OTHER, 'POST');
    expect(other.status).toBe(404);
    expect(corsHeaders(other.headers)).toEqual([]);
    const call = await open.request('POST', PATHS.checkout, { key: key.key, body: checkoutBody(), headers: { origin: OTHER } });
    const data = expectSuccess(call, 201);
    expect(corsHeaders(call.headers)).toEqual([]);
    const page = new URL(data.paymentUrl).pathname;
    expect(corsHeaders((await open.request('GET', page, { headers: { origin: DASHBOARD } })).headers)).toEqual([]);
    expect(corsHeaders((await preflightOn(page, DASHBOARD, 'POST')).headers)).toEqual([]);
    expect(corsHeaders((await open.request('GET', '/actuator/health', { headers: { origin: DASHBOARD } })).headers)).toEqual([]);
    expect(corsHeaders((await preflightOn('/api/v1/callbacks/mtn/x', DASHBOARD, 'POST')).headers)).toEqual([]);
    // The dashboard API keeps its own rules (credentials, Authorization).
    const dashboard = await preflightOn('/api/v1/merchants/me', DASHBOARD, 'GET', 'authorization');
    expect(dashboard.headers.get('access-control-allow-credentials')).toBe('true');
    expect(dashboard.headers.get('access-control-allow-headers')?.toLowerCase()).not.toContain('x-api-key');
  });
});

describe('configuration', () => {
  it('CORS_MERCHANT_API is off by default and takes a boolean', () => {
    expect(loadConfig({ DATA_DIR: 'memory://' }).isCorsMerchantApi).toBe(false);
    expect(loadConfig({ DATA_DIR: 'memory://', CORS_MERCHANT_API: 'true' }).isCorsMerchantApi).toBe(true);
    expect(loadConfig({ DATA_DIR: 'memory://', CORS_MERCHANT_API: 'false' }).isCorsMerchantApi).toBe(false);
    expect(() => loadConfig({ DATA_DIR: 'memory://', CORS_MERCHANT_API: 'sometimes' })).toThrow();
  });

  it('is off by default and refuses an origin that is not scheme://host[:port]', async () => {
    expect(loadConfig({ DATA_DIR: 'memory://' }).corsOrigins).toEqual([]);
    expect(loadConfig({ DATA_DIR: 'memory://', CORS_ORIGINS: 'https://a.example, http://b.example:8080/' }).corsOrigins).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(() => loadConfig({ DATA_DIR: 'memory://', CORS_ORIGINS: 'https://a.example/app' })).toThrow();
    expect(() => loadConfig({ DATA_DIR: 'memory://', CORS_ORIGINS: '*' })).toThrow();
  });

  it('without CORS_ORIGINS, a preflight gets no CORS header', async () => {
    const plain = await startHarness({ ...DASHBOARD_TEST_ENV });
    try {
      const response = await plain.request('OPTIONS', '/api/v1/merchants/me', {
        headers: { origin: DASHBOARD, 'access-control-request-method': 'GET' },
      });
      expect(corsHeaders(response.headers)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
