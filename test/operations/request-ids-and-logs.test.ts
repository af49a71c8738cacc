/**
 * Every request has an id (a sane incoming X-Request-Id kept, else one generated), returned in
 * X-Request-Id, on every log line written while serving it and in the audit log; and a full run of
 * the service's flows, logged by the production logger at `info`, carries no API key, secret,
 * token, password, OTP code or full phone number.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/bootstrap.ts';
import { sentMails } from '../../src/dashboard/mail.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }, { log: createLogger('info', sink) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** A random (version 4) UUID, lowercase. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('generates one per request, returns it, and keeps a sane incoming X-Request-Id', async () => {
    const a = await h.request('GET', '/actuator/health');
    const b = await h.request('GET', '/actuator/health');
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
    const kept = await h.request('GET', '/actuator/health', { headers: { 'x-request-id': 'lb-7f3a.42:req_9' } });
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a.42:req_9');
    for (const insane of ['a'.repeat(129), 'has space', 'é', '<script>', '']) {
      const replaced = await h.request('GET', '/actuator/health', { headers: { 'x-request-id': insane } });
      expect(replaced.headers.get('x-request-id'), insane).toMatch(UUID);
    }
    // Errors carry it too.
    const missing = await h.request('GET', '/nowhere', { headers: { 'x-request-id': 'trace-404' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe('trace-404');
  });

  it('is on every log line written while serving the request, use cases included', async () => {
    const t = await h.createTenant();
    lines.length = 0;
    // …197 is the sandbox's unreachable operator: the use case logs a warning of its own.
    const charge = await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      headers: { 'x-request-id': 'trace-charge-1' },
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000197' },
    });
    expect(charge.status).toBe(201);
    const mine = lines.filter((l) => l.requestId === 'trace-charge-1');
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['operator unreachable at initiation; left PENDING', 'request']));
    // No line of that request lacks the id.
    const unlabelled = lines.filter((l) => l.requestId === undefined && (l.msg === 'request' || String(l.msg).includes('unreachable')));
    expect(unlabelled).toEqual([]);
  });

  it('is on the lines of a hosted checkout page request and of the use case it runs', async () => {
    const t = await h.createTenant();
    const checkout = await createCheckout(h, t);
    const customer = formClient(h);
    const page = await customer.get(checkout.path);
    lines.length = 0;
    // …197: the sandbox operator is unreachable, which the checkout attempt logs as a warning.
    const paid = await fetch(`${h.baseUrl}${checkout.path}/pay`, {
      method: 'POST',
      headers: { cookie: customer.cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'trace-checkout-3' },
      body: new URLSearchParams({ _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000197' }).toString(),
      redirect: 'manual',
    });
    expect(paid.headers.get('x-request-id')).toBe('trace-checkout-3');
    const mine = lines.filter((l) => l.requestId === 'trace-checkout-3');
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['operator unreachable at checkout attempt', 'request']));
    expect(lines.filter((l) => l.requestId === undefined && l.msg === 'operator unreachable at checkout attempt')).toEqual([]);
  });

  it('is recorded in the audit log', async () => {
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    const merchant = await createDashboardAccount(h);
    const changed = await asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/merchants/${merchant.accountId}/kyc`, {
      headers: { 'x-request-id': 'trace-audit-7' },
      body: { kycLevel: 'BASIC' },
    });
    expect(changed.status, changed.text).toBe(200);
    const audit = await asAccount(h, admin.accessToken, 'GET', '/api/v1/admin/audit-log?size=5');
    expect(audit.json.data.content[0]).toMatchObject({ action: expect.any(String), requestId: 'trace-audit-7' });
  });
});

describe('logs of a full run', () => {
  it('never carry keys, secrets, tokens, passwords, OTP codes or full phone numbers at info level', async () => {
    lines.length = 0;
    const secrets: string[] = [];
    const phones = ['237677000001', '677000001', '237699000001', '699000001', '237677000100'];
    // Sign-up with an e-mailed code, log-in, application, key, webhook secret, key rotation.
    const email = 'journal@boutique.test';
    const password = 'un-mot-de-passe-tres-solide';
    secrets.push(password);
    expect((await h.request('POST', '/api/v1/auth/register', { body: { fullName: 'Journal', email, phone: '+237 677 00 00 01', password, country: 'CM' } })).status).toBe(201);
    const otp = sentMails(h.config).at(-1)!.text.match(/\b(\d{6})\b/)![1]!;
    secrets.push(otp);
    expect((await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp } })).status).toBe(200);
    const session = (await h.request('POST', '/api/v1/auth/login', { body: { email, password } })).json.data;
    secrets.push(session.accessToken, session.refreshToken);
    const refreshed = (await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: session.refreshToken } })).json.data;
    secrets.push(refreshed.accessToken, refreshed.refreshToken);
    const token = refreshed.accessToken as string;
    const app = (await asAccount(h, token, 'POST', '/api/v1/merchants/apps', { body: { name: 'Journal', currency: 'XAF' } })).json.data;
    if (app.plainTextWebhookSecret) secrets.push(app.plainTextWebhookSecret);
    const key = (await asAccount(h, token, 'POST', `/api/v1/merchants/apps/${app.id}/api-keys`, { body: { name: 'Clé test', environment: 'TEST' } })).json.data.plainTextKey as string;
    secrets.push(key);
    const rotatedSecret = (await asAccount(h, token, 'POST', `/api/v1/merchants/apps/${app.id}/webhook/rotate`, { body: {} })).json.data.plainTextWebhookSecret as string;
    secrets.push(rotatedSecret);
    expect((await asAccount(h, token, 'PATCH', `/api/v1/merchants/apps/${app.id}/webhook`, { body: { webhookUrl: receiver.url } })).status).toBe(200);
    // Money: a charge, a declined charge, a transfer, a hosted checkout paid, webhooks delivered.
    for (const payerAccount of ['237677000001', '237677000100']) {
      expect((await h.request('POST', '/api/v1/pay-in/charge', { key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount, payerEmail: email } })).status).toBe(201);
    }
    expect((await h.request('POST', '/api/v1/pay-out/transfer', { key, body: { amount: 1000, currency: 'XAF', paymentMethod: 'ORANGE_MONEY_CM', beneficiaryAccount: '+237 699 00 00 01', beneficiaryName: 'Awa' } })).status).toBe(201);
    const checkout = await createCheckout(h, { applicationId: app.id, key, keyId: '', merchantId: '' });
    const customer = formClient(h);
    const page = await customer.get(checkout.path);
    expect((await customer.post(`${checkout.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000001' })).status).toBe(303);
    h.clock.advance(60_000);
    await pollOnce(h.services);
    await pollOnce(h.services);
    await deliverOnce(h.services);
    expect(receiver.received.length).toBeGreaterThan(0);
    // A refused key and a wrong password are logged as events, never with the values tried.
    const wrongKey = `sk_test_${'ab'.repeat(64)}`;
    secrets.push(wrongKey);
    expect((await h.request('GET', '/api/v1/pay-in/check_status/PI-000000000000', { key: wrongKey })).status).toBe(401);
    expect((await h.request('POST', '/api/v1/auth/login', { body: { email, password: 'mauvais-mot-de-passe-123' } })).status).toBe(401);
    secrets.push('mauvais-mot-de-passe-123');

    expect(lines.length).toBeGreaterThan(15);
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    for (const secret of secrets) {
      expect(text.includes(secret), `a log line carries ${secret.slice(0, 12)}…`).toBe(false);
    }
    // Key bodies and secret bodies, even without their prefix.
    expect(text).not.toMatch(/[0-9a-f]{128}/);
    expect(text).not.toMatch(/whsec_[0-9a-f]{8}/);
    for (const phone of phones) expect(text.includes(phone), `a log line carries the phone number ${phone}`).toBe(false);
  });
});
