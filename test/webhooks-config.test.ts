/**
 * Webhook configuration by API key (GET/PATCH /api/v1/webhook, POST /api/v1/webhook/test) and
 * the SSRF refusals, at configuration time and again at connect time. The "strict" harness runs
 * with the production default (private hosts refused); the receiver lives on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startHarness, type Harness } from './harness.ts';
import { chargeTo, startReceiver, type Receiver } from './helpers/webhooks.ts';
import { applications } from '../src/db/schema.ts';
import { webhookDeliveries } from '../src/db/schema-webhooks.ts';
import { deliverOnce } from '../src/jobs/webhook-worker.ts';

let open: Harness;
let strict: Harness;
let receiver: Receiver;

beforeAll(async () => {
  [open, strict] = await Promise.all([startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }), startHarness()]);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await Promise.all([open.close(), strict.close()]);
});

describe('GET and PATCH /api/v1/webhook', () => {
  it('shows and sets the webhook URL of the key’s application', async () => {
    const t = await open.createTenant();
    const before = await open.request('GET', '/api/v1/webhook', { key: t.key });
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ success: true, code: 'SUCCESS' });
    expect(Object.keys(before.json.data)).toEqual(['applicationId', 'applicationName', 'webhookUrl', 'webhookSecretPrefix', 'updatedAt']);
    expect(before.json.data).toMatchObject({ applicationId: t.applicationId, webhookUrl: null, webhookSecretPrefix: null });
    const set = await open.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: `  ${receiver.url}  ` } });
    expect(set.status).toBe(200);
    expect(set.json.data.webhookUrl).toBe(receiver.url);
    expect((await open.request('GET', '/api/v1/webhook', { key: t.key })).json.data.webhookUrl).toBe(receiver.url);
  });

  it('requires a valid API key', async () => {
    for (const [method, path] of [['GET', '/api/v1/webhook'], ['PATCH', '/api/v1/webhook'], ['POST', '/api/v1/webhook/test']] as const) {
      const res = await open.request(method, path, { body: method === 'GET' ? undefined : { webhookUrl: 'https://a.example/h' } });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('UNAUTHORIZED');
      const bad = await open.request(method, path, { key: `sk_test_${'0'.repeat(128)}`, body: method === 'GET' ? undefined : {} });
      expect(bad.status).toBe(401);
    }
  });

  it('validates the URL: non-blank, at most 500 characters, http(s)', async () => {
    const t = await open.createTenant();
    const patch = (webhookUrl: unknown) => open.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl } });
    const base = 'http://127.0.0.1:9/';
    const exactly500 = base + 'a'.repeat(500 - base.length);
    expect((await patch(exactly500)).status).toBe(200);
    for (const bad of ['', '   ', exactly500 + 'a', 'ftp://files.example/x', 'pas une url', null, 42]) {
      const res = await patch(bad);
      expect(res.status, String(bad)).toBe(400);
      expect(res.json.code).toBe('VALIDATION_ERROR');
      expect(res.json.data.webhookUrl).toEqual(expect.any(String));
    }
    const missing = await open.request('PATCH', '/api/v1/webhook', { key: t.key, body: {} });
    expect(missing.json.data.webhookUrl).toEqual(expect.any(String));
  });
});

describe('POST /api/v1/webhook/test', () => {
  it('answers 409 WEBHOOK_URL_NOT_CONFIGURED without a URL', async () => {
    const t = await open.createTenant();
    const res = await open.request('POST', '/api/v1/webhook/test', { key: t.key });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ success: false, code: 'WEBHOOK_URL_NOT_CONFIGURED', data: null });
  });

  it('sends a webhook.test event and reports the receiver’s answer', async () => {
    const t = await open.createTenant({ application: { webhookUrl: receiver.url } });
    receiver.received.length = 0;
    const res = await open.request('POST', '/api/v1/webhook/test', { key: t.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data)).toEqual(['delivered', 'webhookUrl', 'httpStatus', 'sentAt']);
    expect(res.json.data).toMatchObject({ delivered: true, webhookUrl: receiver.url, httpStatus: 200 });
    expect(receiver.received).toHaveLength(1);
    const body = JSON.parse(receiver.received[0]!.body);
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'applicationId', 'data', 'id']);
    expect(body).toMatchObject({ event: 'webhook.test', applicationId: t.applicationId });
    expect(receiver.received[0]!.headers['x-sharepay-event']).toBe('webhook.test');

    receiver.answers.push({ status: 500, body: 'boom' });
    const refused = await open.request('POST', '/api/v1/webhook/test', { key: t.key });
    expect(refused.status).toBe(200);
    expect(refused.json.data).toMatchObject({ delivered: false, httpStatus: 500 });
    // A test event is tried once: the worker does not retry it.
    open.clock.advance(3_600_000);
    await deliverOnce(open.services);
    expect(receiver.received).toHaveLength(2);
  });

  it('answers 502 WEBHOOK_TEST_FAILED when the receiver cannot be reached', async () => {
    const gone = await startReceiver();
    await gone.close();
    const t = await open.createTenant({ application: { webhookUrl: gone.url } });
    const res = await open.request('POST', '/api/v1/webhook/test', { key: t.key });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ success: false, code: 'WEBHOOK_TEST_FAILED', data: null });
  });
});

describe('SSRF', () => {
  it('refuses loopback, private, link-local and metadata addresses at configuration time', async () => {
    const t = await strict.createTenant();
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://192.168.1.10/hook',
      'http://172.16.0.5/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://0.0.0.0/hook',
      'http://100.64.0.1/hook',
    ]) {
      const res = await strict.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: url } });
      expect(res.status, url).toBe(400);
      expect(res.json.code).toBe('VALIDATION_ERROR');
      expect(res.json.data.webhookUrl).toMatch(/adresse publique|résolu/);
    }
    // A public address literal is accepted (no traffic is sent at configuration time).
    const okV6 = await strict.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: 'https://[2606:4700::1111]/hook' } });
    expect(okV6.status).toBe(200);
    const ok = await strict.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: 'https://93.184.215.14/hook' } });
    expect(ok.status).toBe(200);
  });

  it('refuses IPv6 addresses that embed a private or loopback IPv4, like their IPv4 forms', async () => {
    const t = await strict.createTenant();
    for (const url of [
      'http://[::7f00:1]/hook', // IPv4-compatible ::/96 → 127.0.0.1
      'http://[::127.0.0.1]/hook',
      'http://[::a00:1]/hook', // → 10.0.0.1
      'http://[::a9fe:a9fe]/latest/meta-data/', // → 169.254.169.254
      'http://[::ffff:7f00:1]/hook', // IPv4-mapped
      'http://[::ffff:192.168.1.10]/hook',
      'http://[64:ff9b::7f00:1]/hook', // NAT64 (RFC 6052)
      'http://[64:ff9b::a9fe:a9fe]/hook',
      'http://[64:ff9b:1::a00:1]/hook',
      'http://[2002:7f00:1::1]/hook', // 6to4 of 127.0.0.1
      'http://[2002:c0a8:10a::1]/hook', // 6to4 of 192.168.1.10
    ]) {
      const res = await strict.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: url } });
      expect(res.status, url).toBe(400);
      expect(res.json.code).toBe('VALIDATION_ERROR');
      expect(res.json.data.webhookUrl).toMatch(/adresse publique/);
    }
  });

  it('refuses those IPv6 forms at connect time too (a URL stored before the rule, or set behind its back)', async () => {
    const t = await strict.createTenant();
    for (const host of ['[::7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]']) {
      const url = `http://${host}:${receiver.port}/hooks/kolo`;
      await strict.services.db.update(applications).set({ webhookUrl: url }).where(eq(applications.id, t.applicationId));
      const test = await strict.request('POST', '/api/v1/webhook/test', { key: t.key });
      expect(test.status, host).toBe(502);
      expect(test.json.message, host).toMatch(/not allowed/);
    }
  });

  it('refuses again at connect time, e.g. a host name that now resolves to loopback', async () => {
    const t = await strict.createTenant();
    // As if DNS changed after the URL was accepted: `localhost` resolves to a loopback address.
    const url = `http://localhost:${receiver.port}/hooks/kolo`;
    await strict.services.db.update(applications).set({ webhookUrl: url }).where(eq(applications.id, t.applicationId));
    receiver.received.length = 0;
    const test = await strict.request('POST', '/api/v1/webhook/test', { key: t.key });
    expect(test.status).toBe(502);
    expect(test.json.code).toBe('WEBHOOK_TEST_FAILED');
    expect(test.json.message).toMatch(/not allowed/);

    await chargeTo(strict, t, 'SUCCESS');
    await deliverOnce(strict.services);
    const all = await strict.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.applicationId, t.applicationId));
    const payment = all.find((d) => d.status === 'PENDING')!;
    expect(payment.httpStatus).toBeNull();
    expect(payment.lastError).toMatch(/not allowed/);
    expect(receiver.received).toHaveLength(0);
  });
});
