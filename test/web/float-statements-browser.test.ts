/**
 * The float and statements screens in real headless Chromium: staff see each LIVE rail's float
 * (MTN MoMo against its simulator) and an ADMIN reads the operator balance now; a merchant shows a
 * statement of the day with its opening and closing balances, and asks for one prepared in the
 * background. Each screen is saved at 360 px and 1280 px, checked for horizontal scrolling and
 * run through axe-core (browser.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startHarness, type Harness } from '../harness.ts';
import { createStaffAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { mtnEnv } from '../helpers/live.ts';
import type { Authenticator } from '../helpers/totp.ts';
import { launchBrowser, logIn, logInWithCode, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let sim: MtnSimulator;
let browser: Browser;
const merchant = { email: 'awa@releve-web.test', password: 'mot-de-passe-solide-52' };
const admin = { email: 'paul@float-web.test', password: 'mot-de-passe-solide-53' };
let adminAuth: Authenticator;

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startMtnSimulator({ decisionDelayMs: 30 });
  h = await startHarness({ ...DASHBOARD_TEST_ENV, ...mtnEnv(sim), FLOAT_WATERMARKS: 'MTN_MOMO_CM=200000:50000' });
  const account = await createAccount(h.services, { fullName: 'Awa Relevé', ...merchant, role: 'MERCHANT', status: 'ACTIVE', emailVerified: true });
  adminAuth = (await createStaffAccount(h, { fullName: 'Paul Float', ...admin, role: 'ADMIN' })).auth;
  const app = await createApplication(h.services, { merchantId: account.id, name: 'Relevé Web', currency: 'XAF' });
  const key = (await createApiKey(h.services, { applicationId: app.id, name: 'Clé', environment: 'TEST' })).plainTextKey;
  // A TEST transfer: the opening balance and its reservation are movements of today.
  const created = await h.request('POST', '/api/v1/pay-out/transfer', {
    key,
    body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa' },
  });
  expect(created.status).toBe(201);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  await sim?.close();
});

describe('float and statements in Chromium', () => {
  it('staff: the float of each LIVE rail; ADMIN reads the operator balance now', async () => {
    sim.options.balances.disbursement = 150_000;
    const page = await newPage(browser, h.baseUrl);
    // Staff land on the merchants' list, not the home screen.
    h.clock.advance(30_000);
    await logInWithCode(page, h.baseUrl, admin.email, admin.password, adminAuth.code());
    await page.getByRole('link', { name: 'Float', exact: true }).click();
    await page.getByRole('heading', { name: 'Float des opérateurs' }).waitFor();
    await page.getByText('MTN_MOMO_CM').waitFor();
    await page.getByRole('button', { name: 'Lire le solde MTN_MOMO_CM' }).click();
    await page.getByText('Bas', { exact: true }).waitFor();
    await expect(page.getByText(/Solde opérateur/).first().textContent()).resolves.toMatch(/150/);
    await screen(page, '60-float');
    await page.close();
  });

  it("merchant: today's statement adds up, and a statement prepared in the background", async () => {
    const page = await newPage(browser, h.baseUrl);
    await logIn(page, h.baseUrl, merchant.email, merchant.password);
    await page.getByRole('link', { name: 'Relevés', exact: true }).click();
    await page.getByRole('heading', { name: 'Relevés', level: 1 }).waitFor();
    const today = h.clock.now().toISOString().slice(0, 10);
    await page.getByLabel('Du').fill(today);
    await page.getByLabel('Au').fill(today);
    await page.getByRole('button', { name: 'Afficher' }).click();
    await page.getByText('Disponible · TEST · XAF').waitFor();
    await page.getByText('Réservé · TEST · XAF').waitFor();
    await screen(page, '61-statement');
    await page.getByRole('button', { name: 'Préparer en arrière-plan' }).click();
    await page.getByRole('button', { name: `Télécharger ${today} → ${today}` }).waitFor({ timeout: 15_000 });
    await page.close();
  });
});
