/**
 * The hosted checkout paid on LIVE rails in real headless Chromium: a LIVE key, the MTN MoMo and
 * Orange Money simulators behind the configured connectors. The customer picks MTN, the USSD
 * push goes to the simulator, its callback triggers the status query of the attempt, the page
 * notices and lands on the merchant's successUrl; a decline at MTN then a retry on Orange.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout } from './helpers/checkout.ts';
import { mtnEnv, orangeEnv } from './helpers/live.ts';
import { startMtnSimulator, type MtnSimulator } from '../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startOrangeSimulator, type OrangeSimulator } from '../src/connectors/orange-money/simulator/orange-simulator.ts';
import { eq } from 'drizzle-orm';
import { listAttempts } from '../src/payments/checkout-attempt-records.ts';
import { transactions } from '../src/db/schema.ts';

let h: Harness;
let t: Tenant;
let mtn: MtnSimulator;
let orange: OrangeSimulator;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  mtn = await startMtnSimulator({ decisionDelayMs: 100 });
  orange = await startOrangeSimulator({ decisionDelayMs: 100 });
  h = await startHarness({ ...mtnEnv(mtn), ...orangeEnv(orange), CONNECTOR_TIMEOUT_MS: '2000' });
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Boutique</title><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  t = await h.createTenant({ environment: 'LIVE', application: { name: 'Boutique Live', successUrl: `${merchantUrl}/merci`, cancelUrl: `${merchantUrl}/panier` } });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => merchant?.close(() => resolve()));
  await h?.close();
  await mtn?.close();
  await orange?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
  return context.newPage();
}

describe('hosted checkout on LIVE rails in Chromium', () => {
  it('offers both configured Cameroonian rails without the test banner, pays with MTN MoMo, and lands on successUrl', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'LIVE-1' });
    const page = await newPage();
    expect((await page.goto(c.paymentUrl))!.status()).toBe(200);
    expect(await page.textContent('body')).not.toContain('test');
    await expect(page.getByLabel('MTN Mobile Money Cameroun').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Orange Money Cameroun').isVisible()).resolves.toBe(true);
    await page.getByLabel('MTN Mobile Money Cameroun').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('6 77 12 34 00');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    // The push reached the simulator under the attempt's own X-Reference-Id and callback URL.
    const [attempt] = await listAttempts(h.services.db, await rowId(c.reference));
    const push = mtn.requests.find((r) => r.path === '/collection/v1_0/requesttopay' && r.headers['x-reference-id'] === attempt!.operatorReference)!;
    expect(push.headers['x-callback-url']).toBe(`${h.baseUrl}/api/v1/callbacks/mtn-momo/${attempt!.callbackToken}`);
    expect(JSON.parse(push.body)).toMatchObject({ externalId: `${c.reference}-1`, payer: { partyId: '237677123400' } });
    // The page shows the confirmation, then redirects (it may already have, as the simulator is quick).
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 15_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ reference: c.reference, merchantReference: 'LIVE-1', status: 'SUCCESS' });
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key });
    expect(status.json.data).toMatchObject({ status: 'SUCCESS', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677123400' });
    await page.context().close();
  });

  it('a decline at MTN shows why; the retry on Orange Money succeeds', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'LIVE-2' });
    const page = await newPage();
    await page.goto(c.paymentUrl);
    await page.getByLabel('MTN Mobile Money Cameroun').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('677000451');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByRole('alert').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('alert').textContent()).toContain('refusée');
    await page.getByLabel('Orange Money Cameroun').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('699 12 34 56');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ reference: c.reference, status: 'SUCCESS' });
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key });
    expect(status.json.data).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699123456' });
    const attempts = await listAttempts(h.services.db, await rowId(c.reference));
    expect(attempts.map((a) => [a.railCode, a.status, a.failureCode])).toEqual([
      ['MTN_MOMO_CM', 'FAILED', 'REJECTED_BY_PAYER'],
      ['ORANGE_MONEY_CM', 'SUCCEEDED', null],
    ]);
    expect(attempts[1]!.operatorReference).toMatch(/^MP/);
    await page.context().close();
  });
});

async function rowId(reference: string): Promise<string> {
  const [row] = await h.services.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.reference, reference));
  return row!.id;
}
