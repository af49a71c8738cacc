/**
 * The staff reconciliation screen in headless Chromium, used as staff use it: after an MTN
 * statement import that opened a payment Kolo never asked for and a balance adjustment, an
 * administrator opens « Rapprochement », sees the run and its drift, filters the open cases by
 * kind, reads a case's three sides next to each other, and writes off the adjustment with a note
 * (the case leaves the open list; the ledger stays verified); SUPPORT sees the same cases without
 * the resolve form. Screens saved and run through axe-core (browser.ts `screen`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { runReconciliation } from '../../src/reconciliation/index.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { startHarness, type Harness } from '../harness.ts';
import { createStaffAccount, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { launchBrowser, logInWithCode, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let admin: StaffAccount;
let support: StaffAccount;

const HEADER = 'Id,External Transaction Id,Date,Status,Type,From,To,Amount,Currency,Reversal Of';

beforeAll(async () => {
  await ensureWebBuild();
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  const file = `${HEADER}\n1000000001,,2026-11-20 08:00:00,SUCCESSFUL,PAYMENT,237677000001,KOLO,5000,XAF,\n1000000002,,2026-11-20 09:00:00,SUCCESSFUL,ADJUSTMENT,,KOLO,-250,XAF,\n`;
  await runReconciliation(h.services, { railCode: 'MTN_MOMO_CM', from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-20T10:00:00Z'), file });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function logInAs(who: StaffAccount) {
  const page = await newPage(browser, h.baseUrl);
  h.clock.advance(30_000);
  await logInWithCode(page, h.baseUrl, who.email, who.password, who.auth.code());
  await page.getByRole('heading', { name: 'Marchands' }).waitFor();
  await page.getByRole('link', { name: 'Rapprochement' }).click();
  await page.getByRole('heading', { name: 'Rapprochement' }).waitFor();
  return page;
}

describe('the staff reconciliation screen', () => {
  it('ADMIN sees the run, filters the cases, reads the sides and writes off the adjustment with a note', async () => {
    const page = await logInAs(admin);
    await page.getByText('MTN_MOMO_CM').first().waitFor();
    await expect(page.getByText('2 écarts ouverts').count()).resolves.toBe(1);
    await page.getByRole('listitem').filter({ hasText: 'Chez l’opérateur seulement' }).waitFor();
    await screen(page, 'reconciliation-admin');
    await page.getByLabel('Nature').selectOption('BALANCE_DRIFT');
    // The filtered list replaces the whole one once its answer is in.
    await page.getByRole('listitem').filter({ hasText: 'Chez l’opérateur seulement' }).waitFor({ state: 'detached' });
    await expect(page.getByRole('listitem').filter({ hasText: 'Chez l’opérateur seulement' }).count()).resolves.toBe(0);
    const item = page.getByRole('listitem').filter({ hasText: 'Écart de solde' });
    await expect(item.getByRole('region', { name: 'Opérateur' }).getByText('1000000002').count()).resolves.toBe(1);
    await item.getByLabel('Action').selectOption('WRITE_OFF');
    await item.getByLabel('Note (journal d’audit)').fill('Frais MTN confirmés par le support opérateur');
    await item.getByRole('button', { name: 'Résoudre' }).click();
    await page.getByText('Aucun écart ouvert.').waitFor();
    expect((await verifyLedger(h.services.db)).ok).toBe(true);
  });

  it('SUPPORT reads the cases without the resolve form', async () => {
    const page = await logInAs(support);
    await page.getByText('Lecture seule (SUPPORT).').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Chez l’opérateur seulement' }).waitFor();
    await expect(page.getByRole('button', { name: 'Résoudre' }).count()).resolves.toBe(0);
    await screen(page, 'reconciliation-support');
  });
});
