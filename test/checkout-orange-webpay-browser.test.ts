/**
 * The hosted checkout paid through Orange Money Web Payment in real headless Chromium: a LIVE key
 * of an Ivorian merchant (XOF), the Orange Web Payment simulator behind the configured connector
 * (Côte d'Ivoire and Senegal). The customer picks Orange Money Côte d'Ivoire (Senegal's rail is
 * not offered: the merchant's country), is sent to Orange's payment page (the simulator's), types
 * the OTP and confirms, and comes back to our page. Paid by the notification (its notif_token
 * checked, then confirmed by the status query); a notification with a wrong notif_token changes
 * nothing and asks nothing; without a notification the poller finds the payment (a 5xx answer
 * to its status query leaves the money waiting). The ledger balances after each.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout, type CreatedCheckout } from './helpers/checkout.ts';
import { expectLedgerBalanced } from './helpers/ledger.ts';
import { orangeWebpayEnv, waitUntil } from './helpers/live.ts';
import { providers } from '../src/db/schema.ts';
import { checkoutAttempts } from '../src/db/schema-checkout.ts';
import { callbacksIdle } from '../src/http/routes/callbacks.ts';
import { pollOnce } from '../src/jobs/status-poller.ts';
import { startOrangeWebpaySimulator, type OrangeWebpaySimPayment, type OrangeWebpaySimulator } from '../src/connectors/orange-webpay/simulator/orange-webpay-simulator.ts';

let h: Harness;
let t: Tenant;
let sim: OrangeWebpaySimulator;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  sim = await startOrangeWebpaySimulator();
  h = await startHarness({ ...orangeWebpayEnv(sim, ['CI', 'SN']), CONNECTOR_TIMEOUT_MS: '2000' });
  // Seeded inactive: staff activate the countries the deployment serves.
  await h.services.db.update(providers).set({ active: true }).where(inArray(providers.code, ['ORANGE_WEBPAY_CI', 'ORANGE_WEBPAY_SN']));
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Boutique</title><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  t = await h.createTenant({
    environment: 'LIVE',
    currency: 'XOF',
    country: 'CI',
    application: { name: 'Boutique Abidjan', successUrl: `${merchantUrl}/merci`, cancelUrl: `${merchantUrl}/panier` },
  });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => merchant?.close(() => resolve()));
  await h?.close();
  await sim?.close();
});

/** Status queries Orange received so far. */
const statusQueries = () => sim.requests.filter((r) => r.path.endsWith('/transactionstatus')).length;

/** The checkout's transaction as the merchant API shows it. */
async function statusOf(c: CreatedCheckout) {
  return (await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key })).json.data;
}

/**
 * Opens the checkout, pays with Orange Money Côte d'Ivoire up to Orange's page, types the OTP and
 * confirms; returns the simulator's payment, once the customer is back on our page.
 */
async function payOnOrange(page: Page, c: CreatedCheckout, phone: string): Promise<OrangeWebpaySimPayment> {
  expect((await page.goto(c.paymentUrl))!.status()).toBe(200);
  await expect.poll(() => page.getByLabel('Orange Money Sénégal (paiement web)').count()).toBe(0);
  await page.getByLabel("Orange Money Côte d'Ivoire (paiement web)").check();
  await page.getByLabel('Numéro de téléphone mobile money').fill(phone);
  await page.getByRole('button', { name: /Payer/ }).click();
  await page.waitForURL(`${sim.url}/payment/pay_token/**`);
  const payment = [...sim.payments.values()].find((p) => p.orderId.startsWith(c.reference))!;
  expect(payment).toMatchObject({ country: 'CI', amount: 5000, currency: 'XOF', returnUrl: c.paymentUrl, cancelUrl: c.paymentUrl, status: 'INITIATED' });
  expect(payment.notifUrl).toMatch(new RegExp(`^${h.baseUrl}/api/v1/callbacks/orange-money/[0-9a-f]{48}$`));
  await page.getByLabel('Code OTP').fill(sim.options.otp);
  await page.getByRole('button', { name: 'Confirmer le paiement' }).click();
  await page.waitForURL((url) => url.href.startsWith(c.paymentUrl) || url.href.startsWith(merchantUrl));
  return payment;
}

describe('hosted checkout on Orange Money Web Payment in Chromium', () => {
  it('redirect to Orange, OTP, back to our page: paid by the notification, confirmed by the status query', async () => {
    sim.options.notification = 'sent';
    const c = await createCheckout(h, t, { merchantReference: 'OWP-1', currency: 'XOF' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    const before = statusQueries();
    const payment = await payOnOrange(page, c, '07 07 00 00 01');
    // Kolo's clock stands still: no poll is ever due, only the notification can settle it.
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ reference: c.reference, merchantReference: 'OWP-1', status: 'SUCCESS' });
    expect(sim.callbacks.filter((cb) => cb.url === payment.notifUrl).map((cb) => cb.status)).toEqual([200]);
    expect(statusQueries()).toBeGreaterThan(before);
    expect(await statusOf(c)).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_WEBPAY_CI', payerAccount: '2250707000001' });
    await expectLedgerBalanced(h.services.db);
    await context.close();
  });

  it('a notification with a wrong notif_token is ignored: nothing asked, nothing changes; the poller settles the payment', async () => {
    sim.options.notification = 'wrong-token';
    const c = await createCheckout(h, t, { merchantReference: 'OWP-2', currency: 'XOF' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    const payment = await payOnOrange(page, c, '07 07 00 00 02');
    await waitUntil('the forged notification answered', () => sim.callbacks.some((cb) => cb.url === payment.notifUrl && cb.status === 200));
    await callbacksIdle(h.services);
    const asked = statusQueries();
    expect(payment.status).toBe('SUCCESS');
    expect(await statusOf(c)).toMatchObject({ status: 'PENDING' });
    const [attempt] = await h.services.db.select().from(checkoutAttempts).where(and(eq(checkoutAttempts.correlationId, payment.orderId)));
    expect(attempt).toMatchObject({ status: 'PENDING', operatorReference: payment.payToken });
    // Our page keeps waiting on its own reads, and asks Orange nothing either.
    await page.reload();
    await callbacksIdle(h.services);
    expect(statusQueries()).toBe(asked);
    expect(await statusOf(c)).toMatchObject({ status: 'PENDING' });
    h.clock.advance(60_000);
    await pollOnce(h.services);
    expect(statusQueries()).toBe(asked + 1);
    expect(await statusOf(c)).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_WEBPAY_CI' });
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    await expectLedgerBalanced(h.services.db);
    await context.close();
  });

  it('no notification: a 5xx status answer leaves the money waiting, then the poller finds the payment', async () => {
    sim.options.notification = 'never';
    const c = await createCheckout(h, t, { merchantReference: 'OWP-3', currency: 'XOF' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    const payment = await payOnOrange(page, c, '07 07 00 00 03');
    expect(payment.status).toBe('SUCCESS');
    expect(sim.callbacks.filter((cb) => cb.url === payment.notifUrl)).toEqual([]);
    sim.fault = { mode: 'error500', on: 'status', landed: true, remaining: 1 };
    h.clock.advance(60_000);
    await pollOnce(h.services);
    expect(sim.fault).toBeNull();
    expect(await statusOf(c)).toMatchObject({ status: 'PENDING' });
    h.clock.advance(60_000);
    await pollOnce(h.services);
    expect(await statusOf(c)).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_WEBPAY_CI', payerAccount: '2250707000003' });
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    await expectLedgerBalanced(h.services.db);
    await context.close();
  });
});
