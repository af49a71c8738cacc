/**
 * CORS (issue 12 point 1): with `CORS_ORIGINS`, a dashboard on a listed origin calls the
 * dashboard API with credentials and the Authorization header, preflights included; an origin
 * not listed gets no CORS header; the merchant API and the checkout pages never carry one; and
 * without `CORS_ORIGINS` nothing changes.
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

describe('configuration', () => {
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
