/**
 * Malformed ids in dashboard paths, and requests that Node's HTTP parser rejects, all answered with
 * the envelope, never a 500 nor Fastify's own shape.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startHarness, type Harness } from './harness.ts';
import { asAccount, createStaffAccount, type StaffAccount } from './helpers/dashboard.ts';
import { buildApp } from '../src/http/app.ts';
import { accounts } from '../src/db/schema.ts';

let h: Harness;
let admin: StaffAccount;

beforeAll(async () => {
  h = await startHarness();
  admin = await createStaffAccount(h, { role: 'ADMIN' });
});
afterAll(async () => h.close());

const MALFORMED_IDS = [
  '------------------------------------',
  '0123456789abcdef0123456789abcdef0123',
  '0123456789abcdef0123456789abcdef',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '00000000-0000-0000-0000-00000000000g',
  '1',
  '%C3%A9t%C3%A9',
  "'%3B%20drop%20table%20accounts%3B--",
  '%F0%9F%92%B8',
];

describe('malformed ids in dashboard paths', () => {
  it('answer 400 INVALID_PARAMETER (or 404) with the envelope on every {id} route, never a 500', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    const routes: { method: string; path: string }[] = [];
    for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      if (!/\{(id|appId|deliveryId)\}/.test(path)) continue;
      // The dashboard's routes (a staff or merchant session): the merchant API's take an API key.
      if (!/^\/api\/v1\/(merchants|admin|auth)\//.test(path)) continue;
      // A merchant's statements are the merchant's alone: staff get 403 before any parameter is read.
      if (path.startsWith('/api/v1/merchants/statements/')) continue;
      for (const method of Object.keys(operations)) routes.push({ method: method.toUpperCase(), path });
    }
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const seen: string[] = [];
    for (const route of routes) {
      for (const bad of MALFORMED_IDS) {
        const path = route.path.replace(/\{(id|appId|deliveryId)\}/g, bad);
        const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
        const response = await asAccount(h, admin.accessToken, route.method, path, body === undefined ? {} : { body });
        seen.push(`${route.method} ${route.path} ${bad} → ${response.status}`);
        expect(response.status, `${route.method} ${path}: ${response.text}`).toBeLessThan(500);
        expect([400, 404], `${route.method} ${path}: ${response.text}`).toContain(response.status);
        expect(response.json.success).toBe(false);
        expect(['INVALID_PARAMETER', 'RESOURCE_NOT_FOUND']).toContain(response.json.code);
      }
    }
    expect(seen.length).toBe(routes.length * MALFORMED_IDS.length);
  });

  it('a well-formed but unknown id still answers 404 as before', async () => {
    const response = await asAccount(h, admin.accessToken, 'GET', '/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000');
    expect(response.status).toBe(404);
    expect(response.json.success).toBe(false);
  });

  it("maps the database's invalid-text-representation error (22P02) to 400 INVALID_PARAMETER as a safety net", async () => {
    const app = await buildApp(h.services);
    // A route that forgot its param schema: the database is the one to refuse the value.
    app.get<{ Params: { id: string } }>('/test-only/accounts/:id', async (request) =>
      h.services.db.select().from(accounts).where(eq(accounts.id, request.params.id)),
    );
    const response = await app.inject({ method: 'GET', url: '/test-only/accounts/------------------------------------' });
    await app.close();
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, code: 'INVALID_PARAMETER', data: null });
  });
});

/** Sends raw bytes on a fresh connection; resolves with what the server wrote before closing. */
function raw(bytes: Buffer | string): Promise<string> {
  const { port } = new URL(h.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(bytes);
  });
}

function parse(answer: string): { status: number; body: any } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
  return { status, body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('requests the HTTP parser rejects', () => {
  const cases: [string, Buffer | string, number, string][] = [
    ['a NUL in a header', 'GET /actuator/health HTTP/1.1\r\nHost: x\r\nX-Test: a\0b\r\n\r\n', 400, 'BAD_REQUEST'],
    ['raw non-ASCII bytes in the path', Buffer.concat([Buffer.from('GET /api/v1/pay-in/check_status/'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]), 400, 'BAD_REQUEST'],
    ['a Content-Length that is not a number', 'POST /api/v1/pay-in/charge HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}', 400, 'BAD_REQUEST'],
    ['two different Content-Length headers', 'POST /api/v1/pay-in/charge HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'BAD_REQUEST'],
    ['an unknown method', 'FROBNICATE /actuator/health HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'BAD_REQUEST'],
    ['a 20 KB header', `GET /actuator/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE'],
    ['a garbage request line', 'HELLO\r\n\r\n', 400, 'BAD_REQUEST'],
  ];
  for (const [name, bytes, status, code] of cases) {
    it(`${name} → ${status} ${code} in the envelope`, async () => {
      const answer = parse(await raw(bytes));
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ success: false, code, data: null });
      expect(typeof answer.body.message).toBe('string');
      expect(answer.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    });
  }

  it('the server keeps serving after them', async () => {
    expect((await h.request('GET', '/actuator/health')).status).toBe(200);
  });
});

describe('bodies that are not JSON on JSON routes', () => {
  it('text/plain gets 415 UNSUPPORTED_MEDIA_TYPE like every other non-JSON type, and creates nothing', async () => {
    const t = await h.createTenant({ environment: 'TEST' });
    const body = JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' });
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/xml', 'application/x-www-form-urlencoded']) {
      const answer = await h.app.inject({ method: 'POST', url: '/api/v1/pay-in/charge', headers: { 'content-type': contentType, 'x-api-key': t.key }, payload: body });
      expect(answer.statusCode, contentType).toBe(415);
      expect(answer.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE', data: null });
    }
    const login = await h.app.inject({ method: 'POST', url: '/api/v1/auth/login', headers: { 'content-type': 'text/plain' }, payload: '{}' });
    expect(login.statusCode).toBe(415);
    // The same body as JSON is accepted.
    const json = await h.app.inject({ method: 'POST', url: '/api/v1/pay-in/charge', headers: { 'content-type': 'application/json', 'x-api-key': t.key }, payload: body });
    expect(json.statusCode).toBe(201);
  });
});
