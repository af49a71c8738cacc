/**
 * The hosted pages in English, in real headless Chromium (Debian's, driven by playwright-core)
 * with the browser locale `en-US` (Chromium then sends `Accept-Language: en-US`): a Kenyan
 * shilling M-Pesa sandbox checkout paid to the merchant's successUrl, a collection page whose
 * script shows its own errors in English, and a KES amount typed in whole shillings sent as typed. Screenshots go to test-output/screenshots/web/, axe-core
 * runs on each screen (test/web/browser.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { createApplication } from '../src/accounts/applications.ts';
import { transactions } from '../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout } from './helpers/checkout.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV } from './helpers/dashboard.ts';
import { expectSuccess } from './helpers/merchant-api.ts';
import { launchBrowser, screen } from './web/browser.ts';

let h: Harness;
let kes: Tenant;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, SANDBOX_DELAY_MS: '0' });
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Duka</title><h1>Duka</h1><p>${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  kes = await h.createTenant({ currency: 'KES', application: { name: 'Duka la Mama', successUrl: `${merchantUrl}/thanks` } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => merchant?.close(() => resolve()));
  await h?.close();
});

/** A phone-sized page with the browser in US English; requests to other hosts than Kolo and the merchant fail. */
async function englishPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'en-US', timezoneId: 'Africa/Nairobi' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.origin !== h.baseUrl && url.origin !== merchantUrl) throw new Error(`request to another host: ${request.url()}`);
  });
  return page;
}

describe('hosted pages in English (browser locale en-US)', () => {
  it('pays a KES M-Pesa sandbox checkout in English and lands on successUrl', async () => {
    const c = await createCheckout(h, kes, { amount: 1500, currency: 'KES', merchantReference: 'DUKA-1', description: 'Two baskets' });
    const page = await englishPage();
    const response = await page.goto(c.paymentUrl);
    expect(response!.status()).toBe(200);
    expect(await response!.request().headerValue('accept-language')).toMatch(/^en-US/);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await expect(page.getByText('KES 1,500').first().isVisible()).resolves.toBe(true);
    await screen(page, 'checkout-en-01-form');
    // A number that is not Kenyan: the English error beside the field.
    await page.getByLabel('M-Pesa Kenya').check();
    await page.getByLabel('Mobile money phone number').fill('12 34');
    await page.getByRole('button', { name: 'Pay KES 1,500' }).click();
    await page.waitForSelector('#phone-error');
    expect(await page.locator('#phone-error').textContent()).toBe('This is not a valid phone number in Kenya.');
    await page.getByLabel('Mobile money phone number').fill('0712 345678');
    await page.getByRole('button', { name: 'Pay KES 1,500' }).click();
    await page.getByRole('heading', { name: 'Confirm the payment on your phone' }).waitFor();
    expect(await page.textContent('body')).toContain('A payment request for KES 1,500 has been sent to +254 712 34 56 78 (M-Pesa Kenya).');
    await screen(page, 'checkout-en-02-waiting');
    // The sandbox confirms; the page's script notices, shows the English success screen, then redirects.
    h.clock.advance(2500);
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 15_000 });
    expect(await page.textContent('body')).toContain('Thank you! Your payment has been received.');
    await page.waitForURL(`${merchantUrl}/thanks**`, { timeout: 15_000 });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ reference: c.reference, merchantReference: 'DUKA-1', status: 'SUCCESS' });
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${c.reference}`, { key: kes.key });
    expect(status.json.data).toMatchObject({ status: 'SUCCESS', amount: 1500, currency: 'KES', paymentMethod: 'MPESA_KE', payerAccount: '254712345678' });
    await page.context().close();
  });

  it("shows the collection page's script errors in English", async () => {
    const owner = await createDashboardAccount(h);
    const app = await createApplication(h.services, { merchantId: owner.accountId, name: 'Chorale', currency: 'XAF' });
    const collection = expectSuccess(
      await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${app.id}/fund-collections`, { body: { title: 'New robes' } }),
      201,
    ).slug as string;
    const page = await englishPage();
    await page.goto(`${h.baseUrl}/collect/${collection}`);
    await page.getByLabel('Amount to give (FCFA)').fill('five');
    await page.getByLabel('Mobile money phone number').fill('677 12 34 56');
    await page.getByRole('button', { name: 'Pay' }).click();
    // Checked by the script, before any request.
    await page.locator('#amount-error').waitFor();
    expect(await page.locator('#amount-error').textContent()).toBe('Enter the amount in figures, without decimals (for example 5000).');
    // Refused by the JSON API (an Orange number on MTN): the page's English sentence, not the API's French.
    await page.getByLabel('Amount to give (FCFA)').fill('3000');
    await page.getByLabel('Mobile money phone number').fill('699 12 34 56');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.locator('#payerAccount-error').waitFor();
    expect(await page.locator('#payerAccount-error').textContent()).toBe('This is not a mobile money number of the chosen operator.');
    await screen(page, 'collect-en-01-error');
    await page.context().close();
  });

  it('sends a KES amount typed in whole shillings through the JSON API, and refuses decimals', async () => {
    const owner = await createDashboardAccount(h);
    const app = await createApplication(h.services, { merchantId: owner.accountId, name: 'Harambee', currency: 'KES' });
    const slug = expectSuccess(
      await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${app.id}/fund-collections`, { body: { title: 'School fees' } }),
      201,
    ).slug as string;
    const page = await englishPage();
    await page.goto(`${h.baseUrl}/collect/${slug}`);
    await page.getByLabel('M-Pesa Kenya').check();
    await page.getByLabel('Amount to give (KES)').fill('12.50');
    await page.getByLabel('Mobile money phone number').fill('0712 345678');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.locator('#amount-error').waitFor();
    expect(await page.locator('#amount-error').textContent()).toBe('Enter the amount in figures, without decimals (for example 5000).');
    await page.getByLabel('Amount to give (KES)').fill('1 250');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('heading', { name: 'Confirm the payment on your phone' }).waitFor();
    expect(await page.textContent('body')).toContain('A payment request for KES 1,250 has been sent to +254 712 34 56 78 (M-Pesa Kenya).');
    const [row] = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, slug));
    expect(row).toMatchObject({ amount: 1250, currency: 'KES', paymentMethod: 'MPESA_KE' });
    await page.context().close();
  });
});
