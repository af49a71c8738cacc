/**
 * The fund collection page in real headless Chromium (Debian's, driven by playwright-core): a
 * free amount paid with JavaScript (the form posts JSON to /api/v1/public/collect/confirm and
 * follows the status) and a fixed amount paid without JavaScript (plain form post, meta refresh),
 * both on the sandbox rail to SUCCESS; a closed collection. Screenshots at 360 px and 1280 px go
 * to test-output/screenshots/collect-*.
 */
import { mkdirSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHarness, type Harness } from '../harness.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { transactions } from '../../src/db/schema.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectSuccess } from '../helpers/merchant-api.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';

const SHOTS = 'test-output/screenshots';
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

let h: Harness;
let browser: Browser;
let merchant: DashboardAccount;
let appId: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  h = await startHarness({ ...DASHBOARD_TEST_ENV, SANDBOX_DELAY_MS: '0', SANDBOX_OPENING_BALANCE: '0' });
  merchant = await createDashboardAccount(h);
  appId = (await createApplication(h.services, { merchantId: merchant.accountId, name: 'Chorale Saint-Michel', currency: 'XAF', themeColor: '#7a1f5c' })).id;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function collection(body: Record<string, unknown>) {
  return expectSuccess(await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/fund-collections`, { body }), 201);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/collect-${name}-360.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SHOTS}/collect-${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
}

async function newPage(javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled, locale: 'fr-FR' });
  return context.newPage();
}

const balance = () => tenantBalances(h, { applicationId: appId, merchantId: merchant.accountId, key: '', keyId: '' });

describe('fund collection page in Chromium', () => {
  it('with JavaScript: a free amount, an error shown beside the field, then paid to SUCCESS through the JSON API', async () => {
    const c = await collection({ title: 'Nouvelles robes de la chorale', description: 'Chaque don compte.', collectCustomerInfo: true, thankYouMessage: 'Merci, que Dieu vous bénisse !' });
    const before = await balance();
    const page = await newPage();
    const confirms: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/api/v1/public/collect/confirm')) confirms.push(response.status());
    });
    const response = await page.goto(`${h.baseUrl}/collect/${c.slug}`);
    expect(response!.status()).toBe(200);
    await page.getByRole('heading', { name: 'Nouvelles robes de la chorale' }).waitFor();
    await shoot(page, '01-form');
    await page.getByLabel('Montant à donner (FCFA)').fill('3 000');
    await page.getByLabel('Numéro de téléphone mobile money').fill('699 12 34 56');
    await page.getByRole('button', { name: 'Payer' }).click();
    // MTN is chosen by default; an Orange number: the API's error appears beside the field, no reload.
    await page.locator('#payerAccount-error').waitFor();
    expect(await page.locator('#payerAccount-error').textContent()).toContain('Ce numéro est un numéro Orange Money Cameroun');
    expect(confirms).toEqual([400]);
    await shoot(page, '02-error');
    await page.getByLabel('Orange Money Cameroun').check();
    await page.getByLabel('Nom').fill('Awa Ndiaye');
    await page.getByLabel('Adresse e-mail').fill('awa@example.com');
    await page.getByRole('button', { name: 'Payer' }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    expect(confirms).toEqual([400, 201]);
    expect(await page.textContent('body')).toContain('3 000 FCFA');
    await shoot(page, '03-waiting');
    h.clock.advance(2500);
    // The script polls the status and reloads on SUCCESS.
    await page.getByRole('heading', { name: 'Merci ! Votre paiement a bien été reçu.' }).waitFor({ timeout: 15_000 });
    expect(await page.textContent('body')).toContain('Merci, que Dieu vous bénisse !');
    await shoot(page, '04-success');
    const [row] = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(row).toMatchObject({ type: 'FUND_COLLECTION', status: 'SUCCESS', amount: 3000, paymentMethod: 'ORANGE_MONEY_CM', payerName: 'Awa Ndiaye', payerEmail: 'awa@example.com' });
    expect(row!.reference).toMatch(/^FC-[0-9A-F]{12}$/);
    expect((await balance()).available - before.available).toBe(3000 - row!.feeAmount!);
    await expectLedgerBalanced(h.services.db);
    await page.context().close();
  });

  it('without JavaScript: a fixed amount, plain form post, meta refresh while waiting, SUCCESS', async () => {
    const c = await collection({ title: 'Cotisation annuelle', isAmountFixed: true, amount: 2000 });
    const page = await newPage(false);
    await page.goto(`${h.baseUrl}/collect/${c.slug}`);
    await page.getByRole('button', { name: 'Payer 2 000 FCFA' }).waitFor();
    await page.getByLabel('Numéro de téléphone mobile money').fill('+237677123456');
    await page.getByRole('button', { name: 'Payer 2 000 FCFA' }).click();
    await page.getByRole('heading', { name: 'Confirmez le paiement sur votre téléphone' }).waitFor();
    expect(page.url()).toMatch(/\/paiement\/FC-[0-9A-F]{12}\?t=/);
    h.clock.advance(2500);
    // The <noscript> meta refresh (5 s) reloads the page on its own.
    await page.getByRole('heading', { name: 'Merci ! Votre paiement a bien été reçu.' }).waitFor({ timeout: 20_000 });
    await shoot(page, '05-success-nojs');
    const [row] = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(row).toMatchObject({ type: 'FUND_COLLECTION', status: 'SUCCESS', amount: 2000 });
    await page.context().close();
  });

  it('a closed collection shows why, in French', async () => {
    const c = await collection({ title: 'Voyage annulé' });
    expectSuccess(await asAccount(h, merchant.accessToken, 'PATCH', `/api/v1/merchants/fund-collections/${c.id}/close`), 200);
    const page = await newPage();
    const response = await page.goto(`${h.baseUrl}/collect/${c.slug}`);
    expect(response!.status()).toBe(410);
    await page.getByRole('heading', { name: "Cette collecte n'accepte plus de paiements" }).waitFor();
    expect(await page.textContent('body')).toContain('Son organisateur l’a clôturée.');
    await shoot(page, '06-closed');
    await page.context().close();
  });
});
