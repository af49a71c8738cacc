/**
 * Rail availability on the staff rails screen in real headless Chromium: an ADMIN closes a rail
 * for pay-ins from the screen, with a reason (LIVE keys are then refused RAIL_CLOSED, the action
 * audited), then gives it back to the traffic; SUPPORT sees the availability but no control.
 * The screen is saved at 360 px and 1280 px, checked for horizontal scrolling and run through
 * axe-core (browser.ts).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { auditLog } from '../../src/db/schema-dashboard.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { createStaffAccount, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { mtnEnv } from '../helpers/live.ts';
import { launchBrowser, logInWithCode, newPage, screen } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let browser: Browser;
let live: Tenant;
let admin: StaffAccount;
let support: StaffAccount;

beforeAll(async () => {
  await ensureWebBuild();
  // MTN configured (never called here): LIVE keys may use MTN_MOMO_CM.
  h = await startHarness({ ...DASHBOARD_TEST_ENV, ...mtnEnv({ url: 'http://127.0.0.1:9' }) });
  admin = await createStaffAccount(h, { fullName: 'Inès Rails', email: 'ines@rails-web.test', role: 'ADMIN' });
  support = await createStaffAccount(h, { fullName: 'Omar Support', email: 'omar@rails-web.test', role: 'SUPPORT' });
  live = await h.createTenant({ environment: 'LIVE' });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function railsScreen(who: StaffAccount): Promise<Page> {
  const page = await newPage(browser, h.baseUrl);
  h.clock.advance(30_000);
  await logInWithCode(page, h.baseUrl, who.email, who.password, who.auth.code());
  await page.getByRole('link', { name: 'Moyens de paiement' }).click();
  await page.getByRole('heading', { name: 'Moyens de paiement' }).waitFor();
  return page;
}

const charge = () =>
  h.request('POST', '/api/v1/pay-in/charge', { key: live.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' } });
const audits = (action: string) => h.services.db.select().from(auditLog).where(and(eq(auditLog.action, action), eq(auditLog.targetId, 'MTN_MOMO_CM')));

describe('rail availability on the rails screen', () => {
  it('an ADMIN closes a rail for pay-ins with a reason, then gives it back to the traffic', async () => {
    const page = await railsScreen(admin);
    const mtn = page.getByRole('listitem').filter({ hasText: 'MTN_MOMO_CM' });
    await mtn.getByText('Disponibilité en LIVE : paiements opérationnel, virements opérationnel').waitFor();
    await mtn.getByRole('button', { name: 'Disponibilité MTN Mobile Money Cameroun' }).click();
    const form = page.getByRole('form', { name: 'Disponibilité en LIVE de MTN Mobile Money Cameroun' });
    await form.getByLabel('Sens').selectOption('PAY_IN');
    await form.getByLabel('État').selectOption('CLOSED');
    await form.getByLabel('Motif (journal d’audit)').fill('Panne MTN annoncée');
    await form.getByRole('button', { name: 'Fixer' }).click();
    await mtn.getByText('Disponibilité en LIVE : paiements fermé (fixé par le personnel), virements opérationnel').waitFor();
    await screen(page, '40-staff-rail-availability');
    // What the screen set is what the API enforces, and it is audited with who and why.
    const refused = await charge();
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe('RAIL_CLOSED');
    const [set] = await audits('RAIL_AVAILABILITY_SET');
    expect(set).toMatchObject({ actorRole: 'ADMIN', after: { direction: 'PAY_IN', status: 'CLOSED', reason: 'Panne MTN annoncée' } });

    await mtn.getByRole('button', { name: 'Disponibilité MTN Mobile Money Cameroun' }).click();
    await form.getByRole('button', { name: 'Rendre au trafic : Paiements' }).click();
    await mtn.getByText('Disponibilité en LIVE : paiements opérationnel, virements opérationnel').waitFor();
    await expect.poll(async () => (await audits('RAIL_AVAILABILITY_CLEARED')).length).toBe(1);
    expect((await charge()).status).toBe(201);
    await page.context().close();
  });

  it('SUPPORT sees the availability but no control to change it', async () => {
    const page = await railsScreen(support);
    const mtn = page.getByRole('listitem').filter({ hasText: 'MTN_MOMO_CM' });
    await mtn.getByText(/^Disponibilité en LIVE : /).waitFor();
    expect(await page.getByRole('button', { name: /^Disponibilité / }).count()).toBe(0);
    await page.context().close();
  });
});
