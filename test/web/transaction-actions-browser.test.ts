/**
 * The dashboard's transaction actions in real headless Chromium, as a merchant uses them:
 * "ask the operator now" on a PENDING payment (first still pending, then paid), the webhook
 * deliveries of that transaction (refused, replayed, delivered), and a transfer sent from the pay-outs screen
 * (balance shown, confirmation step, one transfer for a double click; an insufficient balance
 * shown from the API's code). Payments go through the merchant API and the sandbox rail on the
 * harness's manual clock. Each new or changed screen is saved at 360 px and 1280 px, checked for
 * horizontal scrolling and run through axe-core (browser.ts).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { setFeeOverride } from '../../src/dashboard/fee-overrides.ts';
import { transactions } from '../../src/db/schema.ts';
import { STATUS_CHECK_INTERVAL_MS } from '../../src/dashboard/status-check.ts';
import { startHarness, type Harness } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { updateWebhookUrl } from '../../src/webhooks/webhook-settings.ts';
import { launchBrowser, logIn, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let receiver: Receiver;
let apiKey = '';
const email = 'kofi@marche-web.test';
const password = 'mot-de-passe-solide-43';

beforeAll(async () => {
  await ensureWebBuild();
  // A small sandbox opening balance: a transfer above it stays within the rail's maximum.
  h = await startHarness({ ...DASHBOARD_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', SANDBOX_OPENING_BALANCE: '50000' });
  receiver = await startReceiver();
  const account = await createAccount(h.services, { fullName: 'Kofi Marché', email, password, role: 'MERCHANT', status: 'ACTIVE', emailVerified: true });
  const app = await createApplication(h.services, { merchantId: account.id, name: 'Marché Web', currency: 'XAF' });
  await updateWebhookUrl(h.services, app.id, receiver.url);
  // This merchant's pay-out fee on MTN (the rail's own is 0): the confirmation shows it.
  await setFeeOverride(h.services, { actorId: null, actorRole: null, clientIp: null }, account.id, { providerCode: 'MTN_MOMO_CM', direction: 'PAY_OUT', feePercentage: 1, feeFixed: 25 });
  apiKey = (await createApiKey(h.services, { applicationId: app.id, name: 'Clé', environment: 'TEST' })).plainTextKey;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.close();
});

/** A charge through the merchant API, left PENDING (the sandbox answers after its delay). */
async function charge(amount: number, payerAccount: string): Promise<string> {
  const created = await h.request('POST', '/api/v1/pay-in/charge', {
    key: apiKey,
    body: { amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount },
  });
  expect(created.status).toBe(201);
  return created.json.data.reference as string;
}

describe('transaction actions in Chromium', () => {
  it('merchant: asks the operator now about a pending payment, first still pending, then paid', async () => {
    const reference = await charge(8000, '237677000051');
    const page = await newPage(browser, h.baseUrl);
    await logIn(page, h.baseUrl, email, password);
    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByRole('link', { name: new RegExp(reference) }).click();
    await page.getByRole('heading', { name: 'Détail de la transaction' }).waitFor();

    const ask = page.getByRole('button', { name: "Demander à l'opérateur maintenant" });
    await ask.click();
    await page.getByRole('status').filter({ hasText: "Réponse de l'opérateur demandée : En attente." }).waitFor();
    // Asked again at once: refused by the API, shown from its code.
    await ask.click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Trop de tentatives : patientez un peu.');
    await screen(page, '30-transaction-pending-check');

    // The sandbox has its answer once its delay has passed.
    h.clock.advance(Math.max(STATUS_CHECK_INTERVAL_MS, h.config.sandboxDelayMs) + 1000);
    await ask.click();
    await page.getByRole('status').filter({ hasText: "Réponse de l'opérateur demandée : Réussie." }).waitFor();
    await expect.poll(() => ask.count()).toBe(0);
    await page.getByRole('button', { name: 'Rembourser' }).waitFor();
    await screen(page, '31-transaction-checked');

    // Its webhook: refused by the merchant's server first, replayed from the detail, delivered.
    receiver.fallback = { status: 500 };
    await deliverOnce(h.services);
    await page.reload();
    const deliveries = page.getByRole('region', { name: 'Webhooks de cette transaction' });
    await deliveries.getByText('payment.success').waitFor();
    await deliveries.getByText(/HTTP 500 · 1 tentative/).waitFor();
    receiver.fallback = { status: 200, body: 'ok' };
    await deliveries.getByRole('button', { name: 'Rejouer payment.success' }).click();
    await page.getByText('Livraison payment.success reprogrammée.').waitFor();
    await deliverOnce(h.services);
    await page.reload();
    await deliveries.getByText('Livrée').waitFor();
    await deliveries.getByText(/HTTP 200 · 2 tentative/).waitFor();
    expect(receiver.received.filter((r) => r.body.includes(reference))).toHaveLength(2);
    await screen(page, '32-transaction-deliveries');
    await page.context().close();
  }, 90_000);

  it('merchant: sends a transfer from the pay-outs screen, once for a double click; too much is refused from the code', async () => {
    const page = await newPage(browser, h.baseUrl);
    await logIn(page, h.baseUrl, email, password);
    await page.getByRole('link', { name: 'Retraits' }).click();
    const form = page.getByRole('form', { name: 'Envoyer un virement' });
    await form.getByText(/Solde disponible : \d/).waitFor();
    const digits = async () => Number((await form.getByText(/Solde disponible/).textContent())!.replace(/\D/g, ''));
    const before = await digits();
    expect(before).toBeGreaterThan(50_000);
    await form.getByLabel('Moyen de paiement').selectOption('MTN_MOMO_CM');
    await form.getByLabel('Numéro du bénéficiaire').fill('237677000071');
    await form.getByLabel('Nom du bénéficiaire').fill('Ama Fournisseur');
    // Below the rail's minimum: the fee quote refuses it, shown from the code.
    await form.getByLabel('Montant (XAF)').fill('10');
    await form.getByRole('button', { name: 'Relire le virement' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toContain('Montant trop faible.');
    await form.getByLabel('Montant (XAF)').fill('2500');
    await form.getByLabel('Motif (facultatif)').fill('Facture 12');
    await screen(page, '33-payouts-transfer-form');
    await form.getByRole('button', { name: 'Relire le virement' }).click();

    const confirm = page.getByRole('group', { name: 'Confirmer le virement' });
    await confirm.waitFor();
    // 1 % of 2 500 plus 25: the fee quoted by the API, then taken.
    await expect(confirm.textContent()).resolves.toMatch(/2\s500\sFCFA.*Frais50\sFCFA.*Total débité2\s550\sFCFA.*Ama Fournisseur · MTN Mobile Money Cameroun 237677000071/);
    await screen(page, '34-payouts-transfer-confirm');
    // A double click sends one transfer: one idempotency key for the reviewed form.
    await confirm.getByRole('button', { name: 'Envoyer le virement' }).dblclick();
    const sent = page.getByRole('status').filter({ hasText: /Virement PO-[0-9A-F]{12} envoyé/ });
    await sent.waitFor();
    const reference = (await sent.textContent())!.match(/PO-[0-9A-F]{12}/)![0];
    const rows = await h.services.db.select().from(transactions).where(and(eq(transactions.beneficiaryAccount, '237677000071'), eq(transactions.direction, 'PAY_OUT')));
    expect(rows.map((r) => r.reference)).toEqual([reference]);
    const fee = rows[0]!.feeAmount ?? 0;
    expect(fee).toBe(50);
    // The balance shown moves by the amount and its fee.
    await expect.poll(digits, { timeout: 10_000 }).toBe(before - 2500 - fee);
    await screen(page, '35-payouts-transfer-sent');

    // More than the available balance: refused, shown from the API's code.
    await form.getByLabel('Numéro du bénéficiaire').fill('237677000072');
    await form.getByLabel('Nom du bénéficiaire').fill('Ama Fournisseur');
    await form.getByLabel('Montant (XAF)').fill('900000');
    await form.getByRole('button', { name: 'Relire le virement' }).click();
    await confirm.getByRole('button', { name: 'Envoyer le virement' }).click();
    await expect(confirm.getByRole('alert').textContent()).resolves.toContain('Solde insuffisant.');
    await screen(page, '36-payouts-transfer-insufficient');
    await confirm.getByRole('button', { name: 'Annuler' }).click();

    // The transfer's own detail, from the link.
    await form.getByLabel('Montant (XAF)').waitFor();
    await page.goto(`${h.baseUrl}/app/transactions/${reference}`);
    await page.getByRole('heading', { name: 'Détail de la transaction' }).waitFor();
    await page.getByText(reference).waitFor();
    await page.context().close();
  }, 90_000);
});
