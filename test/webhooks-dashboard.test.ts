/**
 * The dashboard webhook endpoints (`/api/v1/merchants/apps/{appId}/webhook…`) with real login
 * tokens: settings, secret create / rotate / delete, test event, delivery log and replay, and
 * tenant isolation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness } from './harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from './helpers/dashboard.ts';
import { chargeTo, startReceiver, verifySharepaySignature, type Receiver } from './helpers/webhooks.ts';
import { createApplication } from '../src/accounts/applications.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import { webhookDeliveries } from '../src/db/schema-webhooks.ts';
import { auditLog } from '../src/db/schema-dashboard.ts';
import { deliverOnce } from '../src/jobs/webhook-worker.ts';
import { MAX_ATTEMPTS } from '../src/webhooks/retry-schedule.ts';

let h: Harness;
let receiver: Receiver;
let owner: DashboardAccount;
let stranger: DashboardAccount;
let appId: string;
let key: string;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
  // The standardwebhooks verifier compares the signed timestamp with the real time.
  h.clock.set(new Date());
  owner = await createDashboardAccount(h);
  stranger = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: owner.accountId, name: 'Boutique', currency: 'XAF' });
  appId = app.id;
  key = (await createApiKey(h.services, { applicationId: appId, name: 'k', environment: 'TEST' })).plainTextKey;
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answers.length = 0;
  receiver.fallback = { status: 200, body: 'ok' };
});

const path = (suffix = '') => `/api/v1/merchants/apps/${appId}/webhook${suffix}`;

describe('dashboard webhook configuration', () => {
  it('reads and sets the URL; only the owner may', async () => {
    const read = await asAccount(h, owner.accessToken, 'GET', path());
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({ applicationId: appId, applicationName: 'Boutique', webhookUrl: null, webhookSecretPrefix: null });
    const set = await asAccount(h, owner.accessToken, 'PATCH', path(), { body: { webhookUrl: receiver.url } });
    expect(set.status).toBe(200);
    expect(set.json.data.webhookUrl).toBe(receiver.url);
    expect((await asAccount(h, stranger.accessToken, 'GET', path())).json.code).toBe('APP_NOT_FOUND');
    expect((await asAccount(h, stranger.accessToken, 'PATCH', path(), { body: { webhookUrl: null } })).status).toBe(404);
    expect((await h.request('GET', path())).status).toBe(401);
    // The API key is not a dashboard credential.
    expect((await h.request('GET', path(), { key })).status).toBe(401);
    const invalid = await asAccount(h, owner.accessToken, 'PATCH', path(), { body: { webhookUrl: 'ftp://x.example/' } });
    expect(invalid.json).toMatchObject({ code: 'VALIDATION_ERROR', data: { webhookUrl: expect.any(String) } });
  });

  it('creates a secret shown once, rotates it with an overlap, deletes it', async () => {
    const created = await asAccount(h, owner.accessToken, 'POST', path('/secret'), { body: {} });
    expect(created.status).toBe(201);
    const first = created.json.data.plainTextWebhookSecret as string;
    expect(first).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(created.json.data.webhookSecretPrefix).toBe(`${first.slice(0, 14)}...`);
    const read = await asAccount(h, owner.accessToken, 'GET', path());
    expect(read.text).not.toContain(first.slice(14));
    expect(read.json.data.webhookSecretPrefix).toBe(`${first.slice(0, 14)}...`);
    const twice = await asAccount(h, owner.accessToken, 'POST', path('/secret'), { body: {} });
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe('WEBHOOK_SECRET_ALREADY_EXISTS');

    const rotated = await asAccount(h, owner.accessToken, 'POST', path('/rotate'), { body: {} });
    expect(rotated.status).toBe(200);
    const second = rotated.json.data.plainTextWebhookSecret as string;
    expect(second).not.toBe(first);
    const test = await asAccount(h, owner.accessToken, 'POST', path('/test'), { body: { data: { hello: 'monde' } } });
    expect(test.json.data).toMatchObject({ delivered: true, httpStatus: 200, webhookUrl: receiver.url });
    const got = receiver.received[0]!;
    expect(JSON.parse(got.body)).toMatchObject({ event: 'webhook.test', data: { hello: 'monde' } });
    for (const secret of [first, second]) {
      expect(() => new Webhook(secret).verify(got.body, got.headers)).not.toThrow();
    }
    // The compatibility header carries the current secret's signature only (SharePay's rotation).
    expect(verifySharepaySignature(second, got.body, got.headers['x-sharepay-signature'])).toBe(true);
    expect(verifySharepaySignature(first, got.body, got.headers['x-sharepay-signature'])).toBe(false);

    const deleted = await asAccount(h, owner.accessToken, 'DELETE', path('/secret'));
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    await asAccount(h, owner.accessToken, 'POST', path('/test'), { body: {} });
    expect(receiver.received[1]!.headers['webhook-signature']).toBeUndefined();
    expect(receiver.received[1]!.headers['x-sharepay-signature']).toBeUndefined();
    expect((await asAccount(h, owner.accessToken, 'DELETE', path('/secret'))).json.code).toBe('WEBHOOK_SECRET_NOT_FOUND');
    expect((await asAccount(h, stranger.accessToken, 'POST', path('/rotate'), { body: {} })).status).toBe(404);
  });

  it('lists deliveries page by page, filters by status, and replays a FAILED one', async () => {
    expect((await asAccount(h, owner.accessToken, 'PATCH', path(), { body: { webhookUrl: receiver.url } })).status).toBe(200);
    receiver.fallback = { status: 500 };
    await chargeTo(h, { applicationId: appId, key, keyId: '', merchantId: owner.accountId }, 'SUCCESS');
    await deliverOnce(h.services);
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      h.clock.advance(13 * 3_600_000);
      await deliverOnce(h.services);
    }
    // Days have passed on the manual clock: log in again.
    owner = { ...owner, ...(await login(h, owner.email, owner.password)) };
    stranger = { ...stranger, ...(await login(h, stranger.email, stranger.password)) };
    const failed = await asAccount(h, owner.accessToken, 'GET', path('/deliveries?status=FAILED&page=0&size=10'));
    expect(failed.status).toBe(200);
    expect(failed.json.data).toMatchObject({ totalElements: 1, totalPages: 1, size: 10, number: 0, first: true, last: true });
    const [row] = failed.json.data.content;
    expect(row).toMatchObject({ eventName: 'payment.success', status: 'FAILED', httpStatus: 500, attemptCount: MAX_ATTEMPTS, nextRetryAt: null, lastError: 'HTTP 500' });

    const all = await asAccount(h, owner.accessToken, 'GET', path('/deliveries?size=1'));
    expect(all.json.data.totalElements).toBeGreaterThanOrEqual(3);
    expect(all.json.data.content).toHaveLength(1);
    expect(all.json.data.last).toBe(false);
    expect((await asAccount(h, owner.accessToken, 'GET', path('/deliveries?size=0'))).json.code).toBe('INVALID_PARAMETER');
    expect((await asAccount(h, owner.accessToken, 'GET', path('/deliveries?status=LOST'))).status).toBe(400);
    expect((await asAccount(h, stranger.accessToken, 'GET', path('/deliveries'))).status).toBe(404);

    expect((await asAccount(h, stranger.accessToken, 'POST', path(`/deliveries/${row.id}/replay`), { body: {} })).status).toBe(404);
    receiver.fallback = { status: 200 };
    const replay = await asAccount(h, owner.accessToken, 'POST', path(`/deliveries/${row.id}/replay`), { body: {} });
    expect(replay.status).toBe(200);
    expect(replay.json.data).toMatchObject({ id: row.id, status: 'PENDING' });
    await deliverOnce(h.services);
    const [after] = await h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, row.id));
    expect(after).toMatchObject({ status: 'DELIVERED', attemptCount: MAX_ATTEMPTS + 1 });
    const missing = await asAccount(h, owner.accessToken, 'POST', path('/deliveries/00000000-0000-0000-0000-000000000000/replay'), { body: {} });
    expect(missing.json.code).toBe('WEBHOOK_DELIVERY_NOT_FOUND');
  });

  it("filters deliveries by a transaction's reference, within the application only", async () => {
    expect((await asAccount(h, owner.accessToken, 'PATCH', path(), { body: { webhookUrl: receiver.url } })).status).toBe(200);
    const tenant = { applicationId: appId, key, keyId: '', merchantId: owner.accountId };
    const paid = await chargeTo(h, tenant, 'SUCCESS');
    const declined = await chargeTo(h, tenant, 'FAILED');
    await deliverOnce(h.services);
    const ofPaid = await asAccount(h, owner.accessToken, 'GET', path(`/deliveries?reference=${paid}`));
    expect(ofPaid.status).toBe(200);
    expect(ofPaid.json.data).toMatchObject({ totalElements: 1, totalPages: 1, first: true, last: true });
    expect(ofPaid.json.data.content[0]).toMatchObject({ eventName: 'payment.success', status: 'DELIVERED', httpStatus: 200, attemptCount: 1 });
    const ofDeclined = await asAccount(h, owner.accessToken, 'GET', path(`/deliveries?reference=${declined}&status=DELIVERED`));
    expect(ofDeclined.json.data.content.map((d: { eventName: string }) => d.eventName)).toEqual(['payment.failed']);
    expect((await asAccount(h, owner.accessToken, 'GET', path(`/deliveries?reference=${declined}&status=FAILED`))).json.data.totalElements).toBe(0);

    // Another application's transaction, even the same merchant's, is not this application's.
    const otherApp = await createApplication(h.services, { merchantId: owner.accountId, name: 'Autre', currency: 'XAF' });
    const otherKey = (await createApiKey(h.services, { applicationId: otherApp.id, name: 'k', environment: 'TEST' })).plainTextKey;
    await asAccount(h, owner.accessToken, 'PATCH', `/api/v1/merchants/apps/${otherApp.id}/webhook`, { body: { webhookUrl: receiver.url } });
    const elsewhere = await chargeTo(h, { applicationId: otherApp.id, key: otherKey, keyId: '', merchantId: owner.accountId }, 'SUCCESS');
    await deliverOnce(h.services);
    expect((await asAccount(h, owner.accessToken, 'GET', path(`/deliveries?reference=${elsewhere}`))).json.data).toMatchObject({ totalElements: 0, content: [] });
    expect((await asAccount(h, owner.accessToken, 'GET', path('/deliveries?reference=PI-FFFFFFFFFFFF'))).json.data.totalElements).toBe(0);
    expect((await asAccount(h, stranger.accessToken, 'GET', path(`/deliveries?reference=${paid}`))).json.code).toBe('APP_NOT_FOUND');
    const malformed = await asAccount(h, owner.accessToken, 'GET', path("/deliveries?reference=' or 1=1"));
    expect(malformed.status).toBe(400);
    expect(malformed.json.success).toBe(false);
  });
});

describe('dashboard webhook actions in the audit log', () => {
  it('records URL changes, secret create / rotate / delete and replays, without the secret', async () => {
    await asAccount(h, owner.accessToken, 'PATCH', path(), { body: { webhookUrl: receiver.url } });
    await asAccount(h, owner.accessToken, 'DELETE', path('/secret'));
    const created = await asAccount(h, owner.accessToken, 'POST', path('/secret'), { body: {} });
    expect(created.status).toBe(201);
    await asAccount(h, owner.accessToken, 'POST', path('/rotate'), { body: {} });
    const rows = await h.services.db.select().from(auditLog).where(eq(auditLog.targetId, appId));
    const actions = rows.map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['WEBHOOK_URL_UPDATED', 'WEBHOOK_SECRET_DELETED', 'WEBHOOK_SECRET_CREATED', 'WEBHOOK_SECRET_ROTATED']));
    for (const row of rows) {
      expect(row).toMatchObject({ actorId: owner.accountId, actorRole: 'MERCHANT', targetType: 'APPLICATION' });
    }
    expect(JSON.stringify(rows)).not.toContain(created.json.data.plainTextWebhookSecret);
    // The delivery log test above left deliveries of this application.
    const [delivery] = await h.services.db.select().from(webhookDeliveries).limit(1);
    expect(delivery).toBeDefined();
    await asAccount(h, owner.accessToken, 'POST', path(`/deliveries/${delivery!.id}/replay`), { body: {} });
    const [replay] = await h.services.db.select().from(auditLog).where(eq(auditLog.targetId, delivery!.id));
    expect(replay).toMatchObject({ action: 'WEBHOOK_DELIVERY_REPLAYED', actorId: owner.accountId });
  });
});
