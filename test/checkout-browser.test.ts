/**
 * The hosted checkout page in real headless Chromium (Debian's, driven by playwright-core):
 * pay and land on the merchant's successUrl with the three parameters; decline then retry;
 * cancel; expiry; the same without JavaScript. Screenshots of every screen at 360 px (phone)
 * and 1280 px (desktop) go to test-output/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout } from './helpers/checkout.ts';

const SHOTS = 'test-output/screenshots';
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

let h: Harness;
let t: Tenant;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  h = await startHarness({ SANDBOX_DELAY_MS: '0' });
  // The merchant's site, where the customer lands after the page.
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Boutique</title><h1>Boutique</h1><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  t = await h.createTenant({
    application: { name: 'Boutique Ndolo', successUrl: `${merchantUrl}/merci?lang=fr`, cancelUrl: `${merchantUrl}/panier`, themeColor: '#0a6e4f' },
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
});

/** Saves the current screen at phone width and at desktop width. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${name}-360.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
}

async function newPage(javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled, locale: 'fr-FR' });
  return context.newPage();
}

function landedParams(page: Page): Record<string, string> {
  return Object.fromEntries(new URL(page.url()).searchParams);
}

describe('hosted checkout in Chromium', () => {
  it('pays and lands on successUrl with reference, merchantReference and status', async () => {
    const c = await createCheckout(h, t, { description: 'Panier : 2 pagnes wax' });
    const page = await newPage();
    const response = await page.goto(c.paymentUrl);
    expect(response!.status()).toBe(200);
    await expect(page.getByText('5 000 FCFA').first().isVisible()).resolves.toBe(true);
    await shoot(page, '01-form');
    // A number that is not Cameroonian: the error is shown beside the field.
    await page.getByLabel('Numéro de téléphone mobile money').fill('12 34');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.waitForSelector('#phone-error');
    expect(await page.locator('#phone-error').textContent()).toContain('du Cameroun');
    await shoot(page, '02-form-error');
    await page.getByLabel('MTN Mobile Money Cameroun').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('6 77 12 34 56');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    expect(await page.textContent('body')).toContain('Composez *126# pour valider le paiement');
    await shoot(page, '03-waiting');
    // The operator confirms; the page's script notices, shows the confirmation, then redirects.
    h.clock.advance(2500);
    await page.getByRole('heading', { name: 'Paiement réussi' }).waitFor({ timeout: 15_000 });
    await shoot(page, '04-success');
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 15_000 });
    expect(landedParams(page)).toEqual({ lang: 'fr', reference: c.reference, merchantReference: 'ORDER-42', status: 'SUCCESS' });
    await page.context().close();
  });

  it('a declined attempt shows why; a retry on another operator succeeds', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'ORDER-43' });
    const page = await newPage();
    await page.goto(c.paymentUrl);
    await page.getByLabel('Numéro de téléphone mobile money').fill('677000100');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    h.clock.advance(2500);
    await page.getByRole('alert').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('alert').textContent()).toContain('La demande de paiement a été refusée sur le téléphone.');
    await shoot(page, '05-declined');
    await page.getByLabel('Orange Money Cameroun').check();
    await page.getByLabel('Numéro de téléphone mobile money').fill('699 12 34 56');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByText('Composez #150*50# pour valider le paiement').waitFor();
    h.clock.advance(2500);
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(landedParams(page)).toMatchObject({ reference: c.reference, merchantReference: 'ORDER-43', status: 'SUCCESS' });
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key });
    expect(status.json.data).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699123456' });
    await page.context().close();
  });

  it('cancel: the customer backs out and lands on cancelUrl', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'ORDER-44' });
    const page = await newPage();
    await page.goto(c.paymentUrl);
    await page.getByRole('button', { name: 'Annuler' }).press('Enter');
    await page.getByRole('heading', { name: 'Paiement annulé' }).waitFor();
    await shoot(page, '06-cancelled');
    await page.waitForURL(`${merchantUrl}/panier**`, { timeout: 15_000 });
    expect(landedParams(page)).toEqual({ reference: c.reference, merchantReference: 'ORDER-44', status: 'CANCELLED' });
    await page.context().close();
  });

  it('after 30 minutes the page says the session has expired (410)', async () => {
    const c = await createCheckout(h, t);
    const page = await newPage();
    await page.goto(c.paymentUrl);
    h.clock.advance(31 * 60_000);
    const response = await page.reload();
    expect(response!.status()).toBe(410);
    await page.getByRole('heading', { name: 'Cette session de paiement a expiré' }).waitFor();
    await shoot(page, '07-expired');
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: t.key });
    expect(status.json.data).toMatchObject({ status: 'FAILED', failureCode: 'SESSION_EXPIRED' });
    await page.context().close();
  });

  it('works without JavaScript: form post, meta refresh while waiting, redirect', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'ORDER-45' });
    const page = await newPage(false);
    await page.goto(c.paymentUrl);
    await page.getByLabel('Numéro de téléphone mobile money').fill('+237677123456');
    await page.getByRole('button', { name: /Payer/ }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    h.clock.advance(2500);
    await page.waitForURL(`${merchantUrl}/merci**`, { timeout: 20_000 });
    expect(landedParams(page)).toMatchObject({ reference: c.reference, status: 'SUCCESS' });
    await page.context().close();
  });
});
