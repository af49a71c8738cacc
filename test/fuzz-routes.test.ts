/**
 * Property-based fuzzing of every route in `/openapi.json`, through real HTTP against a real
 * database: for each documented (method, path), fast-check generates requests a careless client or
 * an attacker would send (wrong types, nulls, huge numbers, unicode, prototype-pollution keys,
 * malformed JSON, wrong content types, oversized bodies, odd path parameters and query strings,
 * missing or wrong credentials) and asserts:
 * - never a 5xx;
 * - every error answer is the error envelope `{success:false, code, message, data, timestamp}`
 *   with a French message;
 * - nothing pollutes `Object.prototype`.
 * Bounded: FUZZ_RUNS runs per route (default 12; e.g. `FUZZ_RUNS=500 npx vitest run
 * test/fuzz-routes.test.ts` for a long run). FUZZ_SEED replays a failure fast-check reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createDashboardAccount, createStaffAccount, type DashboardAccount, type StaffAccount } from './helpers/dashboard.ts';
import { ERRORS } from '../src/domain/errors.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let h: Harness;
let tenant: Tenant;
let admin: StaffAccount;
let merchant: DashboardAccount;
const routes: { method: string; path: string; bodyKeys: string[]; queryKeys: string[] }[] = [];

beforeAll(async () => {
  // Cheap password hashing: the fuzzer may hit register/login thousands of times in a long run.
  h = await startHarness({ PASSWORD_SCRYPT_LOG_N: '14', CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: '10000' });
  tenant = await h.createTenant();
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  merchant = await createDashboardAccount(h, { role: 'MERCHANT' });
  const spec = (await h.request('GET', '/openapi.json')).json;
  for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, any>>)) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      const queryKeys = (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string);
      routes.push({ method: method.toUpperCase(), path, bodyKeys: Object.keys(schema?.properties ?? {}), queryKeys });
    }
  }
}, 120_000);
afterAll(async () => h?.close());

/** Prototype-pollution and other hostile keys. */
const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', '$where', '');
/** Strings a careless client or an attacker sends. */
const hostileString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'null', 'undefined', 'NaN', '-0', '1e309', '"; drop table accounts; --', '../../etc/passwd', '%00', '\uFEFF', '\uD800', 'é'.repeat(300), 'x'.repeat(5000), '<script>alert(1)</script>', '{{7*7}}', '${7*7}', '00000000-0000-0000-0000-000000000000', 'sk_test_' + 'a'.repeat(128), 'PI-000000000000', '237677000001', '+237 6 77 00 00 01', 'whsec_' + '0'.repeat(64)),
);
/** Numbers JSON can carry, and some it cannot quite. */
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324, 99_999_999_999_999_999_999),
);
const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 })),
})).value;

/** A body built on the route's own field names (so validation is reached field by field), or anything at all. */
function bodyFor(keys: string[]) {
  const fields =
    keys.length === 0
      ? fc.constant({} as Record<string, unknown>)
      : fc.dictionary(fc.oneof(fc.constantFrom(...keys), hostileKey), hostileValue, { maxKeys: keys.length + 2 });
  return fc.oneof(
    { weight: 5, arbitrary: fields.map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{', '{"amount":', '[]', 'null', '""', '\u0000', '{"a":1,"a":2}', '{"amount": 1e999999}') },
    { weight: 1, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json, text/plain',
  undefined,
);
type Credential = 'none' | 'apiKey' | 'admin' | 'merchant' | 'garbageKey' | 'garbageBearer' | 'both';
const credential = fc.constantFrom<Credential>('none', 'apiKey', 'admin', 'merchant', 'garbageKey', 'garbageBearer', 'both');
/** Path parameters: anything, real-looking ids, and near-misses of the shapes the routes expect. */
const pathValue = fc.oneof(
  hostileString,
  fc.uuid(),
  fc.stringMatching(/^[0-9a-f-]{36}$/),
  fc.stringMatching(/^[0-9a-fA-F]{30,40}$/),
  fc.stringMatching(/^P[IO]-[0-9A-Za-z]{10,14}$/),
  fc.constantFrom('PI-0123456789AB', 'PO-0123456789AB', 'cs_' + '0'.repeat(32), '------------------------------------'),
);

function headersFor(who: Credential, type: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (type) headers['content-type'] = type;
  if (who === 'apiKey' || who === 'both') headers['x-api-key'] = tenant.key;
  if (who === 'garbageKey') headers['x-api-key'] = 'sk_test_' + 'z'.repeat(128);
  if (who === 'admin' || who === 'both') headers.authorization = `Bearer ${admin.accessToken}`;
  if (who === 'merchant') headers.authorization = `Bearer ${merchant.accessToken}`;
  if (who === 'garbageBearer') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
  return headers;
}

/** Percent-encodes a path segment, lone surrogates included (as their UTF-8 replacement bytes). */
function encodeSegment(value: string): string {
  if (value === '') return '%20';
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

/** Asserts the answer is not a 5xx and, when an error, is the envelope. */
function checkAnswer(label: string, status: number, text: string, responseType: string | null) {
  expect(status, `${label} → ${status} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  expect(responseType, `${label}: error content type`).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(Object.keys(body).sort(), label).toEqual(['code', 'data', 'message', 'success', 'timestamp']);
  expect(body.success, label).toBe(false);
  expect(Object.keys(ERRORS), `${label}: code ${body.code}`).toContain(body.code);
  expect(typeof body.message, label).toBe('string');
  expect(body.timestamp, label).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
}

describe('fuzzing every route of /openapi.json', () => {
  it('covers the documented routes', () => {
    // Merchant API, webhooks, dashboard auth, apps, keys, webhooks, admin: the whole contract.
    expect(routes.length).toBeGreaterThanOrEqual(50);
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain('POST /api/v1/pay-in/charge');
  });

  it(`never answers 5xx, and every error is the envelope (${RUNS} runs per route)`, async () => {
    for (const route of routes) {
      const request = fc.record({
        params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
        query: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...route.queryKeys, 'page', 'size'), hostileKey, fc.string({ maxLength: 6 })), hostileString), { maxLength: 4 }),
        body: bodyFor(route.bodyKeys),
        type: contentType,
        who: credential,
        isOversized: fc.boolean().map((b) => b && Math.random() < 0.05),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ params, query, body, type, who, isOversized }) => {
          let i = 0;
          const path = route.path.replace(/\{[^}]+\}/g, () => encodeSegment(params[i++]!));
          const search = new URLSearchParams(query).toString();
          const url = `${h.baseUrl}${path}${search ? `?${search}` : ''}`;
          const hasBody = route.method !== 'GET' && route.method !== 'DELETE' ? true : body !== undefined && Math.random() < 0.2;
          const payload = isOversized ? `{"x":"${'a'.repeat(h.config.bodyLimitBytes + 10)}"}` : body;
          const response = await fetch(url, {
            method: route.method,
            headers: headersFor(who, type),
            body: hasBody && route.method !== 'GET' ? payload : undefined,
            redirect: 'manual',
          });
          const text = await response.text();
          checkAnswer(`${route.method} ${path} (${who}, ${type})`, response.status, text, response.headers.get('content-type'));
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    // Nothing the fuzzer sent reached Object.prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    // The service still answers normally afterwards.
    expect((await h.request('GET', '/actuator/health')).status).toBe(200);
  }, 600_000);
});
