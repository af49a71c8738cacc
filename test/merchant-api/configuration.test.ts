/**
 * The configuration an API key reads, through real HTTP and the seeded rails: the rails of the
 * application's currency in the key's environment, with decimals, limits per operation, the
 * customer's authorisation and instructions in French and English; and availability computed
 * from the deployment's own traffic (sandbox outcomes by magic number: …197 is an operator that
 * never answers, …100 a customer's decline) over the sliding window, with staff's override for
 * LIVE (ADMIN sets and clears it, SUPPORT reads it, a merchant reaches neither).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers, transactions } from '../../src/db/schema.ts';
import { checkoutAttempts } from '../../src/db/schema-checkout.ts';
import { CONFIGURATION_EXAMPLE } from '../../src/http/routes/rails.ts';
import { configurationData } from '../../src/http/schemas/rails.ts';
import { AVAILABILITY_WINDOW_MS, observedStatus } from '../../src/rails/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { mtnEnv } from '../helpers/live.ts';
import { countTransactions, expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { describeApiKeySecurity } from '../helpers/security-suite.ts';
import { settle } from '../helpers/webhooks.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';

const PATH = '/api/v1/configuration';

let h: Harness;
beforeAll(async () => {
  // MTN configured (never called here): LIVE keys see MTN_MOMO_CM only.
  h = await startHarness({ ...DASHBOARD_TEST_ENV, ...mtnEnv({ url: 'http://127.0.0.1:9' }) });
});
afterAll(async () => h?.close());

const configuration = async (key: string) => {
  const data = expectSuccess(await h.request('GET', PATH, { key }), 200);
  expect(configurationData.parse(data)).toEqual(data);
  return data;
};
const railOf = (data: { rails: { code: string }[] }, code: string): any => data.rails.find((r) => r.code === code);

describe('GET /api/v1/configuration: rails', () => {
  it("lists the rails of the application's currency for a TEST key, with decimals, limits, authorisation and instructions", async () => {
    const t = await h.createTenant();
    const data = await configuration(t.key);
    expect(data).toMatchObject({ applicationId: t.applicationId, environment: 'TEST', currency: 'XAF' });
    expect(data.rails.map((r: { code: string }) => r.code)).toEqual(['MTN_MOMO_CM', 'ORANGE_MONEY_CM']);
    expect(railOf(data, 'MTN_MOMO_CM')).toEqual({
      code: 'MTN_MOMO_CM',
      name: 'MTN Mobile Money Cameroun',
      operator: 'MTN_MOMO',
      country: 'CM',
      currency: 'XAF',
      decimals: 0,
      authorization: 'PIN_PROMPT',
      instructions: { fr: 'Composez *126# pour valider le paiement', en: 'Dial *126# to approve the payment' },
      payIn: { minAmount: 100, maxAmount: 1_000_000, availability: 'OPERATIONAL' },
      payOut: { minAmount: 100, maxAmount: 1_000_000, availability: 'OPERATIONAL' },
    });
  });

  it('gives each currency its decimals: GHS 2, UGX none', async () => {
    const ghs = await configuration((await h.createTenant({ currency: 'GHS' })).key);
    expect(railOf(ghs, 'MTN_MOMO_GH')).toMatchObject({ decimals: 2, instructions: { en: 'Dial *170# to approve the payment' } });
    const ugx = await configuration((await h.createTenant({ currency: 'UGX' })).key);
    expect(ugx.rails.map((r: { code: string; decimals: number }) => [r.code, r.decimals])).toEqual([
      ['AIRTEL_MONEY_UG', 0],
      ['MTN_MOMO_UG', 0],
    ]);
  });

  it('says a Wave customer pays by redirect, an MTN one by a PIN prompt (XOF)', async () => {
    const data = await configuration((await h.createTenant({ currency: 'XOF' })).key);
    expect(railOf(data, 'WAVE_SN')).toMatchObject({ authorization: 'REDIRECT', instructions: { fr: "Validez le paiement dans l'application Wave", en: 'Approve the payment in the Wave app' } });
    expect(railOf(data, 'MTN_MOMO_CI')).toMatchObject({ authorization: 'PIN_PROMPT' });
  });

  it('says an Orange Money Web Payment customer pays by redirect, an Orange Money Côte d\'Ivoire one by a PIN prompt, once staff activate the rail', async () => {
    const t = await h.createTenant({ currency: 'XOF' });
    expect(railOf(await configuration(t.key), 'ORANGE_WEBPAY_CI')).toBeUndefined();
    await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, 'ORANGE_WEBPAY_CI'));
    try {
      const data = await configuration(t.key);
      expect(railOf(data, 'ORANGE_WEBPAY_CI')).toMatchObject({
        operator: 'ORANGE_MONEY',
        country: 'CI',
        currency: 'XOF',
        decimals: 0,
        authorization: 'REDIRECT',
        instructions: { fr: 'Confirmez le paiement sur la page Orange Money avec le code reçu par SMS', en: 'Confirm the payment on the Orange Money page with the code sent by SMS' },
      });
      expect(railOf(data, 'ORANGE_MONEY_CI')).toMatchObject({ authorization: 'PIN_PROMPT' });
    } finally {
      await h.services.db.update(providers).set({ active: false }).where(eq(providers.code, 'ORANGE_WEBPAY_CI'));
    }
  });

  it('lists for a LIVE key only the rails whose connector is configured', async () => {
    const live = await h.createTenant({ environment: 'LIVE' });
    const data = await configuration(live.key);
    expect(data).toMatchObject({ environment: 'LIVE', currency: 'XAF' });
    expect(data.rails.map((r: { code: string }) => r.code)).toEqual(['MTN_MOMO_CM']);
  });

  it('documents an example that matches its schema', () => {
    expect(configurationData.parse(CONFIGURATION_EXAMPLE.data)).toEqual(CONFIGURATION_EXAMPLE.data);
  });
});

/** Sends `count` charges on MTN_MOMO_CM from numbers ending in `suffix`, then lets the sandbox answer. */
async function charges(t: Tenant, suffix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const created = await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: `23767700${i}${suffix}` },
    });
    expect(created.status, created.text).toBe(201);
  }
  await settle(h);
}

describe('GET /api/v1/configuration: availability from the traffic', () => {
  // The window is shared by every tenant of the environment: each test runs past the previous one's window.
  const freshWindow = () => h.clock.advance(AVAILABILITY_WINDOW_MS + 1000);

  it('stays OPERATIONAL under declines: a customer refusing is an answer, not a failing rail', async () => {
    freshWindow();
    const t = await h.createTenant();
    await charges(t, '100', 6);
    expect(railOf(await configuration(t.key), 'MTN_MOMO_CM').payIn.availability).toBe('OPERATIONAL');
  });

  it('turns DELAYED when a fifth of the window\'s charges get no answer, only for pay-ins and only on that rail', async () => {
    freshWindow();
    const t = await h.createTenant();
    await charges(t, '001', 3);
    await charges(t, '197', 1);
    let data = await configuration(t.key);
    // 1 in 4: under the minimum sample, nothing said.
    expect(railOf(data, 'MTN_MOMO_CM').payIn.availability).toBe('OPERATIONAL');
    await charges(t, '002', 1);
    data = await configuration(t.key);
    expect(railOf(data, 'MTN_MOMO_CM').payIn.availability).toBe('DELAYED');
    expect(railOf(data, 'MTN_MOMO_CM').payOut.availability).toBe('OPERATIONAL');
    expect(railOf(data, 'ORANGE_MONEY_CM').payIn.availability).toBe('OPERATIONAL');
    // Another application of the same environment sees the same rail's state.
    expect(railOf(await configuration((await h.createTenant()).key), 'MTN_MOMO_CM').payIn.availability).toBe('DELAYED');
  });

  it('turns CLOSED when nearly every charge gets no answer, and OPERATIONAL again once the window has passed', async () => {
    freshWindow();
    const t = await h.createTenant();
    await charges(t, '197', 5);
    expect(railOf(await configuration(t.key), 'MTN_MOMO_CM').payIn.availability).toBe('CLOSED');
    freshWindow();
    expect(railOf(await configuration(t.key), 'MTN_MOMO_CM').payIn.availability).toBe('OPERATIONAL');
  });

  it('turns DELAYED when half the charges stay pending past two minutes', async () => {
    freshWindow();
    const t = await h.createTenant();
    await charges(t, '199', 3);
    await charges(t, '003', 2);
    h.clock.advance(2 * 60_000);
    expect(railOf(await configuration(t.key), 'MTN_MOMO_CM').payIn.availability).toBe('DELAYED');
  });

  it("counts the hosted checkout's attempts: five attempts that get no answer close the rail for pay-ins", async () => {
    freshWindow();
    const t = await h.createTenant();
    for (let i = 0; i < 5; i += 1) {
      const c = await createCheckout(h, t, { merchantReference: `ATTEMPT-${i}` });
      const b = formClient(h);
      const page = await b.get(c.path);
      expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000197' })).status).toBe(303);
    }
    expect(railOf(await configuration(t.key), 'MTN_MOMO_CM').payIn.availability).toBe('CLOSED');
  });

  it('computes each boundary on both sides', () => {
    expect(observedStatus({ sampleSize: 4, errorCount: 4, slowCount: 0 })).toBe('OPERATIONAL');
    expect(observedStatus({ sampleSize: 10, errorCount: 1, slowCount: 4 })).toBe('OPERATIONAL');
    expect(observedStatus({ sampleSize: 10, errorCount: 2, slowCount: 0 })).toBe('DELAYED');
    expect(observedStatus({ sampleSize: 10, errorCount: 0, slowCount: 5 })).toBe('DELAYED');
    expect(observedStatus({ sampleSize: 10, errorCount: 8, slowCount: 0 })).toBe('DELAYED');
    expect(observedStatus({ sampleSize: 10, errorCount: 9, slowCount: 0 })).toBe('CLOSED');
  });
});

describe('rail availability for staff', () => {
  let admin: StaffAccount;
  let support: StaffAccount;
  let merchant: DashboardAccount;
  let live: Tenant;
  beforeAll(async () => {
    admin = await createStaffAccount(h, { role: 'ADMIN' });
    support = await createStaffAccount(h, { role: 'SUPPORT' });
    merchant = await createDashboardAccount(h);
    live = await h.createTenant({ environment: 'LIVE' });
  });
  const OVERRIDE = '/api/v1/admin/rails/MTN_MOMO_CM/availability/PAY_OUT';
  const LIST = '/api/v1/admin/rails/availability';

  it('lets an ADMIN close a rail for pay-outs: LIVE keys see it, TEST keys (the sandbox) do not, staff see why', async () => {
    const set = await asAccount(h, admin.accessToken, 'PUT', OVERRIDE, { body: { status: 'CLOSED', reason: 'Panne MTN annoncée' } });
    expect(set.status, set.text).toBe(204);
    const liveRail = railOf(await configuration(live.key), 'MTN_MOMO_CM');
    expect(liveRail.payOut.availability).toBe('CLOSED');
    expect(liveRail.payIn.availability).toBe('OPERATIONAL');
    expect(railOf(await configuration((await h.createTenant()).key), 'MTN_MOMO_CM').payOut.availability).toBe('OPERATIONAL');

    const list = expectSuccess(await asAccount(h, support.accessToken, 'GET', LIST), 200);
    expect(list.find((a: { providerCode: string; direction: string }) => a.providerCode === 'MTN_MOMO_CM' && a.direction === 'PAY_OUT')).toMatchObject({
      status: 'CLOSED',
      source: 'OVERRIDE',
      observedStatus: 'OPERATIONAL',
      override: { status: 'CLOSED', reason: 'Panne MTN annoncée', setBy: admin.accountId },
    });
    // Every active rail (the seeded ones but MTN_MOMO_CG), both directions.
    expect(list).toHaveLength(2 * 18);

    expect((await asAccount(h, admin.accessToken, 'DELETE', OVERRIDE)).status).toBe(204);
    expect(railOf(await configuration(live.key), 'MTN_MOMO_CM').payOut.availability).toBe('OPERATIONAL');
    expectError(await asAccount(h, admin.accessToken, 'DELETE', OVERRIDE), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses new LIVE charges on a rail closed for pay-ins with 503 RAIL_CLOSED, writing nothing; TEST keys still charge', async () => {
    const close = await asAccount(h, admin.accessToken, 'PUT', '/api/v1/admin/rails/MTN_MOMO_CM/availability/PAY_IN', { body: { status: 'CLOSED' } });
    expect(close.status).toBe(204);
    const body = { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' };
    const refused = await h.request('POST', '/api/v1/pay-in/charge', { key: live.key, body });
    expectError(refused, 503, 'RAIL_CLOSED');
    expect(refused.json.message).toMatch(/fermé/);
    expect(await countTransactions(h, live.applicationId)).toBe(0);
    expectSuccess(await h.request('POST', '/api/v1/pay-in/charge', { key: (await h.createTenant()).key, body }), 201);
    expect((await asAccount(h, admin.accessToken, 'DELETE', '/api/v1/admin/rails/MTN_MOMO_CM/availability/PAY_IN')).status).toBe(204);
  });

  it("refuses a LIVE hosted checkout's attempt on a rail closed for pay-ins with a 503 page, writing and sending nothing", async () => {
    const checkout = await createCheckout(h, live, { merchantReference: 'CLOSED-ATTEMPT' });
    const b = formClient(h);
    const page = await b.get(checkout.path);
    expect((await asAccount(h, admin.accessToken, 'PUT', '/api/v1/admin/rails/MTN_MOMO_CM/availability/PAY_IN', { body: { status: 'CLOSED' } })).status).toBe(204);
    const refused = await b.post(`${checkout.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000001' });
    expect(refused.status).toBe(503);
    expect(refused.html).toContain('est fermé pour le moment');
    const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, checkout.reference));
    expect(await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, row!.id))).toHaveLength(0);
    expect((await asAccount(h, admin.accessToken, 'DELETE', '/api/v1/admin/rails/MTN_MOMO_CM/availability/PAY_IN')).status).toBe(204);
  });

  it('refuses an override from SUPPORT and merchants, the list to merchants, and an unknown rail or status', async () => {
    expectError(await asAccount(h, support.accessToken, 'PUT', OVERRIDE, { body: { status: 'CLOSED' } }), 403, 'ACCESS_DENIED');
    expectError(await asAccount(h, merchant.accessToken, 'PUT', OVERRIDE, { body: { status: 'CLOSED' } }), 403, 'ACCESS_DENIED');
    expectError(await asAccount(h, merchant.accessToken, 'GET', LIST), 403, 'ACCESS_DENIED');
    expectError(await h.request('GET', LIST), 401, 'UNAUTHORIZED');
    expectError(await asAccount(h, admin.accessToken, 'PUT', '/api/v1/admin/rails/NOPE_XX/availability/PAY_IN', { body: { status: 'CLOSED' } }), 404, 'PROVIDER_NOT_FOUND');
    expectError(await asAccount(h, admin.accessToken, 'PUT', OVERRIDE, { body: { status: 'BROKEN' } }), 400, 'VALIDATION_ERROR');
    expect(railOf(await configuration(live.key), 'MTN_MOMO_CM').payOut.availability).toBe('OPERATIONAL');
  });
});

describeApiKeySecurity('API-key security of the configuration', [{ method: 'GET', path: PATH }]);
