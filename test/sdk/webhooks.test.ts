/**
 * The SDK's webhook verification against real deliveries: Kolo's worker sends them, signed, to a
 * local receiver; both schemes verify, and a tampered body, an old timestamp or another secret is
 * refused. Cross-checked both ways with the independent `standardwebhooks` package.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateTestHeaders, Kolo, KoloSignatureError, verifyWebhook } from '../../packages/sdk/src/index.ts';
import { rotateWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { startHarness, type Harness } from '../harness.ts';
import { startReceiver, verifySharepaySignature, type Received, type Receiver } from '../helpers/webhooks.ts';
import { paymentSuccessDelivery, signedTenant, type SignedTenant } from './deliveries.ts';

let h: Harness;
let receiver: Receiver;
let t: SignedTenant;
let delivery: Received;
let reference: string;

const OTHER_SECRET = `whsec_${'ab'.repeat(32)}`;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
  t = await signedTenant(h, receiver);
  ({ delivery, reference } = await paymentSuccessDelivery(h, t, receiver));
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** The delivery's headers without those of one scheme. */
function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}
const STANDARD = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

describe('a real delivery', () => {
  it('verifies with Standard Webhooks and returns the typed event', () => {
    const event = verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: t.secret });
    expect(event.event).toBe('payment.success');
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(event.applicationId).toBe(t.applicationId);
    if (event.event !== 'payment.success') throw new Error('narrowing');
    expect(event.data).toMatchObject({ reference, status: 'SUCCESS', amount: 5000, currency: 'XAF' });
    // A fetch Headers object and bytes work as well as Node's header record and a string.
    const headers = new Headers(delivery.headers);
    expect(verifyWebhook({ payload: new TextEncoder().encode(delivery.body), headers, secret: t.secret }).id).toBe(event.id);
  });

  it('verifies with the X-Sharepay-Signature scheme alone, as from a SharePay server', () => {
    const sharepayOnly = without(delivery.headers, STANDARD);
    expect(verifyWebhook({ payload: delivery.body, headers: sharepayOnly, secret: t.secret }).data).toMatchObject({ reference });
    expect(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: t.secret, scheme: 'sharepay' }).event).toBe('payment.success');
  });

  it('is verified the same way by the standardwebhooks package', () => {
    const theirs = new Webhook(t.secret).verify(delivery.body, delivery.headers);
    expect(theirs).toEqual(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: t.secret }));
  });

  it('refuses a tampered body in both schemes', () => {
    const tampered = delivery.body.replace('"amount":5000', '"amount":500000');
    expect(tampered).not.toBe(delivery.body);
    expect(() => verifyWebhook({ payload: tampered, headers: delivery.headers, secret: t.secret })).toThrow(KoloSignatureError);
    expect(() => verifyWebhook({ payload: tampered, headers: without(delivery.headers, STANDARD), secret: t.secret })).toThrow(KoloSignatureError);
    // A signed header moved to another delivery does not verify either (id is signed).
    expect(() => verifyWebhook({ payload: delivery.body, headers: { ...delivery.headers, 'webhook-id': 'evt_other' }, secret: t.secret })).toThrow(/No webhook-signature matches/);
  });

  it('refuses another secret in both schemes', () => {
    expect(() => verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: OTHER_SECRET })).toThrow(/No webhook-signature matches/);
    expect(() => verifyWebhook({ payload: delivery.body, headers: without(delivery.headers, STANDARD), secret: OTHER_SECRET })).toThrow(
      /X-Sharepay-Signature does not match/,
    );
    // During a rotation the receiver may hold both: any one matching is enough.
    expect(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: [OTHER_SECRET, t.secret] }).id).toBe(delivery.headers['webhook-id']);
  });

  it('accepts a timestamp 300 s away and refuses 301 s (the default tolerance), either way', () => {
    const sent = Number(delivery.headers['webhook-timestamp']) * 1000;
    const input = { payload: delivery.body, headers: delivery.headers, secret: t.secret };
    expect(() => verifyWebhook({ ...input, now: sent + 300_000 })).not.toThrow();
    expect(() => verifyWebhook({ ...input, now: sent + 301_000 })).toThrow(/more than 300 s away/);
    expect(() => verifyWebhook({ ...input, now: sent - 301_000 })).toThrow(KoloSignatureError);
    expect(() => verifyWebhook({ ...input, now: sent + 3_600_000, toleranceSeconds: 3_600 })).not.toThrow();
  });

  it('refuses a delivery sent ten minutes ago, as the standardwebhooks package does', async () => {
    const { delivery: old } = await paymentSuccessDelivery(h, t, receiver, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook({ payload: old.body, headers: old.headers, secret: t.secret })).toThrow(KoloSignatureError);
    expect(() => new Webhook(t.secret).verify(old.body, old.headers)).toThrow();
    expect(() => verifyWebhook({ payload: old.body, headers: without(old.headers, STANDARD), secret: t.secret })).toThrow(/away from now/);
  });

  it('verifies with the old or the new secret during a rotation (two signatures in the header)', async () => {
    const own = await signedTenant(h, receiver);
    const { plainTextWebhookSecret: fresh } = await rotateWebhookSecret(h.services, own.applicationId);
    const { delivery: during } = await paymentSuccessDelivery(h, own, receiver);
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [own.secret, fresh]) expect(verifyWebhook({ payload: during.body, headers: during.headers, secret }).event).toBe('payment.success');
  });

  it('verifies the webhook.test event sent by the client', async () => {
    const kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    h.clock.set(new Date());
    const before = receiver.received.length;
    expect((await kolo.webhookEndpoint.sendTest()).delivered).toBe(true);
    const got = receiver.received[before]!;
    const event = kolo.webhooks.verify({ payload: got.body, headers: got.headers, secret: t.secret });
    expect(event.event).toBe('webhook.test');
    if (event.event === 'webhook.test') expect(event.data.message).toMatch(/test/);
  });
});

describe('malformed input', () => {
  it('names what is missing', () => {
    expect(() => verifyWebhook({ payload: delivery.body, headers: {}, secret: t.secret })).toThrow(/Missing webhook-signature and X-Sharepay-Signature/);
    expect(() => verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: t.secret, scheme: 'standard' })).not.toThrow();
    expect(() => verifyWebhook({ payload: delivery.body, headers: without(delivery.headers, ['webhook-id']), secret: t.secret })).toThrow(/Missing webhook-id/);
    expect(() => verifyWebhook({ payload: JSON.parse(delivery.body), headers: delivery.headers, secret: t.secret })).toThrow(/raw body/);
    expect(() => verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: '' })).toThrow(/secret/);
    expect(() => verifyWebhook({ payload: delivery.body, headers: { ...delivery.headers, 'webhook-timestamp': 'hier' }, secret: t.secret })).toThrow(/Malformed webhook timestamp/);
  });
});

describe('generateTestHeaders', () => {
  const payload = JSON.stringify({ event: 'payment.success', timestamp: 1, applicationId: 'app', data: { reference: 'PI-0123456789AB' }, id: 'evt_1' });

  it('signs headers that the SDK, the standardwebhooks package and an independent SharePay check all accept', () => {
    const headers = generateTestHeaders({ payload, secret: t.secret, id: 'evt_1' });
    expect(verifyWebhook({ payload, headers, secret: t.secret }).id).toBe('evt_1');
    expect(new Webhook(t.secret).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(verifySharepaySignature(t.secret, payload, headers['x-sharepay-signature'])).toBe(true);
    expect(() => verifyWebhook({ payload, headers, secret: OTHER_SECRET })).toThrow(KoloSignatureError);
  });

  it('verifies what the standardwebhooks package signs', () => {
    const at = new Date();
    const signature = new Webhook(t.secret).sign('msg_1', at, payload);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
    expect(verifyWebhook({ payload, headers, secret: t.secret }).data).toEqual({ reference: 'PI-0123456789AB' });
  });
});
