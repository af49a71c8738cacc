/**
 * An administrator suspends a merchant → every API key of that merchant is refused on the very next
 * request (401 UNAUTHORIZED, the answer of any invalid key), its checkout pages take no new
 * attempt, while what was already PENDING still settles and its webhooks are still delivered;
 * reactivation restores the keys. And LIVE and TEST are separate worlds: a key never reads a
 * transaction of the other environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createStaffAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { chargeBody, expectError, transferBody } from '../helpers/merchant-api.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { settle, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { webhookDeliveries, webhookEvents } from '../../src/db/schema-webhooks.ts';
import { transaction } from '../../src/db/client.ts';

let h: Harness;
let admin: StaffAccount;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

async function setMerchantStatus(merchantId: string, status: 'ACTIVE' | 'SUSPENDED') {
  const response = await asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/merchants/${merchantId}/status`, { body: { status } });
  expect(response.status).toBe(200);
}

describe('a suspended merchant', () => {
  it('has every key refused on the next request, its pages closed, its pending payments settled and reported; reactivation restores all', async () => {
    const t = await h.createTenant();
    expect((await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: receiver.url } })).status).toBe(200);
    // A second application of the same merchant: its key is refused too.
    const other = await createApplication(h.services, { merchantId: t.merchantId, name: 'Autre boutique', currency: 'XAF' });
    const otherKey = (await createApiKey(h.services, { applicationId: other.id, name: 'k', environment: 'TEST' })).plainTextKey;

    const pending = await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: chargeBody() });
    expect(pending.status).toBe(201);
    const reference = pending.json.data.reference as string;
    const checkout = await createCheckout(h, t);
    const customer = formClient(h);
    const form = await customer.get(checkout.path);
    expect(form.status).toBe(200);

    await setMerchantStatus(t.merchantId, 'SUSPENDED');

    expectError(await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: chargeBody() }), 401, 'UNAUTHORIZED');
    expectError(await h.request('POST', '/api/v1/pay-out/transfer', { key: t.key, body: transferBody() }), 401, 'UNAUTHORIZED');
    expectError(await h.request('POST', '/api/v1/pay-in/checkout', { key: t.key, body: { amount: 5000, currency: 'XAF' } }), 401, 'UNAUTHORIZED');
    expectError(await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: t.key }), 401, 'UNAUTHORIZED');
    expectError(await h.request('POST', '/api/v1/pay-in/charge', { key: otherKey, body: chargeBody() }), 401, 'UNAUTHORIZED');
    // The same answer as a key that never existed.
    const unknown = await h.request('POST', '/api/v1/pay-in/charge', { key: `sk_test_${'0'.repeat(128)}`, body: chargeBody() });
    const refused = await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: chargeBody() });
    expect({ ...refused.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });

    // The hosted page takes no new attempt, and says so.
    const post = await customer.post(`${checkout.path}/pay`, { _csrf: form.csrf!, rail: 'MTN_MOMO_CM', phone: '677000001' });
    expect(post.status).toBe(403);
    expect(post.html).toContain('accepte pas de paiements');
    const page = await customer.get(checkout.path);
    expect(page.status).toBe(403);
    expect(page.html).not.toContain('name="phone"');

    // What was already PENDING still settles, and its webhook is still delivered.
    await settle(h);
    const [event] = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.applicationId, t.applicationId));
    expect(event?.eventName).toBe('payment.success');
    await deliverOnce(h.services);
    const [delivery] = await h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id));
    expect(delivery?.status).toBe('DELIVERED');
    expect(receiver.received.some((r) => JSON.parse(r.body).data.reference === reference)).toBe(true);

    await setMerchantStatus(t.merchantId, 'ACTIVE');
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: t.key });
    expect(status.status).toBe(200);
    expect(status.json.data.status).toBe('SUCCESS');
    expect((await h.request('POST', '/api/v1/pay-in/charge', { key: otherKey, body: chargeBody() })).status).toBe(201);
    expect((await customer.get(checkout.path)).status).toBe(200);
  });
});

describe('LIVE and TEST', () => {
  it('never read each other’s transactions: 404 TRANSACTION_NOT_FOUND, as for an unknown reference', async () => {
    const t = await h.createTenant();
    const created = await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: chargeBody() });
    const transfer = await h.request('POST', '/api/v1/pay-out/transfer', { key: t.key, body: transferBody() });
    expect(created.status).toBe(201);
    expect(transfer.status).toBe(201);
    // Same application, LIVE key (the TEST one revoked, one active key per application).
    await transaction(h.services.db, async (tx) => {
      const { revokeActiveKey } = await import('../../src/accounts/api-keys.ts');
      await revokeActiveKey(tx as never, t.applicationId, h.clock.now());
    });
    const live = (await createApiKey(h.services, { applicationId: t.applicationId, name: 'live', environment: 'LIVE' })).plainTextKey;
    const unknownAnswer = await h.request('GET', '/api/v1/pay-in/check_status/PI-000000000000', { key: live });
    expectError(unknownAnswer, 404, 'TRANSACTION_NOT_FOUND');
    const crossIn = await h.request('GET', `/api/v1/pay-in/check_status/${created.json.data.reference}`, { key: live });
    expectError(crossIn, 404, 'TRANSACTION_NOT_FOUND');
    expect(crossIn.json.message).toBe(unknownAnswer.json.message);
    expectError(await h.request('GET', `/api/v1/pay-out/check_status/${transfer.json.data.reference}`, { key: live }), 404, 'TRANSACTION_NOT_FOUND');
  });
});
