/**
 * The whole path of a new merchant: sign up → verify the e-mail with the code read from the mail
 * file → log in → create an application → create a key → use it on the merchant API → rotate → the
 * old key is refused at once → the new key works.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

let h: Harness;
let mailDir: string;
beforeAll(async () => {
  mailDir = mkdtempSync(join(tmpdir(), 'kolo-mail-'));
  h = await startHarness({ ...DASHBOARD_TEST_ENV, MAIL_DIR: mailDir });
});
afterAll(async () => {
  await h.close();
  rmSync(mailDir, { recursive: true, force: true });
});

const charge = (key: string, idempotencyKey: string) =>
  h.request('POST', '/api/v1/pay-in/charge', {
    key,
    body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey },
  });

it('sign up → verify → log in → app → key → charge → rotate → old key 401 → new key works', async () => {
  const email = 'nouvelle@boutique.test';
  const password = 'un-mot-de-passe-solide';
  const signUp = await h.request('POST', '/api/v1/auth/register', {
    body: { fullName: 'Nouvelle Boutique', email, phone: '+237 677 00 00 01', password, country: 'CM' },
  });
  expect(signUp.status).toBe(201);

  const files = readdirSync(mailDir);
  expect(files).toHaveLength(1);
  const mail = readFileSync(join(mailDir, files[0]!), 'utf8');
  expect(mail).toContain(`To: ${email}`);
  const otp = mail.match(/\b(\d{6})\b/)![1]!;
  expect((await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp } })).status).toBe(200);

  const session = await h.request('POST', '/api/v1/auth/login', { body: { email, password } });
  expect(session.status).toBe(200);
  const token = session.json.data.accessToken as string;

  const app = await asAccount(h, token, 'POST', '/api/v1/merchants/apps', { body: { name: 'Boutique', currency: 'XAF' } });
  expect(app.status).toBe(201);
  const appId = app.json.data.id as string;

  const key = await asAccount(h, token, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Test', environment: 'TEST' } });
  expect(key.status).toBe(201);
  const firstKey = key.json.data.plainTextKey as string;

  const first = await charge(firstKey, 'flow-1');
  expect(first.status).toBe(201);
  expect(first.json.data.reference).toMatch(/^PI-[0-9A-F]{12}$/);
  // The dashboard's bearer token is no credential for the merchant API.
  expect((await h.request('POST', '/api/v1/pay-in/charge', { headers: { authorization: `Bearer ${token}` }, body: {} })).status).toBe(401);

  const rotated = await asAccount(h, token, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, {
    body: { name: 'Test 2', environment: 'TEST' },
  });
  expect(rotated.status).toBe(201);
  const secondKey = rotated.json.data.plainTextKey as string;
  expect(secondKey).not.toBe(firstKey);

  const old = await charge(firstKey, 'flow-2');
  expect(old.status).toBe(401);
  expect(old.json.code).toBe('UNAUTHORIZED');
  const fresh = await charge(secondKey, 'flow-3');
  expect(fresh.status).toBe(201);

  const active = await asAccount(h, token, 'GET', `/api/v1/merchants/apps/${appId}/api-keys/active`);
  expect(active.json.data.keyPrefix).toBe(secondKey.slice(0, 16));
  expect(active.json.data.lastUsedAt).not.toBeNull();
});

it('documents the dashboard routes in OpenAPI with the bearer scheme', async () => {
  const spec = (await h.request('GET', '/openapi.json')).json;
  expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(spec.paths['/api/v1/auth/login'].post.tags).toEqual(['Dashboard : authentification']);
  expect(spec.paths['/api/v1/merchants/apps/{appId}/api-keys/rotate'].post.security).toEqual([{ bearerAuth: [] }]);
  expect(spec.paths['/api/v1/admin/audit-log'].get.summary).toBeTruthy();
});
