/**
 * Webhook events end to end: a real receiver on loopback, status changes driven through the
 * API, the sandbox and the poller; the worker tick delivers. Covers each event type, the body,
 * the outbox guarantee, unsigned deliveries, both signature schemes and secret rotation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { chargeTo, startReceiver, transactionRow, transferTo, verifySharepaySignature, type Receiver } from './helpers/webhooks.ts';
import { deliverOnce } from '../src/jobs/webhook-worker.ts';
import { webhookDeliveries, webhookEvents, webhookSecrets } from '../src/db/schema-webhooks.ts';
import { applyTransition } from '../src/payments/apply-transition.ts';
import { createWebhookSecret, rotateWebhookSecret } from '../src/webhooks/webhook-secrets.ts';

let h: Harness;
let t: Tenant;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
  t = await h.createTenant();
  const set = await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: receiver.url } });
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answers.length = 0;
});

async function statusData(reference: string) {
  const path = reference.startsWith('PI-') ? `/api/v1/pay-in/check_status/${reference}` : `/api/v1/pay-out/check_status/${reference}`;
  const res = await h.request('GET', path, { key: t.key });
  return res.json.data;
}

describe('events', () => {
  it('delivers payment.success with the compatibility body, data as the status endpoint shows it', async () => {
    const reference = await chargeTo(h, t, 'SUCCESS', 'order-42');
    const tick = await deliverOnce(h.services);
    expect(tick.claimed).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hooks/kolo');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-sharepay-event']).toBe('payment.success');
    const body = JSON.parse(got.body);
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'applicationId', 'data', 'id']);
    expect(body.event).toBe('payment.success');
    expect(body.applicationId).toBe(t.applicationId);
    expect(Number.isInteger(body.timestamp)).toBe(true);
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(got.headers['webhook-id']).toBe(body.id);
    expect(body.data).toEqual({ ...(await statusData(reference)), merchantReference: 'order-42' });
    expect(body.data.status).toBe('SUCCESS');
  });

  it('delivers payment.failed, payout.success and payout.failed, each announcing its own status', async () => {
    const failed = await chargeTo(h, t, 'FAILED');
    const paid = await transferTo(h, t, 'SUCCESS');
    const payoutFailed = await transferTo(h, t, 'FAILED');
    await deliverOnce(h.services);
    const byRef = new Map(receiver.received.map((r) => [JSON.parse(r.body).data.reference as string, JSON.parse(r.body)]));
    expect(byRef.get(failed)).toMatchObject({ event: 'payment.failed', data: { status: 'FAILED', failureCode: 'REJECTED_BY_PAYER' } });
    expect(byRef.get(paid)).toMatchObject({ event: 'payout.success', data: { status: 'SUCCESS', beneficiaryName: 'Awa Mbarga' } });
    expect(byRef.get(payoutFailed)).toMatchObject({ event: 'payout.failed', data: { status: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS' } });
    for (const ref of [failed, paid, payoutFailed]) expect(byRef.get(ref)!.data).toEqual({ ...(await statusData(ref)), merchantReference: null });
    expect(receiver.received).toHaveLength(3);
  });

  it('delivers payment.cancelled when a checkout is cancelled', async () => {
    const created = await h.request('POST', '/api/v1/pay-in/checkout', {
      key: t.key,
      body: { amount: 1500, currency: 'XAF', merchantReference: 'cart-7', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    const row = await transactionRow(h, created.json.data.reference);
    const cancelled = await applyTransition(h.services, { transactionId: row.id, event: 'CUSTOMER_CANCELLED', cause: 'CUSTOMER' });
    expect(cancelled?.status).toBe('CANCELLED');
    await deliverOnce(h.services);
    expect(receiver.received).toHaveLength(1);
    const body = JSON.parse(receiver.received[0]!.body);
    expect(body).toMatchObject({ event: 'payment.cancelled', data: { status: 'CANCELLED', merchantReference: 'cart-7', paymentUrl: null } });
  });

  it('sends one event per status change, never again for the same change', async () => {
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    h.clock.advance(3_600_000);
    const again = await deliverOnce(h.services);
    expect(again.claimed).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('outbox', () => {
  it('writes the delivery in the status change transaction: both commit, or neither', async () => {
    const created = await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
    });
    const row = await transactionRow(h, created.json.data.reference);
    // A failure later in the same transaction (a stand-in for a crash before commit)…
    const boom = {
      written: async () => {
        throw new Error('crash before commit');
      },
    };
    h.services.statusListeners.push(boom);
    await expect(applyTransition(h.services, { transactionId: row.id, event: 'MONEY_MOVED', cause: 'TEST' })).rejects.toThrow('crash');
    h.services.statusListeners.splice(h.services.statusListeners.indexOf(boom), 1);
    // …leaves neither the status change nor an event.
    expect((await transactionRow(h, created.json.data.reference)).status).toBe('PENDING');
    expect(await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id))).toHaveLength(0);
    // A committed change has its PENDING delivery, due now, before any worker ran.
    const updated = await applyTransition(h.services, { transactionId: row.id, event: 'MONEY_MOVED', cause: 'TEST' });
    expect(updated?.status).toBe('SUCCESS');
    const rows = await h.services.db
      .select({ status: webhookDeliveries.status, eventName: webhookEvents.eventName })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(eq(webhookEvents.transactionId, row.id));
    expect(rows).toEqual([{ status: 'PENDING', eventName: 'payment.success' }]);
    await deliverOnce(h.services);
    expect(receiver.received).toHaveLength(1);
  });

  it('writes the event but no delivery when the application has no webhook URL', async () => {
    const other = await h.createTenant();
    const reference = await chargeTo(h, other, 'SUCCESS');
    const row = await transactionRow(h, reference);
    const events = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id));
    expect(events.map((e) => [e.eventName, e.environment])).toEqual([['payment.success', 'TEST']]);
    expect(await h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events[0]!.id))).toHaveLength(0);
  });
});

describe('signatures', () => {
  it('sends deliveries unsigned while the application has no secret', async () => {
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const headers = receiver.received[0]!.headers;
    expect(headers['webhook-signature']).toBeUndefined();
    expect(headers['x-sharepay-signature']).toBeUndefined();
    expect(headers['webhook-id']).toMatch(/^evt_/);
  });

  it('signs with both schemes, verified by the standardwebhooks package and an independent re-implementation', async () => {
    // The standardwebhooks verifier checks the timestamp against the real time.
    h.clock.set(new Date());
    const { plainTextWebhookSecret: secret } = await createWebhookSecret(h.services, t.applicationId);
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const reference = await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const got = receiver.received[0]!;
    // Standard Webhooks: the secret is given to the library exactly as shown to the merchant.
    const verified = new Webhook(secret).verify(got.body, got.headers) as { data: { reference: string } };
    expect(verified.data.reference).toBe(reference);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(h.clock.now().getTime() / 1000)));
    // Compatibility scheme.
    expect(got.headers['x-sharepay-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.headers['x-sharepay-signature']!.startsWith(`t=${got.headers['webhook-timestamp']},`)).toBe(true);
    expect(verifySharepaySignature(secret, got.body, got.headers['x-sharepay-signature'])).toBe(true);
    // A tampered body or another secret fails both.
    const tampered = got.body.replace('"SUCCESS"', '"FAILED"');
    expect(() => new Webhook(secret).verify(tampered, got.headers)).toThrow();
    expect(verifySharepaySignature(secret, tampered, got.headers['x-sharepay-signature'])).toBe(false);
    const stranger = `whsec_${'ab'.repeat(32)}`;
    expect(() => new Webhook(stranger).verify(got.body, got.headers)).toThrow();
    expect(verifySharepaySignature(stranger, got.body, got.headers['x-sharepay-signature'])).toBe(false);
    // Stored encrypted: the plain text is nowhere in the row.
    const stored = await h.services.db.select().from(webhookSecrets).where(eq(webhookSecrets.applicationId, t.applicationId));
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    const settings = await h.request('GET', '/api/v1/webhook', { key: t.key });
    expect(settings.json.data.webhookSecretPrefix).toBe(`${secret.slice(0, 14)}...`);
  });

  it('signs Standard Webhooks with the old and the new secret during the rotation overlap, X-Sharepay-Signature with the new one only', async () => {
    h.clock.set(new Date());
    const [current] = await h.services.db.select().from(webhookSecrets).where(eq(webhookSecrets.applicationId, t.applicationId));
    const old = h.services.webhookSecretBox.open(current!.secretCiphertext);
    const { plainTextWebhookSecret: fresh } = await rotateWebhookSecret(h.services, t.applicationId);
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const during = receiver.received[0]!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(() => new Webhook(secret).verify(during.body, during.headers)).not.toThrow();
    }
    // SharePay replaces the secret at rotation: exactly one v1, the current secret's, so a
    // receiver configured with the new secret verifies from the first delivery on.
    expect(during.headers['x-sharepay-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySharepaySignature(fresh, during.body, during.headers['x-sharepay-signature'])).toBe(true);
    expect(verifySharepaySignature(old, during.body, during.headers['x-sharepay-signature'])).toBe(false);
    // After the 24 h overlap, the old secret no longer signs.
    h.clock.advance(24 * 3_600_000 + 1000);
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const after = receiver.received[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifySharepaySignature(fresh, after.body, after.headers['x-sharepay-signature'])).toBe(true);
    expect(verifySharepaySignature(old, after.body, after.headers['x-sharepay-signature'])).toBe(false);
  });
});
