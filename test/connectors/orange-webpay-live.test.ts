/**
 * LIVE keys against the Orange Money Web Payment simulator, through the merchant API: a direct
 * charge on a redirect rail answers 201 PENDING with `data.redirectUrl` (Orange's payment page);
 * paid there, the notification (its notif_token checked) triggers the status query → SUCCESS with
 * Orange's txnid. A wrong OTP is FAILED at Orange → PROVIDER_ERROR; a payment left on the page
 * past its validity is EXPIRED → TIMEOUT. A creation answered 500 (Orange created it, Kolo never
 * learnt its page) moves no money: no customer can pay it. Web Payment has no pay-out. The ledger
 * balances after each charge.
 */
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { providers } from '../../src/db/schema.ts';
import { INITIATION_LANDING_MS } from '../../src/payments/initiation-window.ts';
import { startOrangeWebpaySimulator, type OrangeWebpaySimulator } from '../../src/connectors/orange-webpay/simulator/orange-webpay-simulator.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { orangeWebpayEnv, rowOf, waitUntil } from '../helpers/live.ts';
import { chargeBody, expectSuccess, PATHS } from '../helpers/merchant-api.ts';

let sim: OrangeWebpaySimulator;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  sim = await startOrangeWebpaySimulator();
  h = await startHarness({ ...orangeWebpayEnv(sim, ['CI']), CONNECTOR_TIMEOUT_MS: '1000' });
  await h.services.db.update(providers).set({ active: true }).where(inArray(providers.code, ['ORANGE_WEBPAY_CI']));
  t = await h.createTenant({ environment: 'LIVE', currency: 'XOF' });
});

afterAll(async () => {
  await h?.close();
  await sim?.close();
});

const RAIL = 'ORANGE_WEBPAY_CI';
const charge = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', payerAccount }) }), 201);
const paymentOf = (reference: string) => [...sim.payments.values()].find((p) => p.orderId === reference);
const statusOf = async (reference: string) => (await h.request('GET', PATHS.payInStatus(reference), { key: t.key })).json.data;

/** What the customer's browser does on Orange's page: posts the OTP, follows the redirect no further. */
async function confirmOnPage(paymentUrl: string, otp: string): Promise<Response> {
  return fetch(`${paymentUrl}/confirm`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `otp=${otp}`, redirect: 'manual' });
}

describe('Orange Money Web Payment (redirect pay-in) with a LIVE key', () => {
  it('a direct charge answers data.redirectUrl; paid with the OTP, the notification settles it with Orange\'s txnid', async () => {
    sim.options.notification = 'sent';
    const data = await charge('2250707000011');
    expect(data.status).toBe('PENDING');
    const payment = paymentOf(data.reference)!;
    expect(data.redirectUrl).toBe(`${sim.url}/payment/pay_token/${payment.payToken}`);
    expect(payment).toMatchObject({ amount: 5000, currency: 'XOF', returnUrl: h.services.config.publicBaseUrl });
    const page = await fetch(data.redirectUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Code OTP');
    const back = await confirmOnPage(data.redirectUrl, sim.options.otp);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(payment.returnUrl);
    await waitUntil('the notification answered', () => sim.callbacks.some((c) => c.url === payment.notifUrl && c.status === 200));
    await callbacksIdle(h.services);
    expect(await statusOf(data.reference)).toMatchObject({ status: 'SUCCESS', paymentMethod: RAIL, payerAccount: '2250707000011' });
    expect((await rowOf(h, data.reference)).operatorTransactionId).toBe(payment.txnid);
    expect(payment.txnid).toMatch(/^MP/);
    await expectLedgerBalanced(h.services.db);
  });

  it('a wrong OTP is FAILED at Orange: the notification leads to PROVIDER_ERROR', async () => {
    const data = await charge('2250707000012');
    const payment = paymentOf(data.reference)!;
    await confirmOnPage(data.redirectUrl, '000000');
    await waitUntil('the notification answered', () => sim.callbacks.some((c) => c.url === payment.notifUrl && c.status === 200));
    await callbacksIdle(h.services);
    expect(await statusOf(data.reference)).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_ERROR' });
    await expectLedgerBalanced(h.services.db);
  });

  it('a payment left unpaid past its validity is EXPIRED at Orange → TIMEOUT', async () => {
    const data = await charge('2250707000013');
    const payment = paymentOf(data.reference)!;
    h.clock.advance(60_000);
    await pollOnce(h.services);
    expect(await statusOf(data.reference)).toMatchObject({ status: 'PENDING' });
    sim.expire(payment.payToken);
    expect((await fetch(data.redirectUrl)).status).toBe(410);
    h.clock.advance(60_000);
    await pollOnce(h.services);
    expect(await statusOf(data.reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    await expectLedgerBalanced(h.services.db);
  });

  it('a creation answered 500 after Orange made it: no page reaches anyone, nothing is paid, it never counts as a failure of money', async () => {
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const data = await charge('2250707000014');
    expect(data.status).toBe('PENDING');
    expect(data).not.toHaveProperty('redirectUrl');
    expect(paymentOf(data.reference)?.status).toBe('INITIATED');
    const asked = sim.requests.filter((r) => r.path.endsWith('/transactionstatus')).length;
    h.clock.advance(INITIATION_LANDING_MS + 60_000);
    await pollOnce(h.services);
    // Without Orange's pay_token there is nothing to ask; the one page that could be paid was never shown.
    expect(sim.requests.filter((r) => r.path.endsWith('/transactionstatus')).length).toBe(asked);
    expect(sim.moved().some((m) => m.reference === data.reference)).toBe(false);
    // Once none of its requests can still land, Kolo closes it as never made (Orange expires its page).
    expect(await statusOf(data.reference)).toMatchObject({ status: 'FAILED', failureCode: 'NOT_FOUND_AT_PROVIDER' });
    await expectLedgerBalanced(h.services.db);
  });

  it('Web Payment has no pay-out: the connector refuses one before anything is sent', async () => {
    const connector = h.services.connectors.live.get(RAIL)!;
    const before = sim.requests.length;
    const request = {
      direction: 'PAY_OUT' as const,
      reference: 'PO-000000000001',
      rail: { code: RAIL, operator: 'ORANGE_MONEY', country: 'CI', currency: 'XOF' },
      amount: 5000,
      currency: 'XOF',
      msisdn: '2250707000015',
      description: null,
      initiatedAt: h.clock.now(),
    };
    expect(await connector.prepare(request, AbortSignal.timeout(1000))).toMatchObject({ kind: 'FAILED', failureCode: 'INVALID_REQUEST' });
    expect(await connector.initiate({ ...request, operatorReference: request.reference, callbackUrl: null }, AbortSignal.timeout(1000))).toMatchObject({
      kind: 'FAILED',
      failureCode: 'INVALID_REQUEST',
    });
    expect(sim.requests.length).toBe(before);
  });
});
