/**
 * `X-API-KEY` authentication and the key lifecycle: one generic 401 for every bad credential, keys
 * stored only as a SHA-256 digest, one active key per application, rotation without overlap.
 */
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeActiveKey, rotateApiKey } from '../../src/accounts/api-keys.ts';
import { apiKeys, applications } from '../../src/db/schema.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, checkoutBody, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
let payInReference: string;
let payOutReference: string;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
  payInReference = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody() }), 201).reference;
  payOutReference = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201).reference;
});
afterAll(async () => h?.close());

const strip = (json: any) => ({ ...json, timestamp: undefined });

/** Every merchant endpoint, with a valid request body. */
function calls(): [string, string, unknown][] {
  return [
    ['POST', PATHS.checkout, checkoutBody()],
    ['POST', PATHS.charge, chargeBody()],
    ['POST', PATHS.transfer, transferBody()],
    ['GET', PATHS.payInStatus(payInReference), undefined],
    ['GET', PATHS.payOutStatus(payOutReference), undefined],
    ['POST', '/api/v1/pay-in/refund', { reference: payInReference }],
  ];
}

async function expectUnauthorizedEverywhere(headers: Record<string, string>) {
  let reference: unknown;
  for (const [method, path, body] of calls()) {
    const response = await h.request(method, path, { body, headers });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.json.message).toBe('Clé API invalide ou manquante.');
    reference ??= strip(response.json);
    expect(strip(response.json)).toEqual(reference);
  }
}

describe('UNAUTHORIZED (401), the same for every bad credential', () => {
  const unknown = `sk_test_${randomBytes(64).toString('hex')}`;
  it.each([
    ['missing', {}],
    ['empty', { 'x-api-key': '' }],
    ['malformed: 127 hex', { 'x-api-key': `sk_test_${'a'.repeat(127)}` }],
    ['malformed: uppercase hex', { 'x-api-key': `sk_test_${'A'.repeat(128)}` }],
    ['malformed: unknown prefix', { 'x-api-key': `sk_prod_${'a'.repeat(128)}` }],
    ['malformed: garbage', { 'x-api-key': 'hello' }],
    ['unknown', { 'x-api-key': unknown }],
    ['unknown live', { 'x-api-key': unknown.replace('sk_test_', 'sk_live_') }],
    ['a JWT as Bearer, without X-API-KEY', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl' }],
    ['the key as Bearer, without X-API-KEY', { authorization: 'Bearer KEY' }],
  ])('%s', async (_label, headers: Record<string, string>) => {
    const resolved = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('KEY', t.key)]));
    await expectUnauthorizedEverywhere(resolved);
  });

  it('is checked before the body: an invalid body with a bad key is still 401', async () => {
    expectError(await h.request('POST', PATHS.charge, { key: 'nope', body: { amount: 'x' } }), 401, 'UNAUTHORIZED');
    expectError(
      await h.request('POST', PATHS.charge, { key: 'nope', raw: '{', headers: { 'content-type': 'application/json' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('is checked before the parameters: a status read of an invalid reference with an unknown or revoked key is 401', async () => {
    const unknownKey = `sk_test_${randomBytes(64).toString('hex')}`;
    const invalid = `${'x'.repeat(65)}`;
    for (const path of [PATHS.payInStatus(invalid), PATHS.payOutStatus('bad*reference')]) {
      expectError(await h.request('GET', path, { key: unknownKey }), 401, 'UNAUTHORIZED');
      // A valid key gets the parameter's own error.
      expectError(await h.request('GET', path, { key: t.key }), 400, 'INVALID_PARAMETER');
    }
    const tenant = await h.createTenant();
    await revokeActiveKey(h.services.db, tenant.applicationId, h.clock.now());
    expectError(await h.request('GET', PATHS.payInStatus(invalid), { key: tenant.key }), 401, 'UNAUTHORIZED');
    expectError(await h.request('GET', PATHS.payInStatus(payInReference), { key: tenant.key }), 401, 'UNAUTHORIZED');
  });

  it('a revoked key', async () => {
    const tenant = await h.createTenant();
    expectSuccess(await h.request('POST', PATHS.checkout, { key: tenant.key, body: checkoutBody() }), 201);
    await revokeActiveKey(h.services.db, tenant.applicationId, h.clock.now());
    const response = await h.request('POST', PATHS.checkout, { key: tenant.key, body: checkoutBody() });
    expectError(response, 401, 'UNAUTHORIZED');
    const missing = await h.request('POST', PATHS.checkout, { body: checkoutBody() });
    expect(strip(response.json)).toEqual(strip(missing.json));
  });

  it('the key of an application that is no longer active', async () => {
    const tenant = await h.createTenant();
    await h.services.db.update(applications).set({ status: 'SUSPENDED' }).where(eq(applications.id, tenant.applicationId));
    expectError(await h.request('POST', PATHS.checkout, { key: tenant.key, body: checkoutBody() }), 401, 'UNAUTHORIZED');
  });

  it('a valid key wins over a stray Authorization header', async () => {
    expectSuccess(
      await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody(), headers: { authorization: 'Bearer x.y.z' } }),
      201,
    );
  });
});

describe('API keys', () => {
  it('have the documented format, for TEST and LIVE', async () => {
    expect(t.key).toMatch(/^sk_test_[0-9a-f]{128}$/);
    const live = await h.createTenant({ environment: 'LIVE' });
    expect(live.key).toMatch(/^sk_live_[0-9a-f]{128}$/);
  });

  it('are stored only as a SHA-256 digest with a visible prefix', async () => {
    const rows = await h.services.db.select().from(apiKeys).where(eq(apiKeys.applicationId, t.applicationId));
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.keyHash).toBe(createHash('sha256').update(t.key).digest('hex'));
    expect(row.keyPrefix).toBe(t.key.slice(0, 'sk_test_'.length + 8));
    const body = t.key.slice('sk_test_'.length);
    const everything = JSON.stringify(await h.services.db.select().from(apiKeys));
    expect(everything).not.toContain(t.key);
    expect(everything).not.toContain(body);
    expect(everything).not.toContain(body.slice(8, 40));
  });

  it('one active key per application: a second one is refused with API_KEY_ALREADY_ACTIVE (409)', async () => {
    for (const environment of ['TEST', 'LIVE'] as const) {
      const error = await createApiKey(h.services, { applicationId: t.applicationId, name: 'second', environment }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('API_KEY_ALREADY_ACTIVE');
      expect((error as ApiError).status).toBe(409);
    }
    const active = await h.services.db.select().from(apiKeys).where(eq(apiKeys.applicationId, t.applicationId));
    expect(active.filter((k) => k.active)).toHaveLength(1);
    expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody() }), 201);
  });

  it('after a revocation a new key can be created', async () => {
    const tenant = await h.createTenant();
    await revokeActiveKey(h.services.db, tenant.applicationId, h.clock.now());
    const key = await createApiKey(h.services, { applicationId: tenant.applicationId, name: 'again', environment: 'TEST' });
    expectSuccess(await h.request('POST', PATHS.checkout, { key: key.plainTextKey, body: checkoutBody() }), 201);
  });

  it('rotation: the old key fails on the very next request, the new one works', async () => {
    const tenant = await h.createTenant();
    const created = expectSuccess(await h.request('POST', PATHS.charge, { key: tenant.key, body: chargeBody() }), 201);
    const rotated = await rotateApiKey(h.services, { applicationId: tenant.applicationId, name: 'rotated', environment: 'TEST' });
    expect(rotated.plainTextKey).toMatch(/^sk_test_[0-9a-f]{128}$/);
    expect(rotated.plainTextKey).not.toBe(tenant.key);
    expectError(await h.request('GET', PATHS.payInStatus(created.reference), { key: tenant.key }), 401, 'UNAUTHORIZED');
    // The new key sees the application's existing transactions.
    expectSuccess(await h.request('GET', PATHS.payInStatus(created.reference), { key: rotated.plainTextKey }), 200);
    expectSuccess(await h.request('POST', PATHS.checkout, { key: rotated.plainTextKey, body: checkoutBody() }), 201);
    const rows = await h.services.db.select().from(apiKeys).where(eq(apiKeys.applicationId, tenant.applicationId));
    expect(rows.map((r) => r.active).sort()).toEqual([false, true]);
    expect(rows.find((r) => !r.active)?.revokedAt).not.toBeNull();
  });

  it('rotation to LIVE switches the environment (and rails without a connector answer PROVIDER_NOT_FOUND)', async () => {
    const tenant = await h.createTenant();
    const rotated = await rotateApiKey(h.services, { applicationId: tenant.applicationId, name: 'live', environment: 'LIVE' });
    expect(rotated.plainTextKey).toMatch(/^sk_live_[0-9a-f]{128}$/);
    expectError(await h.request('POST', PATHS.charge, { key: rotated.plainTextKey, body: chargeBody() }), 404, 'PROVIDER_NOT_FOUND');
  });
});
