/**
 * Scoped API keys and per-key IP allow-lists, through real HTTP and the real database: a key is
 * issued from the dashboard with scopes and an allow-list; each merchant route refuses a key that
 * lacks its scope (403 API_KEY_SCOPE_DENIED) or is used from an address outside its allow-list
 * (403 API_KEY_IP_DENIED, the address as TRUST_PROXY derives it) and nothing is written; a key
 * issued without scopes holds all four, as keys did before scopes existed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { chargeBody, checkoutBody, countTransactions, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let merchant: DashboardAccount;
beforeAll(async () => {
  // TRUST_PROXY names the loopback proxy: X-Forwarded-For gives the client address.
  h = await startHarness({ ...DASHBOARD_TEST_ENV, TRUST_PROXY: '127.0.0.1' });
  merchant = await createDashboardAccount(h);
});
afterAll(async () => h?.close());

let appCounter = 0;
/** A new application of `merchant` with a TEST key issued over HTTP with `access`. */
async function appWithKey(access: Record<string, unknown>): Promise<{ appId: string; key: string; view: any }> {
  appCounter += 1;
  const app = expectSuccess(await asAccount(h, merchant.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: `Scopes ${appCounter}`, currency: 'XAF' } }), 201);
  const view = expectSuccess(
    await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/apps/${app.id}/api-keys`, { body: { name: 'Clé', environment: 'TEST', ...access } }),
    201,
  );
  return { appId: app.id, key: view.plainTextKey, view };
}

describe('a key issued without scopes (every key issued before scopes existed)', () => {
  it('holds all four scopes and any address, and every route answers it', async () => {
    const { key, view } = await appWithKey({});
    expect(view.scopes).toEqual(['COLLECT', 'PAYOUT', 'REFUND', 'READ']);
    expect(view.allowedIps).toBeNull();
    const charge = expectSuccess(await h.request('POST', PATHS.charge, { key, body: chargeBody() }), 201);
    expectSuccess(await h.request('POST', PATHS.transfer, { key, body: transferBody() }), 201);
    expectSuccess(await h.request('GET', PATHS.payInStatus(charge.reference), { key }), 200);
    expectSuccess(await h.request('GET', '/api/v1/balance', { key }), 200);
    expectSuccess(await h.request('GET', '/api/v1/webhook', { key }), 200);
    expectSuccess(await h.request('GET', '/api/v1/events', { key }), 200);
  });
});

describe('a COLLECT-only key', () => {
  it('collects and reads its pay-ins, and is refused pay-outs, refunds and reads with nothing written', async () => {
    const { appId, key } = await appWithKey({ scopes: ['COLLECT'] });
    const charge = expectSuccess(await h.request('POST', PATHS.charge, { key, body: chargeBody() }), 201);
    expectSuccess(await h.request('POST', PATHS.checkout, { key, body: checkoutBody() }), 201);
    expectSuccess(await h.request('GET', PATHS.payInStatus(charge.reference), { key }), 200);
    const before = await countTransactions(h, appId);

    const refused = await h.request('POST', PATHS.transfer, { key, body: transferBody(), headers: { 'idempotency-key': 'paie-1' } });
    expectError(refused, 403, 'API_KEY_SCOPE_DENIED');
    expect(refused.json.message).toMatch(/portée/);
    expectError(await h.request('POST', PATHS.refund, { key, body: { reference: charge.reference } }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('GET', '/api/v1/balance', { key }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('GET', '/api/v1/transactions', { key }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('GET', '/api/v1/events', { key }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('PATCH', '/api/v1/webhook', { key, body: { webhookUrl: 'https://evil.test/' } }), 403, 'API_KEY_SCOPE_DENIED');
    expect(await countTransactions(h, appId)).toBe(before);
    const settings = expectSuccess(await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/apps/${appId}`), 200);
    expect(settings.webhookUrl ?? null).toBeNull();
  });
});

describe('PAYOUT, REFUND and READ keys', () => {
  it('each does its own work and nothing else', async () => {
    const full = await appWithKey({});
    const charge = expectSuccess(await h.request('POST', PATHS.charge, { key: full.key, body: chargeBody() }), 201);

    const payout = await appWithKey({ scopes: ['PAYOUT'] });
    const transfer = expectSuccess(await h.request('POST', PATHS.transfer, { key: payout.key, body: transferBody() }), 201);
    expectSuccess(await h.request('GET', PATHS.payOutStatus(transfer.reference), { key: payout.key }), 200);
    expectError(await h.request('POST', PATHS.charge, { key: payout.key, body: chargeBody() }), 403, 'API_KEY_SCOPE_DENIED');
    expect(await countTransactions(h, payout.appId)).toBe(1);

    const read = await appWithKey({ scopes: ['READ'] });
    expectSuccess(await h.request('GET', '/api/v1/balance', { key: read.key }), 200);
    expectSuccess(await h.request('GET', '/api/v1/webhook', { key: read.key }), 200);
    expectError(await h.request('POST', PATHS.transfer, { key: read.key, body: transferBody() }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('POST', PATHS.checkout, { key: read.key, body: checkoutBody() }), 403, 'API_KEY_SCOPE_DENIED');
    expect(await countTransactions(h, read.appId)).toBe(0);

    // Narrowing the full key to REFUND in place: the same key stops collecting at once.
    const narrowed = expectSuccess(
      await asAccount(h, merchant.accessToken, 'PATCH', `/api/v1/merchants/apps/${full.appId}/api-keys/active`, { body: { scopes: ['REFUND'] } }),
      200,
    );
    expect(narrowed.scopes).toEqual(['REFUND']);
    expectError(await h.request('POST', PATHS.charge, { key: full.key, body: chargeBody() }), 403, 'API_KEY_SCOPE_DENIED');
    expectError(await h.request('GET', PATHS.payInStatus(charge.reference), { key: full.key }), 403, 'API_KEY_SCOPE_DENIED');
    expect(await countTransactions(h, full.appId)).toBe(1);
  });
});

describe('the IP allow-list', () => {
  it('admits addresses inside its blocks and refuses the others with nothing written', async () => {
    const { appId, key, view } = await appWithKey({ allowedIps: ['203.0.113.0/24', '2001:db8::1'] });
    expect(view.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::1/128']);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });

    expectSuccess(await h.request('POST', PATHS.charge, { key, body: chargeBody(), headers: from('203.0.113.45') }), 201);
    expectSuccess(await h.request('GET', '/api/v1/balance', { key, headers: from('2001:db8::1') }), 200);
    const refused = await h.request('POST', PATHS.transfer, { key, body: transferBody(), headers: from('198.51.100.9') });
    expectError(refused, 403, 'API_KEY_IP_DENIED');
    expect(refused.json.message).toMatch(/adresse IP/);
    // Without X-Forwarded-For the client is the loopback peer: outside the list too.
    expectError(await h.request('POST', PATHS.charge, { key, body: chargeBody() }), 403, 'API_KEY_IP_DENIED');
    expect(await countTransactions(h, appId)).toBe(1);

    // Rotation keeps the allow-list; clearing it admits every address again.
    const rotated = expectSuccess(
      await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: { name: 'Clé 2', environment: 'TEST' } }),
      201,
    );
    expect(rotated.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::1/128']);
    expectError(await h.request('GET', '/api/v1/balance', { key: rotated.plainTextKey }), 403, 'API_KEY_IP_DENIED');
    expectSuccess(await asAccount(h, merchant.accessToken, 'PATCH', `/api/v1/merchants/apps/${appId}/api-keys/active`, { body: { allowedIps: null } }), 200);
    expectSuccess(await h.request('GET', '/api/v1/balance', { key: rotated.plainTextKey }), 200);
  });

  it('refuses an entry that is neither an address nor a CIDR block, and an empty scope list', async () => {
    appCounter += 1;
    const app = expectSuccess(await asAccount(h, merchant.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: `Scopes ${appCounter}`, currency: 'XAF' } }), 201);
    const path = `/api/v1/merchants/apps/${app.id}/api-keys`;
    const bad = await asAccount(h, merchant.accessToken, 'POST', path, { body: { name: 'Clé', environment: 'TEST', allowedIps: ['10.0.0.0/33'] } });
    expect(Object.keys(expectError(bad, 400, 'VALIDATION_ERROR'))).toEqual(['allowedIps']);
    const empty = await asAccount(h, merchant.accessToken, 'POST', path, { body: { name: 'Clé', environment: 'TEST', scopes: [] } });
    expect(Object.keys(expectError(empty, 400, 'VALIDATION_ERROR'))).toEqual(['scopes']);
    const unknown = await asAccount(h, merchant.accessToken, 'POST', path, { body: { name: 'Clé', environment: 'TEST', scopes: ['WITHDRAW'] } });
    expectError(unknown, 400, 'VALIDATION_ERROR');
  });
});
