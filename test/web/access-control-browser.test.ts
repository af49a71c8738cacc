/**
 * Access control screens in Chromium, at 360 px with axe-core. Two-factor sign-in: a merchant
 * turns it on from the profile (the QR code
 * and the secret shown, a first code typed, the recovery codes shown once), confirms it for a
 * sensitive action, signs out, and signs in again — the login form then asks for the code — with
 * a recovery code (codes computed from the secret the page shows, at the server's clock). The team
 * screen (an invitation) and an API key issued with scopes and an allow-list. Staff without a
 * second factor: they read, their first write is refused with the enrolment message, and the
 * profile offers the enrolment, after which the write goes through.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { startHarness, type Harness } from '../harness.ts';
import { createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { launchBrowser, logIn, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let merchant: DashboardAccount;
beforeAll(async () => {
  await ensureWebBuild();
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h, { fullName: 'Awa Deux Facteurs' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

it('enrols with the QR code, confirms for a sensitive action, and signs in again with a recovery code', async () => {
  const page = await newPage(browser, h.baseUrl);
  await logIn(page, h.baseUrl, merchant.email, merchant.password);
  await page.goto(`${h.baseUrl}/app/profile`);
  await page.getByRole('button', { name: 'Activer' }).click();
  await page.getByRole('img', { name: 'QR code à lire avec votre application d’authentification' }).waitFor();
  const secret = (await page.locator('form[aria-label="Confirmer avec un premier code"] code').textContent())!.trim();
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  const code = () => totp.generate({ timestamp: h.clock.now().getTime() });
  await screen(page, 'two-factor-enrolment');

  const enrol = page.getByRole('form', { name: 'Confirmer avec un premier code' });
  await enrol.getByLabel('Code à 6 chiffres').fill(code());
  await enrol.getByRole('button', { name: 'Enregistrer' }).click();
  const recovery = page.locator('pre.secret');
  await recovery.waitFor();
  const recoveryCodes = (await recovery.textContent())!.split('\n').filter(Boolean);
  expect(recoveryCodes).toHaveLength(10);
  await screen(page, 'two-factor-recovery-codes');

  // Step-up: a new code (the next 30-second step) confirms the factor for 5 minutes.
  h.clock.advance(30_000);
  const verify = page.getByRole('form', { name: 'Confirmer mon second facteur' });
  await verify.getByLabel('Code à 6 chiffres').fill(code());
  await verify.getByRole('button', { name: 'Enregistrer' }).click();
  await page.getByText('Confirmé pour 5 minutes.').waitFor();

  // Signing in again asks for the second factor; a recovery code serves instead of a code.
  await page.getByRole('button', { name: 'Se déconnecter' }).click();
  await page.goto(`${h.baseUrl}/app/`);
  await page.getByLabel('Adresse e-mail').fill(merchant.email);
  await page.getByLabel('Mot de passe').fill(merchant.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  const otp = page.getByLabel('Code à deux facteurs (ou code de secours)');
  await otp.waitFor();
  await otp.fill(recoveryCodes[0]!);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Accueil' }).waitFor();
});

it('shows the team screen and the key form with scopes and allow-list at 360 px', async () => {
  const owner = await createDashboardAccount(h, { fullName: 'Awa Équipe' });
  const page = await newPage(browser, h.baseUrl);
  await logIn(page, h.baseUrl, owner.email, owner.password);
  await page.goto(`${h.baseUrl}/app/team`);
  await page.getByRole('heading', { name: 'Équipe', level: 1 }).waitFor();
  const invite = page.getByRole('form', { name: 'Inviter un membre' });
  await invite.getByLabel('Adresse e-mail').fill('paul@example.test');
  await invite.getByLabel('Rôle').selectOption('FINANCE');
  await invite.getByRole('button', { name: 'Enregistrer' }).click();
  await page.getByText('paul@example.test').waitFor();
  await screen(page, 'team');

  await page.goto(`${h.baseUrl}/app/apps`);
  const app = await h.request('POST', '/api/v1/merchants/apps', { body: { name: 'Boutique clés', currency: 'XAF' }, headers: { authorization: `Bearer ${owner.accessToken}` } });
  await page.goto(`${h.baseUrl}/app/apps/${app.json.data.id}`);
  await page.getByRole('checkbox', { name: 'Payer (virements et lots)' }).uncheck();
  await page.getByLabel('Nom de la clé').fill('Encaissement');
  await page.getByLabel(/Adresses autorisées/).fill('203.0.113.0/24');
  await page.getByRole('button', { name: 'Créer une clé' }).click();
  await page.getByText('COLLECT, REFUND, READ · 203.0.113.0/24').waitFor();
  await screen(page, 'app-key-scopes');
});

it('staff without a second factor read, are asked to enrol at their first write, enrol from the profile, then write', async () => {
  // As `npm start` runs on a laptop (no KOLO_ENV=production): staff still need a second factor to write.
  const admin = await createDashboardAccount(h, { role: 'ADMIN', fullName: 'Inès Sans Facteur' });
  const shop = await createDashboardAccount(h, { fullName: 'Boutique Kyc' });
  const page = await newPage(browser, h.baseUrl);
  await page.goto(`${h.baseUrl}/app/`);
  await page.getByLabel('Adresse e-mail').fill(admin.email);
  await page.getByLabel('Mot de passe').fill(admin.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Marchands' }).waitFor();
  await page.getByLabel('Recherche (e-mail ou nom)').fill(shop.email);
  await page.getByRole('button', { name: 'Filtrer' }).click();
  await page.getByRole('link', { name: 'Boutique Kyc' }).click();
  await page.getByRole('heading', { name: "Vue d'ensemble" }).waitFor();

  const kyc = page.getByRole('form', { name: 'Changer le niveau KYC' });
  await kyc.getByLabel('Niveau KYC').selectOption('BASIC');
  await kyc.getByRole('button', { name: 'Enregistrer' }).click();
  await expect.poll(() => kyc.getByRole('alert').textContent()).toContain('Votre rôle exige la connexion à deux facteurs : activez-la dans votre profil.');
  await screen(page, 'staff-enrolment-required');

  await page.getByRole('link', { name: 'Profil' }).click();
  await page.getByText('Votre rôle exige la connexion à deux facteurs : activez-la pour agir.').waitFor();
  await page.getByRole('button', { name: 'Activer' }).click();
  const secret = (await page.locator('form[aria-label="Confirmer avec un premier code"] code').textContent())!.trim();
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  const enrol = page.getByRole('form', { name: 'Confirmer avec un premier code' });
  await enrol.getByLabel('Code à 6 chiffres').fill(totp.generate({ timestamp: h.clock.now().getTime() }));
  await enrol.getByRole('button', { name: 'Enregistrer' }).click();
  await page.locator('pre.secret').waitFor();

  await page.goBack();
  await page.getByRole('heading', { name: "Vue d'ensemble" }).waitFor();
  await kyc.getByLabel('Niveau KYC').selectOption('BASIC');
  await kyc.getByRole('button', { name: 'Enregistrer' }).click();
  await page.getByText('Niveau KYC enregistré.').waitFor();
  await expect.poll(() => page.locator('dl.facts').textContent()).toContain('Niveau KYCBASIC');
});
