/**
 * Batch pay-outs in Chromium, at 360 px with axe-core, as two team members use them: finance
 * uploads a CSV file, the dry run names the invalid row with its line, the fixed rows are checked
 * again (totals: count, amounts, fees) and sent for approval; finance is offered no approval. An
 * approver, whose second factor is no longer fresh, approves: the API's refusal opens the inline
 * step-up dialog, the TOTP code is typed there and the approval goes through. The batch is sent
 * (dispatcher and poller run by the test, sandbox numbers that succeed), its progress reaches
 * "completed" on screen, and the results file is downloaded. Codes are computed from each
 * member's secret at the server's clock.
 */
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { dispatchBatches } from '../../src/batches/index.ts';
import { batches } from '../../src/db/schema-batches.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { fundSandbox } from '../../src/payments/transaction-postings.ts';
import { startHarness, type Harness } from '../harness.ts';
import { createBatchMerchant, joinTeam, type TeamMember } from '../helpers/batches.ts';
import { DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { launchBrowser, logInWithCode, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let owner: DashboardAccount;
let appId: string;
let finance: TeamMember;
let approver: TeamMember;

/** Signs `member` in through the login form, the second factor's code included. */
async function signIn(page: Page, member: TeamMember): Promise<void> {
  h.clock.advance(30_000);
  await logInWithCode(page, h.baseUrl, member.email, member.password, member.auth.code());
  await page.getByRole('heading', { name: 'Accueil' }).waitFor();
}

const HEADER = 'amount;currency;paymentMethod;beneficiaryAccount;beneficiaryName;merchantReference';
const GOOD_ROW = '25000;XAF;MTN_MOMO_CM;237677000311;Awa Ngono;SAL-1';

beforeAll(async () => {
  await ensureWebBuild();
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  ({ owner, appId } = await createBatchMerchant(h, { ownerName: 'Awa Lots', appName: 'Paie' }));
  await fundSandbox(h.services, appId, 'TEST', 'XAF', 1);
  finance = await joinTeam(h, owner.accessToken, 'FINANCE');
  approver = await joinTeam(h, owner.accessToken, 'APPROVER');
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

it('uploads a CSV, fixes the row the dry run names, and a second member approves with a code, then downloads the results', async () => {
  const page = await newPage(browser, h.baseUrl);
  await signIn(page, finance);
  await page.getByRole('link', { name: 'Lots de virements' }).click();
  await page.getByRole('heading', { name: 'Lots de virements', level: 1 }).waitFor();
  await page.getByText('Aucun lot dans cet environnement.').waitFor();
  await page.getByRole('button', { name: 'Nouveau lot' }).click();

  // The file's third line has a number that is not a telephone number.
  const form = page.getByRole('form', { name: 'Nouveau lot' });
  const file = [HEADER, GOOD_ROW, '15000;XAF;MTN_MOMO_CM;42;Paul Mbarga;SAL-2', ''].join('\r\n');
  await form.getByLabel('Fichier CSV').setInputFiles({ name: 'paie.csv', mimeType: 'text/csv', buffer: Buffer.from(`\uFEFF${file}`) });
  await expect.poll(() => form.getByLabel('Lignes CSV (ou collez-les ici)').inputValue()).toContain('SAL-2');
  await form.getByRole('button', { name: 'Vérifier le lot' }).click();
  const alert = form.getByRole('alert');
  await alert.getByText('Lignes à corriger : 1').waitFor();
  expect(await alert.getByRole('listitem').allTextContents()).toEqual(['Ligne 3 : beneficiaryAccount : doit être un numéro de téléphone valide du pays du moyen de paiement']);
  expect(await form.getByRole('button', { name: 'Envoyer pour approbation' }).count()).toBe(0);
  await screen(page, 'batch-dry-run-errors');
  // In English the row's error is English too (the API's message is French): the app words it from the field.
  await page.getByLabel('Langue').selectOption('en');
  const alertEn = page.getByRole('form', { name: 'New batch' }).getByRole('alert');
  await alertEn.getByText('Rows to fix: 1').waitFor();
  expect(await alertEn.getByRole('listitem').allTextContents()).toEqual(['Row 3: beneficiaryAccount: must be a valid phone number of the rail’s country']);
  await screen(page, 'batch-dry-run-errors-en');
  await page.getByLabel('Language').selectOption('fr');
  await alert.getByText('Lignes à corriger : 1').waitFor();

  // Fixed: the dry run answers the totals, and only then may the batch be sent.
  await form.getByLabel('Lignes CSV (ou collez-les ici)').fill([HEADER, GOOD_ROW, '15000;XAF;MTN_MOMO_CM;237699000312;Paul Mbarga;SAL-2'].join('\n'));
  await form.getByRole('button', { name: 'Vérifier le lot' }).click();
  const totals = form.getByRole('region', { name: 'Totaux du lot vérifié' });
  await totals.waitFor();
  const facts = (await totals.locator('dd').allTextContents()).map((text) => text.replace(/\s/g, ' '));
  expect(facts[0]).toBe('2');
  expect(facts[1]).toMatch(/^40 000\s?FCFA$/);
  expect(await form.getByRole('alert').count()).toBe(0);
  await form.getByRole('button', { name: 'Envoyer pour approbation' }).click();
  await page.waitForURL(/\/app\/batches\/[0-9a-f-]{36}$/);
  const batchId = page.url().split('/').at(-1)!;
  await page.getByRole('heading', { name: 'Lot de 2 virements' }).waitFor();
  await page.getByText('À approuver').first().waitFor();
  // Finance created it: no approval is offered, only cancelling.
  await page.getByRole('button', { name: 'Annuler le lot' }).waitFor();
  expect(await page.getByRole('button', { name: 'Approuver' }).count()).toBe(0);

  // The approver signs in; five minutes later the second factor is no longer fresh.
  const other = await newPage(browser, h.baseUrl);
  await signIn(other, approver);
  h.clock.advance(5 * 60_000 + 1000);
  await other.goto(`${h.baseUrl}/app/batches/${batchId}`);
  await other.getByRole('button', { name: 'Approuver' }).click();
  const dialog = other.getByRole('dialog', { name: 'Confirmez votre second facteur' });
  await dialog.waitFor();
  await screen(other, 'batch-step-up');
  h.clock.advance(30_000);
  await dialog.getByLabel('Code à 6 chiffres').fill(approver.auth.code());
  await dialog.getByRole('button', { name: 'Confirmer' }).click();
  await other.getByText('Approuvé', { exact: true }).first().waitFor();
  await dialog.waitFor({ state: 'detached' });
  const [row] = await h.services.db.select().from(batches).where(eq(batches.id, batchId));
  expect(row!.status).toBe('APPROVED');

  // Sent and paid (the dispatcher, then the poller once the sandbox's delay has passed), then closed.
  await dispatchBatches(h.services);
  h.clock.advance(h.config.sandboxDelayMs + 1000);
  await pollOnce(h.services);
  await dispatchBatches(h.services);
  await other.getByText('Terminé', { exact: true }).first().waitFor({ timeout: 15_000 });
  await other.getByText('2 payés, 0 en échec, 0 en attente de l’opérateur, 0 pas encore envoyés').waitFor();
  expect(await other.locator('progress').getAttribute('value')).toBe('2');
  await screen(other, 'batch-completed');

  const download = other.waitForEvent('download');
  await other.getByRole('button', { name: 'Télécharger les résultats' }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe(`lot-${batchId}.csv`);
  const lines = readFileSync((await saved.path())!, 'utf8').replace(/^\uFEFF/, '').trim().split('\r\n');
  expect(lines[0]).toBe('rowNumber,merchantReference,beneficiaryAccount,beneficiaryName,paymentMethod,amount,feeAmount,currency,status,reference,failureReason');
  // Each row is named by its line in the file (the header is line 1).
  expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).concat(line.split(',')[8]!))).toEqual([
    ['2', 'SAL-1', 'SUCCESS'],
    ['3', 'SAL-2', 'SUCCESS'],
  ]);
  await expectLedgerBalanced(h.services.db);
}, 180_000);
