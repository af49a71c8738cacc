/**
 * Kolo behind a real nginx configured by `deploy/nginx/kolo.conf` (TLS included), with customers
 * on distinct loopback addresses (127.0.0.N), as nginx would see distinct hosts. With
 * `TRUST_PROXY` naming the proxy, each customer keeps a rate limit and a login lockout of its
 * own and the audit log records its address; an X-Forwarded-For a customer writes itself, to nginx
 * or to Kolo directly, changes nothing. With `TRUST_PROXY` unset, every customer behind the proxy
 * is the proxy. nginx missing is a failure naming the fix (`apt-get install -y nginx`), never a skip.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { createCheckout } from '../helpers/checkout.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { auditLog } from '../../src/db/schema-dashboard.ts';
import { customerFrom, sendFrom, startNginx, type Nginx } from './nginx-proxy.ts';

/** Payment attempts per client address per hour in these tests: small, so that many clients exceed it together. */
const LIMIT = 3;
/** More clients than the limit, each posting once. */
const CLIENTS = 12;

const PAY = { rail: 'MTN_MOMO_CM', phone: '677000100' };

/** The address of client `n` (1…200): 127.0.0.(n + 1), never the proxy's 127.0.0.1. */
const clientAddress = (n: number) => `127.0.0.${n + 1}`;

/** Kolo in a harness, and nginx in front of it. */
async function startBehindNginx(env: Record<string, string>): Promise<{ h: Harness; nginx: Nginx; tenant: Tenant }> {
  const h = await startHarness({ CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: String(LIMIT), AUTH_MAX_FAILURES_PER_IP: String(LIMIT), PASSWORD_SCRYPT_LOG_N: '14', ...env });
  try {
    const nginx = await startNginx(Number(new URL(h.baseUrl).port));
    return { h, nginx, tenant: await h.createTenant() };
  } catch (error) {
    await h.close();
    throw error;
  }
}

/** Opens a new checkout page as `customer` and posts the payment form once. */
async function payOnce(h: Harness, tenant: Tenant, customer: ReturnType<typeof customerFrom>) {
  const checkout = await createCheckout(h, tenant);
  const page = await customer.get(checkout.path);
  expect(page.status).toBe(200);
  return customer.postForm(`${checkout.path}/pay`, { _csrf: page.csrf!, ...PAY });
}

/** Logs `email` in through `baseUrl` from `address`; returns the client address the audit log recorded. */
async function auditedAddressOfLogin(h: Harness, baseUrl: string, address: string, options: { ca?: string; headers?: Record<string, string> } = {}) {
  const email = `staff-${address.replaceAll('.', '-')}-${Math.random().toString(16).slice(2, 8)}@example.test`;
  const password = 'Mot-de-passe-solide-42';
  const account = await createAccount(h.services, { fullName: 'Agent', email, password, role: 'MERCHANT', status: 'ACTIVE', emailVerified: true });
  const answer = await customerFrom(address, baseUrl, options).postJson('/api/v1/auth/login', { email, password });
  expect(answer.status, answer.body).toBe(200);
  const rows = await h.services.db.select().from(auditLog).where(eq(auditLog.actorId, account.id));
  expect(rows.map((r) => r.action)).toEqual(['LOGIN']);
  return rows[0]!.clientIp;
}

describe('behind nginx, TRUST_PROXY naming the proxy', () => {
  let h: Harness;
  let nginx: Nginx;
  let tenant: Tenant;
  beforeAll(async () => {
    ({ h, nginx, tenant } = await startBehindNginx({ TRUST_PROXY: '127.0.0.1' }));
  });
  afterAll(async () => {
    await nginx?.stop();
    await h?.close();
  });

  it('serves HTTPS and sends plain HTTP to it', async () => {
    const health = await sendFrom(clientAddress(150), `${nginx.httpsUrl}/actuator/health`, { ca: nginx.ca });
    expect(health.status).toBe(200);
    expect(health.headers['strict-transport-security']).toBe('max-age=63072000');
    const plain = await sendFrom(clientAddress(150), `${nginx.httpUrl}/api/v1/pay-in/checkout`);
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toMatch(/^https:\/\/127\.0\.0\.1\/api\/v1\/pay-in\/checkout$/);
  });

  it('keeps a payment-attempt limit per customer, not one for everyone behind the proxy', async () => {
    // CLIENTS customers post once each: 12 posts through one proxy, over a limit of 3, all answered.
    for (let n = 1; n <= CLIENTS; n += 1) {
      const customer = customerFrom(clientAddress(n), nginx.httpsUrl, { ca: nginx.ca });
      expect((await payOnce(h, tenant, customer)).status, `customer ${n}`).toBe(303);
    }
    // One customer is still limited on its own: its fourth post within the hour is refused.
    const busy = customerFrom(clientAddress(CLIENTS + 1), nginx.httpsUrl, { ca: nginx.ca });
    for (let i = 1; i <= LIMIT; i += 1) expect((await payOnce(h, tenant, busy)).status).toBe(303);
    const refused = await payOnce(h, tenant, busy);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Trop de tentatives');
    // …and the others are not: the next customer's post goes through.
    expect((await payOnce(h, tenant, customerFrom(clientAddress(CLIENTS + 2), nginx.httpsUrl, { ca: nginx.ca }))).status).toBe(303);
  });

  it('locks out the client that sprays passwords, not everyone behind the proxy', async () => {
    const login = (n: number, i: number) =>
      customerFrom(clientAddress(n), nginx.httpsUrl, { ca: nginx.ca }).postJson('/api/v1/auth/login', { email: `inconnu-${n}-${i}@example.test`, password: 'x'.repeat(12) });
    const statuses = [];
    for (let i = 1; i <= LIMIT + 1; i += 1) statuses.push((await login(40, i)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await login(41, 1)).status).toBe(401);
  });

  it("records the customer's address in the audit log, not the proxy's", async () => {
    expect(await auditedAddressOfLogin(h, nginx.httpsUrl, clientAddress(60), { ca: nginx.ca })).toBe(clientAddress(60));
  });

  it('ignores an X-Forwarded-For the customer sends to nginx', async () => {
    const forged = { 'x-forwarded-for': '203.0.113.9' };
    expect(await auditedAddressOfLogin(h, nginx.httpsUrl, clientAddress(61), { ca: nginx.ca, headers: forged })).toBe(clientAddress(61));
    // A new forged address on every post does not make a new customer either.
    const forger = (i: number) => customerFrom(clientAddress(62), nginx.httpsUrl, { ca: nginx.ca, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    const statuses = [];
    for (let i = 1; i <= LIMIT + 1; i += 1) statuses.push((await payOnce(h, tenant, forger(i))).status);
    expect(statuses).toEqual([303, 303, 303, 429]);
  });

  it('ignores an X-Forwarded-For from a client that talks to Kolo directly (not the proxy)', async () => {
    const forged = { 'x-forwarded-for': '203.0.113.10' };
    expect(await auditedAddressOfLogin(h, h.baseUrl, clientAddress(70), { headers: forged })).toBe(clientAddress(70));
    const forger = (i: number) => customerFrom(clientAddress(71), h.baseUrl, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    const statuses = [];
    for (let i = 1; i <= LIMIT + 1; i += 1) statuses.push((await payOnce(h, tenant, forger(i))).status);
    expect(statuses).toEqual([303, 303, 303, 429]);
  });
});

describe('behind nginx, TRUST_PROXY unset', () => {
  let h: Harness;
  let nginx: Nginx;
  let tenant: Tenant;
  beforeAll(async () => {
    ({ h, nginx, tenant } = await startBehindNginx({}));
  });
  afterAll(async () => {
    await nginx?.stop();
    await h?.close();
  });

  it('never reads X-Forwarded-For: every customer behind the proxy is the proxy', async () => {
    expect(await auditedAddressOfLogin(h, nginx.httpsUrl, clientAddress(80), { ca: nginx.ca })).toBe('127.0.0.1');
    // Distinct customers share the proxy's limit: the fourth is refused.
    const statuses = [];
    for (let n = 1; n <= LIMIT + 1; n += 1) statuses.push((await payOnce(h, tenant, customerFrom(clientAddress(n), nginx.httpsUrl, { ca: nginx.ca }))).status);
    expect(statuses).toEqual([303, 303, 303, 429]);
  });

  it('ignores a forged X-Forwarded-For sent to Kolo directly', async () => {
    expect(await auditedAddressOfLogin(h, h.baseUrl, clientAddress(90), { headers: { 'x-forwarded-for': '203.0.113.11' } })).toBe(clientAddress(90));
  });
});
