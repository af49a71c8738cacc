/**
 * The dashboard web app (/app) in real headless Chromium (Debian's, through playwright-core),
 * used as a person would, with roles and labels as selectors:
 * - a merchant signs up with the e-mail code, logs in, creates an application and a TEST key,
 *   charges with that key through the merchant API, finds the payment in the list, refunds part
 *   of it and sees the balance move;
 * - the same merchant, from a new browser, gets the language it chose (kept by the API), sets an
 *   application's late-success policy, and removes a withdrawal account and an application after
 *   confirming (and sees the API's refusal, translated, when they were already removed);
 * - another merchant resets a forgotten password with the e-mailed code, edits the profile and
 *   changes the password; the TEST/LIVE switch and the 7/30-day chart change what the home shows;
 * - an administrator opens that merchant's page, changes its KYC level, sets and removes its own
 *   fees (a charge then pays the merchant's fee), suspends it (its key is then refused), and
 *   edits a rail's limits and fees; SUPPORT reads the same pages without any write control.
 * Every screen is saved at 360 px and 1280 px in test-output/screenshots/web/, checked for
 * horizontal scrolling at 360 px, and run through axe-core (no serious or critical violation).
 * Needs web/dist (`npm run build`); builds it once when it is missing.
 */
import { setAvailabilityOverride } from '../../src/dashboard/rail-availability-overrides.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startHarness, type Harness } from '../harness.ts';
import { DASHBOARD_TEST_ENV, asAccount, createStaffAccount, login } from '../helpers/dashboard.ts';
import { settle } from '../helpers/webhooks.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { launchBrowser, logInWithCode, newPage as newBrowserPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let mailDir: string;

beforeAll(async () => {
  await ensureWebBuild();
  mailDir = mkdtempSync(join(tmpdir(), 'kolo-web-mail-'));
  h = await startHarness({ ...DASHBOARD_TEST_ENV, MAIL_DIR: mailDir });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  rmSync(mailDir, { recursive: true, force: true });
});

/** A new page at 360 px, in French, in Douala's time zone, that may ask only Kolo. */
const newPage = (): Promise<Page> => newBrowserPage(browser, h.baseUrl);

/** The text of the available balance of `currency` on the home screen. */
async function availableBalance(page: Page, currency: string): Promise<string> {
  await page.getByRole('link', { name: 'Accueil' }).click();
  const card = page.getByRole('group', { name: currency });
  await card.waitFor();
  return (await card.locator('dd').first().textContent())!;
}

/** Logs in through the login screen and waits for the first screen (`heading`). */
async function logInAs(page: Page, address: string, secret: string, heading: string): Promise<void> {
  await page.goto(`${h.baseUrl}/app/`);
  await page.getByLabel('Adresse e-mail').fill(address);
  await page.getByLabel('Mot de passe').fill(secret);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  // Signing in hashes the password and loads the first screen's chunk and data: on a two-core
  // machine running other test files beside this one, it has taken more than the default 10 s.
  await page.getByRole('heading', { name: heading }).waitFor({ timeout: 30_000 });
}

/** The one-time code of the newest mail to `address` that is not in `seen` (file names). */
function newCode(address: string, seen: Set<string>): string {
  const fresh = readdirSync(mailDir).filter((name) => !seen.has(name) && readFileSync(join(mailDir, name), 'utf8').includes(address));
  expect(fresh).toHaveLength(1);
  return readFileSync(join(mailDir, fresh[0]!), 'utf8').match(/\b(\d{6})\b/)![1]!;
}

const email = 'awa@boutique-web.test';
const password = 'mot-de-passe-solide-42';
let merchantKey = '';

describe('the dashboard in Chromium', () => {
  it('merchant: sign up with the code, log in, app and key, charge, find it, refund, balance moves', async () => {
    const page = await newPage();
    const root = await page.goto(`${h.baseUrl}/`);
    expect(root!.url()).toBe(`${h.baseUrl}/app/`);
    await page.getByRole('heading', { name: 'Connexion au tableau de bord' }).waitFor();
    await screen(page, '01-login');

    await page.getByRole('link', { name: 'Créer un compte' }).click();
    await page.getByLabel('Nom complet').fill('Awa Boutique');
    await page.getByLabel('Adresse e-mail').fill(email);
    await page.getByLabel('Téléphone').fill('+237 677 00 00 42');
    await page.getByLabel('Mot de passe').fill(password);
    await screen(page, '02-sign-up');
    await page.getByRole('button', { name: 'Créer un compte' }).click();
    await page.getByLabel('Code reçu par e-mail (6 chiffres)').waitFor();
    const mail = readFileSync(join(mailDir, readdirSync(mailDir)[0]!), 'utf8');
    const otp = mail.match(/\b(\d{6})\b/)![1]!;
    // A wrong code first: the message comes from the API's code, in French.
    await page.getByLabel('Code reçu par e-mail (6 chiffres)').fill(otp === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Vérifier' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Code incorrect.');
    await screen(page, '03-sign-up-code');
    await page.getByLabel('Code reçu par e-mail (6 chiffres)').fill(otp);
    await page.getByRole('button', { name: 'Vérifier' }).click();
    await page.getByText('Adresse vérifiée. Vous pouvez vous connecter.').waitFor();

    await page.getByLabel('Adresse e-mail').fill(email);
    await page.getByLabel('Mot de passe').fill('pas-le-bon');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('E-mail ou mot de passe incorrect.');
    await page.getByLabel('Mot de passe').fill(password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();
    await page.getByText('Aucun solde pour cet environnement.').waitFor();
    await screen(page, '04-home-empty');
    // No token in the page's storage: the refresh token is an httpOnly cookie.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toMatch(/rt_|eyJ/);

    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByText('Aucune application. Créez-en une pour obtenir une clé API.').waitFor();
    await page.getByRole('button', { name: 'Créer une application' }).click();
    await page.getByLabel('Nom', { exact: true }).fill('Boutique Web');
    await page.getByLabel('URL de retour après paiement').fill('https://boutique.example/merci');
    await screen(page, '05-app-create');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByRole('region', { name: 'Secret de signature des webhooks (affiché une seule fois)' }).waitFor();
    await screen(page, '06-apps');
    await page.getByRole('status').getByRole('link', { name: 'Boutique Web' }).click();
    await page.getByRole('heading', { name: 'Boutique Web' }).waitFor();
    await page.getByLabel('Nom de la clé').fill('Clé de test');
    await page.getByRole('button', { name: 'Créer une clé' }).click();
    const secret = page.getByRole('region', { name: 'Votre nouvelle clé (affichée une seule fois, copiez-la maintenant)' });
    merchantKey = (await secret.locator('code').textContent())!;
    expect(merchantKey).toMatch(/^sk_test_/);
    await page.getByRole('button', { name: 'Renouveler', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Journal des livraisons' }).waitFor();
    await page.getByText('Aucune livraison.').waitFor();
    await screen(page, '07-app-detail');

    // A charge with that key through the merchant API, completed by the sandbox (one poller turn).
    const charge = await h.request('POST', '/api/v1/pay-in/charge', {
      key: merchantKey,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey: 'web-1', merchantReference: 'CMD-WEB-1' },
    });
    expect(charge.status).toBe(201);
    const reference = charge.json.data.reference as string;
    await settle(h);
    const status = (await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: merchantKey })).json.data.status;
    expect(status).toBe('SUCCESS');

    const before = await availableBalance(page, 'XAF');
    await screen(page, '08-home');
    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByLabel('Recherche (référence, id opérateur, téléphone)').fill('CMD-WEB-1');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await page.getByRole('link', { name: new RegExp(reference) }).waitFor();
    await expect(page.getByText('1 transaction(s)').isVisible()).resolves.toBe(true);
    await screen(page, '09-transactions');
    await page.getByRole('link', { name: new RegExp(reference) }).click();
    await page.getByRole('heading', { name: 'Détail de la transaction' }).waitFor();
    await page.getByRole('heading', { name: 'Historique' }).waitFor();
    await screen(page, '10-transaction');
    await page.getByRole('button', { name: 'Rembourser' }).click();
    await page.getByLabel(/Montant à rembourser/).fill('2000');
    await page.getByLabel('Motif (facultatif)').fill('Article rendu');
    await screen(page, '11-refund');
    await page.getByRole('button', { name: 'Confirmer' }).click();
    await page.getByText(/Remboursement PO-[0-9A-F]{12} initié\./).waitFor();
    // The cached balance shows first while the fresh one loads: wait for the fresh one.
    await availableBalance(page, 'XAF');
    await expect.poll(() => page.getByRole('group', { name: 'XAF' }).locator('dd').first().textContent(), { timeout: 10_000 }).not.toBe(before);
    const after = (await page.getByRole('group', { name: 'XAF' }).locator('dd').first().textContent())!;
    const digits = (text: string) => Number(text.replace(/\D/g, ''));
    expect(digits(before) - digits(after)).toBeGreaterThanOrEqual(2000);

    // Withdraw now, after a confirmation step, to a new withdrawal account.
    await page.getByRole('link', { name: 'Retraits' }).click();
    await page.getByText("Ajoutez d'abord un compte de retrait.").waitFor();
    await page.getByLabel('Numéro (MSISDN)').fill('237677000002');
    await page.getByLabel('Nom du titulaire').fill('Awa Boutique');
    await page.getByRole('button', { name: 'Ajouter un compte' }).click();
    await page.getByLabel('Vers le compte').waitFor();
    await page.getByLabel('Montant', { exact: true }).fill('1000');
    await page.getByRole('button', { name: 'Vérifier' }).click();
    await page.getByRole('group', { name: 'Confirmer le retrait' }).waitFor();
    await screen(page, '12-withdraw-confirm');
    await page.getByRole('button', { name: 'Confirmer' }).click();
    await page.getByText(/Retrait PO-[0-9A-F]{12} lancé\./).waitFor();
    await page.getByRole('heading', { name: 'Retraits automatiques' }).waitFor();
    await screen(page, '13-payouts');

    // A fund collection: created, shared as a link and a QR code, closed.
    await page.getByRole('link', { name: 'Collectes' }).click();
    await page.getByText('Aucune collecte dans cet environnement.').waitFor();
    await page.getByRole('button', { name: 'Créer une collecte' }).click();
    await page.getByLabel('Titre').fill('Cotisation mariage');
    await page.getByLabel('Montant (vide : libre)').fill('2500');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByRole('img', { name: 'QR code de la collecte Cotisation mariage' }).waitFor();
    await screen(page, '14-collections');
    await page.getByRole('button', { name: 'Fermer' }).click();
    await page.getByRole('button', { name: 'Rouvrir' }).waitFor();

    // English, kept by the API for this account (the next test logs in from a new browser).
    await page.getByRole('link', { name: 'Accueil' }).click();
    await page.getByLabel('Langue').selectOption('en');
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    await screen(page, '15-home-en');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to the dashboard' }).waitFor();
    await page.context().close();
  }, 120_000);

  it('merchant: money settings, and removing a withdrawal account and an application after confirming', async () => {
    const page = await newPage();
    // English, chosen in the first test's browser, comes back in this new one (fr-FR) once
    // logged in; before that, the browser's language.
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByRole('heading', { name: 'Connexion au tableau de bord' }).waitFor();
    await logInAs(page, email, password, 'Home');
    const { accessToken } = await login(h, email, password);
    expect((await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).json.data.language).toBe('en');
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();
    await expect.poll(async () => (await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).json.data.language).toBe('fr');

    // An application's late-success policy, explained, saved, read back after a reload.
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.locator('#main').getByRole('link', { name: 'Boutique Web' }).click();
    const settings = page.getByRole('form', { name: "Réglages d'argent" });
    await settings.getByRole('radio', { name: 'Rembourser le payeur (par défaut)' }).waitFor();
    expect(await settings.getByRole('radio', { name: 'Rembourser le payeur (par défaut)' }).isChecked()).toBe(true);
    await settings.getByText('Le paiement est crédité à votre solde comme un paiement réussi').waitFor();
    await settings.getByRole('radio', { name: 'Garder le paiement' }).check();
    await settings.getByRole('button', { name: 'Enregistrer' }).click();
    await settings.getByText('Enregistré.').waitFor();
    await screen(page, '16-app-money-settings');
    await page.reload();
    await expect.poll(() => page.getByRole('radio', { name: 'Garder le paiement' }).isChecked()).toBe(true);
    const appId = page.url().split('/').pop()!;
    const stored = await asAccount(h, accessToken, 'GET', `/api/v1/merchants/apps/${appId}/money-settings`);
    expect(stored.json.data).toEqual({ lateSuccessPolicy: 'KEEP', batchAutoApproveBelow: 0 });

    // A withdrawal account removed after confirming; cancelling first keeps it.
    await page.getByRole('link', { name: 'Retraits' }).click();
    for (const [number, name] of [
      ['237677000003', 'Awa Mobile'],
      ['237677000004', 'Compte Ancien'],
    ]) {
      await page.getByLabel('Numéro (MSISDN)').fill(number!);
      await page.getByLabel('Nom du titulaire').fill(name!);
      await page.getByRole('button', { name: 'Ajouter un compte' }).click();
      await page.getByRole('button', { name: `Supprimer ${name}` }).waitFor();
    }
    await page.getByRole('button', { name: 'Supprimer Awa Mobile' }).click();
    const ask = page.getByRole('group', { name: /^Supprimer le compte Awa Mobile · 237677000003 \?/ });
    await screen(page, '17-payout-account-remove');
    await ask.getByRole('button', { name: 'Annuler' }).click();
    await page.getByRole('button', { name: 'Supprimer Awa Mobile' }).click();
    await ask.getByRole('button', { name: 'Confirmer' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Supprimer Awa Mobile' }).count()).toBe(0);
    const accounts = (await asAccount(h, accessToken, 'GET', '/api/v1/merchants/withdrawals/accounts')).json.data as { id: string; accountName: string }[];
    expect(accounts.map((a) => a.accountName).sort()).toEqual(['Awa Boutique', 'Compte Ancien']);
    // Removed elsewhere in the meantime: the API's 404 code, translated, and the list refreshed.
    const old = accounts.find((a) => a.accountName === 'Compte Ancien')!;
    expect((await asAccount(h, accessToken, 'DELETE', `/api/v1/merchants/withdrawals/accounts/${old.id}`)).status).toBe(204);
    await page.getByRole('button', { name: 'Supprimer Compte Ancien' }).click();
    await page.getByRole('group', { name: /^Supprimer le compte Compte Ancien/ }).getByRole('button', { name: 'Confirmer' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Élément introuvable : il a peut-être déjà été supprimé.');
    await expect.poll(() => page.getByRole('button', { name: 'Supprimer Compte Ancien' }).count()).toBe(0);

    // An application deleted after confirming: its key is refused at once.
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    for (const name of ['Boutique Jetable', 'Boutique Double']) {
      await page.getByRole('button', { name: 'Créer une application' }).click();
      await page.getByLabel('Nom', { exact: true }).fill(name);
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await page.getByRole('status').getByRole('link', { name }).waitFor();
    }
    await page.getByRole('status').getByRole('link', { name: 'Boutique Double' }).click();
    await page.getByRole('heading', { name: 'Boutique Double' }).waitFor();
    const doubleId = page.url().split('/').pop()!;
    await page.getByRole('link', { name: 'Retour' }).click();
    await page.getByRole('link', { name: 'Boutique Jetable' }).click();
    await page.getByRole('heading', { name: 'Boutique Jetable' }).waitFor();
    await page.getByLabel('Nom de la clé').fill('Clé jetable');
    await page.getByRole('button', { name: 'Créer une clé' }).click();
    const throwaway = (await page.getByRole('region', { name: /Votre nouvelle clé/ }).locator('code').textContent())!;
    await page.getByRole('button', { name: "Supprimer l'application" }).click();
    await page.getByRole('group', { name: /^Supprimer Boutique Jetable \?/ }).waitFor();
    await screen(page, '18-app-delete-confirm');
    await page.getByRole('group', { name: /^Supprimer Boutique Jetable \?/ }).getByRole('button', { name: 'Confirmer' }).click();
    await page.getByText('Application Boutique Jetable supprimée.').waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Boutique Jetable' }).count()).toBe(0);
    const refused = await h.request('POST', '/api/v1/pay-in/charge', {
      key: throwaway,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey: 'web-deleted-app' },
    });
    expect(refused.status).toBe(401);
    // Deleted elsewhere first: the API's code, translated.
    await page.getByRole('link', { name: 'Boutique Double' }).click();
    await page.getByRole('heading', { name: 'Boutique Double' }).waitFor();
    expect((await asAccount(h, accessToken, 'DELETE', `/api/v1/merchants/apps/${doubleId}`)).status).toBe(204);
    await page.getByRole('button', { name: "Supprimer l'application" }).click();
    await page.getByRole('group', { name: /^Supprimer Boutique Double \?/ }).getByRole('button', { name: 'Confirmer' }).click();
    // The delete's own alert: the screen's other reads of the deleted application may fail too.
    await expect(page.getByRole('region', { name: "Supprimer l'application" }).getByRole('alert').textContent()).resolves.toContain('Application introuvable.');
    await page.context().close();
  }, 90_000);

  it('merchant: forgot password with the e-mailed code, then profile and password change', async () => {
    const binta = 'binta@boutique-web.test';
    await createAccount(h.services, { fullName: 'Binta', email: binta, password: 'ancien-secret-42', role: 'MERCHANT', status: 'ACTIVE', emailVerified: true });
    const page = await newPage();
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
    await page.getByRole('heading', { name: 'Réinitialiser le mot de passe' }).waitFor();
    const seen = new Set(readdirSync(mailDir));
    await page.getByLabel('Adresse e-mail').fill(binta);
    await page.getByRole('button', { name: 'Envoyer le code' }).click();
    await page.getByText('Si un compte existe pour cette adresse, un code a été envoyé.').waitFor();
    await screen(page, '30-forgot-code');
    await page.getByLabel('Code reçu par e-mail (6 chiffres)').fill(newCode(binta, seen));
    await page.getByRole('button', { name: 'Vérifier' }).click();
    await page.getByLabel('Nouveau mot de passe (8 caractères au moins)').fill('nouveau-secret-42');
    await screen(page, '31-forgot-new-password');
    await page.getByRole('button', { name: 'Choisir ce mot de passe' }).click();
    await page.getByText('Mot de passe réinitialisé. Vous pouvez vous connecter.').waitFor();
    await page.getByLabel('Adresse e-mail').fill(binta);
    await page.getByLabel('Mot de passe').fill('ancien-secret-42');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('E-mail ou mot de passe incorrect.');
    await page.getByLabel('Mot de passe').fill('nouveau-secret-42');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();

    // Profile: name and phone saved; the password changed with the current one.
    await page.getByRole('link', { name: 'Profil' }).click();
    const details = page.getByRole('form', { name: 'Mes informations' });
    await details.getByLabel('Nom complet').fill('Binta Diallo');
    await details.getByLabel('Téléphone').fill('+221 77 000 00 01');
    await details.getByRole('button', { name: 'Enregistrer' }).click();
    await details.getByText('Enregistré.').waitFor();
    const { accessToken } = await login(h, binta, 'nouveau-secret-42');
    expect((await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).json.data).toMatchObject({ fullName: 'Binta Diallo', phone: '+221 77 000 00 01' });
    const change = page.getByRole('form', { name: 'Changer de mot de passe' });
    await change.getByLabel('Mot de passe actuel').fill('pas-le-bon-secret');
    await change.getByLabel('Nouveau mot de passe (8 caractères au moins)').fill('troisieme-secret-42');
    await change.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(change.getByRole('alert').textContent()).resolves.toContain('Certains champs sont invalides. (currentPassword)');
    await change.getByLabel('Mot de passe actuel').fill('nouveau-secret-42');
    await change.getByRole('button', { name: 'Enregistrer' }).click();
    await change.getByText('Mot de passe modifié.').waitFor();
    await screen(page, '32-profile');
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.getByLabel('Adresse e-mail').fill(binta);
    await page.getByLabel('Mot de passe').fill('nouveau-secret-42');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('E-mail ou mot de passe incorrect.');
    await page.getByLabel('Mot de passe').fill('troisieme-secret-42');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    // Back on the screen where the session ended.
    await page.getByRole('heading', { name: 'Profil' }).waitFor();
    await expect(page.getByLabel('Nom complet').inputValue()).resolves.toBe('Binta Diallo');
    await page.context().close();
  }, 60_000);

  it('merchant: the TEST/LIVE switch and the 7/30-day chart', async () => {
    const page = await newPage();
    await logInAs(page, email, password, 'Accueil');
    const environment = page.getByRole('group', { name: 'Environnement' });
    expect(await environment.getByRole('button', { name: 'TEST' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('group', { name: 'XAF' }).waitFor();
    await page.getByText('Mode TEST : données du bac à sable, aucun argent réel.').waitFor();
    await page.getByRole('img', { name: 'Volume des paiements réussis par jour, 7 derniers jours' }).waitFor();
    await page.getByText('Taux de succès (7 jours)').waitFor();
    await page.getByRole('group', { name: 'Période' }).getByRole('button', { name: '30 jours' }).click();
    await page.getByRole('img', { name: 'Volume des paiements réussis par jour, 30 derniers jours' }).waitFor();
    await page.getByText('Taux de succès (30 jours)').waitFor();
    expect(await page.getByRole('button', { name: '30 jours' }).getAttribute('aria-pressed')).toBe('true');
    await screen(page, '33-home-30-days');
    // LIVE: no live money yet (0 available), no sandbox banner; the transactions follow the switch.
    const testAvailable = (await page.getByRole('group', { name: 'XAF' }).locator('dd').first().textContent())!;
    expect(Number(testAvailable.replace(/\D/g, ''))).toBeGreaterThan(0);
    await environment.getByRole('button', { name: 'LIVE' }).click();
    await expect.poll(async () => (await page.getByRole('group', { name: 'XAF' }).locator('dd').first().textContent())!.replace(/\D/g, '')).toBe('0');
    expect(await environment.getByRole('button', { name: 'LIVE' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByText('Mode TEST : données du bac à sable, aucun argent réel.').count()).toBe(0);
    await screen(page, '34-home-live');
    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByText('Aucune transaction ne correspond.').waitFor();
    await environment.getByRole('button', { name: 'TEST' }).click();
    await page.getByText(/^[1-9]\d* transaction\(s\)$/).waitFor();
    await page.context().close();
  }, 60_000);

  it('staff: an administrator suspends the merchant, whose key is then refused', async () => {
    expect(merchantKey).not.toBe('');
    const admin = await createStaffAccount(h, { fullName: 'Admin Kolo', email: 'admin@kolo.test', password: 'mot-de-passe-admin', role: 'ADMIN' });
    const page = await newPage();
    h.clock.advance(30_000);
    await logInWithCode(page, h.baseUrl, admin.email, admin.password, admin.auth.code());
    await page.getByRole('heading', { name: 'Marchands' }).waitFor();
    await page.getByLabel('Recherche (e-mail ou nom)').fill('boutique-web');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await page.getByText(email).waitFor();
    await screen(page, '20-staff-merchants');

    // The merchant's page: its figures, its KYC level, its own fees, then suspended from there.
    await page.getByRole('link', { name: 'Awa Boutique' }).click();
    await page.getByRole('heading', { name: 'Awa Boutique' }).waitFor();
    await page.getByRole('heading', { name: "Vue d'ensemble" }).waitFor();
    const facts = page.locator('dl.facts');
    await expect(facts.textContent()).resolves.toMatch(/Applications1Transactions[1-9]/);
    await page.getByRole('form', { name: 'Changer le niveau KYC' }).getByLabel('Niveau KYC').selectOption('BASIC');
    await page.getByRole('form', { name: 'Changer le niveau KYC' }).getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText('Niveau KYC enregistré.').waitFor();
    await expect.poll(() => facts.textContent()).toContain('Niveau KYCBASIC');
    const feeForm = page.getByRole('form', { name: 'Fixer des frais propres' });
    await feeForm.getByLabel('Moyen de paiement').selectOption('MTN_MOMO_CM');
    await feeForm.getByLabel('Sens').selectOption('PAY_OUT');
    await feeForm.getByLabel('Pourcentage (%)').fill('0.5');
    await feeForm.getByLabel(/Partie fixe/).fill('25');
    await feeForm.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText('0.5 % + 25').waitFor();
    await feeForm.getByLabel('Sens').selectOption('PAY_IN');
    await feeForm.getByLabel('Pourcentage (%)').fill('1.25');
    await feeForm.getByLabel(/Partie fixe/).fill('50');
    await feeForm.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText('1.25 % + 50').waitFor();
    // Too many decimals: refused by the API, its code translated.
    await feeForm.getByLabel('Pourcentage (%)').fill('1.255');
    await feeForm.evaluate((form: HTMLFormElement) => (form.noValidate = true));
    await feeForm.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(feeForm.getByRole('alert').textContent()).resolves.toContain('Certains champs sont invalides. (feePercentage)');
    await screen(page, '25-staff-merchant');
    // A pay-in now costs the merchant's own fee: 1.25 % of 4000 + 50 = 100.
    const feeCharge = await h.request('POST', '/api/v1/pay-in/charge', {
      key: merchantKey,
      body: { amount: 4000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey: 'web-fee' },
    });
    expect(feeCharge.status).toBe(201);
    await settle(h);
    const feeStatus = await h.request('GET', `/api/v1/pay-in/check_status/${feeCharge.json.data.reference}`, { key: merchantKey });
    expect(feeStatus.json.data.feeAmount).toBe(100);
    await page.getByRole('button', { name: 'Supprimer MTN_MOMO_CM Paiement reçu' }).click();
    await page.getByRole('group', { name: /^Supprimer les frais propres MTN_MOMO_CM \(Paiement reçu\)/ }).getByRole('button', { name: 'Confirmer' }).click();
    await expect.poll(() => page.getByText('1.25 % + 50').count()).toBe(0);
    await page.getByText('0.5 % + 25').waitFor();
    await page.getByRole('button', { name: 'Suspendre' }).click();
    await page.getByRole('group', { name: /^Suspendre Awa Boutique \?/ }).getByRole('button', { name: 'Confirmer' }).click();
    await page.getByRole('button', { name: 'Réactiver' }).waitFor();
    await screen(page, '26-staff-merchant-suspended');
    const refused = await h.request('POST', '/api/v1/pay-in/charge', {
      key: merchantKey,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey: 'web-2' },
    });
    expect(refused.status).toBe(401);

    await page.getByRole('link', { name: 'Plateforme' }).click();
    await page.getByRole('heading', { name: 'Statistiques de la plateforme' }).waitFor();
    await page.locator('#main').getByText('Marchands', { exact: true }).waitFor();
    await screen(page, '21-staff-platform');
    await page.getByRole('link', { name: 'Moyens de paiement' }).click();
    await page.getByRole('button', { name: /^Désactiver / }).first().waitFor();
    await screen(page, '22-staff-rails');
    // A rail's limits and fees, edited in place.
    const rail = page.locator('.rows > li').filter({ hasText: 'MTN_MOMO_CM' });
    await rail.getByRole('button', { name: /^Modifier / }).click();
    const railForm = rail.getByRole('form', { name: /^Modifier / });
    const max = Number(await railForm.getByLabel('Montant maximum (XAF)').inputValue());
    await railForm.getByLabel('Montant maximum (XAF)').fill(String(max + 1000));
    await railForm.getByLabel('Frais des virements (%)').fill('1.5');
    await screen(page, '27-staff-rail-edit');
    await railForm.getByRole('button', { name: 'Enregistrer' }).click();
    await expect.poll(() => railForm.count()).toBe(0);
    await expect.poll(async () => (await rail.textContent())!.replace(/\D/g, '')).toContain(String(max + 1000));
    await expect(rail.textContent()).resolves.toContain('virements 1.5 %');
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByText('Admin Kolo').or(page.getByText(/ACCOUNT_STATUS|MERCHANT_STATUS|STATUS/).first()).first().waitFor();
    await screen(page, '23-staff-audit');
    await page.context().close();
  }, 60_000);

  it('staff: SUPPORT reads the merchants and rails without any write button', async () => {
    // No second factor: staff read without one.
    await createAccount(h.services, { fullName: 'Support Kolo', email: 'support@kolo.test', password: 'mot-de-passe-support', role: 'SUPPORT', status: 'ACTIVE', emailVerified: true });
    await setAvailabilityOverride(h.services, { actorId: null, actorRole: 'ADMIN', clientIp: null }, { providerCode: 'MTN_MOMO_CM', direction: 'PAY_OUT', status: 'DELAYED' });
    const page = await newPage();
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByLabel('Adresse e-mail').fill('support@kolo.test');
    await page.getByLabel('Mot de passe').fill('mot-de-passe-support');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Marchands' }).waitFor();
    await page.getByText(email).waitFor();
    await page.getByText('Lecture seule (SUPPORT).').waitFor();
    expect(await page.getByRole('button', { name: /^(Suspendre|Réactiver) / }).count()).toBe(0);
    // The merchant's page: read, with no write control.
    await page.getByRole('link', { name: 'Awa Boutique' }).click();
    await page.getByRole('heading', { name: "Vue d'ensemble" }).waitFor();
    await page.getByText('0.5 % + 25').waitFor();
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('Niveau KYCBASIC');
    expect(await page.locator('#main').getByRole('button').count()).toBe(0);
    expect(await page.getByRole('form').count()).toBe(0);
    await screen(page, '28-support-merchant');
    await page.getByRole('link', { name: 'Marchands' }).click();
    expect(await page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Moyens de paiement' }).click();
    await page.getByRole('heading', { name: 'Moyens de paiement' }).waitFor();
    await page.getByText('MTN_MOMO_CM', { exact: false }).first().waitFor();
    expect(await page.getByRole('button', { name: /^(Activer|Désactiver|Modifier) / }).count()).toBe(0);
    // Each rail's LIVE availability, as computed or as staff set it.
    const mtn = page.getByRole('listitem').filter({ hasText: 'MTN_MOMO_CM' });
    await mtn.getByText('Disponibilité en LIVE : paiements opérationnel, virements ralenti (fixé par le personnel)').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'ORANGE_MONEY_CM' }).getByText('Disponibilité en LIVE : paiements opérationnel, virements opérationnel').waitFor();
    await screen(page, '24-support-rails');
    // A staff member's language is theirs too: English in the next browser after login.
    await page.getByLabel('Langue').selectOption('en');
    await page.getByRole('heading', { name: 'Payment methods' }).waitFor();
    await page.waitForLoadState('networkidle');
    await page.context().close();
    const next = await newPage();
    await logInAs(next, 'support@kolo.test', 'mot-de-passe-support', 'Merchants');
    await next.getByRole('link', { name: 'Payment methods' }).waitFor();
    await next.context().close();
  });
});
