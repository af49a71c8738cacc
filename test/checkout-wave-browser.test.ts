/**
 * The hosted checkout paid through a redirect rail in real headless Chromium: a LIVE key and the
 * Wave simulator behind the configured connector. The customer picks Wave Sénégal, is sent to
 * Wave's launch page (the simulator's), pays there, comes back to our hosted page, which shows
 * the live result (Wave's signed webhook triggered the status query) and lands on the merchant's
 * successUrl; `payment.success` is delivered to the merchant's webhook.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout } from './helpers/checkout.ts';
import { waveEnv } from './helpers/live.ts';
import { startReceiver, type Receiver } from './helpers/webhooks.ts';
import { startWaveSimulator, type WaveSimulator } from '../src/connectors/wave/simulator/wave-simulator.ts';
import { deliverOnce } from '../src/jobs/webhook-worker.ts';

let h: Harness;
let t: Tenant;
let wave: WaveSimulator;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;
let receiver: Receiver;

beforeAll(async () => {
  wave = await startWaveSimulator();
  receiver = await startReceiver();
  h = await startHarness({ ...waveEnv(wave), CONNECTOR_TIMEOUT_MS: '2000', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  wave.options.webhookUrl = `${h.baseUrl}/api/v1/callbacks/wave`;
  wave.options.nowMs = () => h.clock.now().getTime();
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Boutique</title><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  t = await h.createTenant({
    environment: 'LIVE',
    currency: 'XOF',
    application: { name: 'Boutique Dakar', successUrl: `${merchantUrl}/merci`, cancelUrl: `${merchantUrl}/panier` },
  });
  const set = await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: receiver.url } });
  expect(set.status).toBe(200);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => merchant?.close(() => resolve()));
  await h?.close();
  await wave?.close();
  await receiver?.close();
});

describe('hosted checkout on a redirect rail (Wave) in Chromium', () => {
  it('sends the customer to Wave, brings them back, shows the result and lands on successUrl; payment.success is delivered', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'WAVE-1', currency: 'XOF' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    expect((await page.goto(c.paymentUrl))!.status()).toBe(200);
    await page.getByLabel('Wave Sénégal').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('77 123 45 67');
    await page.getByRole('button', { name: /Payer/ }).click();
    // On Wave's page (the simulator's launch URL), locked to the customer's number.
    await page.waitForURL(`${wave.url}/c/cos-**`);
    const session = [...wave.sessions.values()].find((s) => s.restrict_payer_mobile === '+221771234567')!;
    expect(session).toMatchObject({ amount: '5000', currency: 'XOF', success_url: c.paymentUrl, error_url: c.paymentUrl });
    expect(session.client_reference).toMatch(new RegExp(`^${c.reference}`));
    await page.getByRole('button', { name: 'Payer avec Wave' }).click();
    // Back on our page, which notices the result and hands over to the merchant.
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ reference: c.reference, merchantReference: 'WAVE-1', status: 'SUCCESS' });
    expect(wave.callbacks.filter((cb) => cb.url.endsWith('/api/v1/callbacks/wave')).map((cb) => cb.status)).toContain(200);
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key });
    expect(status.json.data).toMatchObject({ status: 'SUCCESS', paymentMethod: 'WAVE_SN', payerAccount: '221771234567' });
    receiver.received.length = 0;
    await deliverOnce(h.services);
    expect(receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data.reference === c.reference)?.event).toBe('payment.success');
    await context.close();
  });

  it('a customer who comes back from Wave without paying can continue to Wave from our page, then pays', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'WAVE-2', currency: 'XOF' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(c.paymentUrl);
    await page.getByLabel('Wave Sénégal').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('77 123 45 68');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.waitForURL(`${wave.url}/c/cos-**`);
    await page.getByRole('link', { name: 'Retour' }).click();
    await page.waitForURL(c.paymentUrl);
    await page.getByRole('link', { name: 'Continuer vers Wave Sénégal' }).click();
    await page.waitForURL(`${wave.url}/c/cos-**`);
    await page.getByRole('button', { name: 'Payer avec Wave' }).click();
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ reference: c.reference, status: 'SUCCESS' });
    expect([...wave.sessions.values()].filter((s) => s.restrict_payer_mobile === '+221771234568')).toHaveLength(1);
    await context.close();
  });
});
