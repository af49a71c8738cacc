/**
 * Dates in the reader's time zone, in Chromium: Kolo runs in UTC (its timestamps are UTC wall
 * time without zone) and the browser in Nairobi (UTC+3). A payment the API stamps 10:00 is shown
 * at 13:00 in the transaction list, on the home page as Kolo draws it (kolo_prefs carries the
 * browser's zone) and once that page is hydrated; a day typed in the filters is sent as the
 * Nairobi day in server local time, the home summary and chart ask for Nairobi days, and the
 * CSV export is named with the Nairobi date.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { chargeTo } from '../helpers/webhooks.ts';
import { launchBrowser } from './browser.ts';
import { ensureWebBuild } from './web-build.ts';

// Kolo runs in this process: its local time is UTC, whatever the machine's zone.
process.env.TZ = 'UTC';

let h: Harness;
let browser: Browser;
let merchant: DashboardAccount;
let reference: string;
let createdAt: string;

beforeAll(async () => {
  await ensureWebBuild();
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h, { fullName: 'Wanjiru Kamau' });
  const application = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Duka Nairobi', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: application.id, name: 'test', environment: 'TEST' });
  reference = await chargeTo(h, { merchantId: merchant.accountId, applicationId: application.id, key: key.plainTextKey, keyId: key.id }, 'SUCCESS', 'CMD-TZ-1');
  const { accessToken } = await login(h, merchant.email, merchant.password);
  const me = await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me');
  expect(['UTC', 'Etc/UTC']).toContain(me.json.data.serverTimeZone);
  const list = await asAccount(h, accessToken, 'GET', `/api/v1/merchants/transactions?search=${reference}`);
  createdAt = list.json.data.content[0].createdAt as string;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('a merchant in Nairobi with Kolo in UTC', () => {
  it('sees the payment 3 h later than the API stamps it, in the list, on the drawn home page and once hydrated', async () => {
    // The API's own time, and the same instant in Nairobi (UTC+3 all year).
    expect(createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    const apiTime = createdAt.slice(11, 16);
    const nairobi = new Date(Date.parse(`${createdAt}Z`) + 3 * 3_600_000).toISOString();
    const nairobiTime = nairobi.slice(11, 16);
    const nairobiDay = nairobi.slice(0, 10);
    expect(nairobiTime).not.toBe(apiTime);

    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR', timezoneId: 'Africa/Nairobi' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByLabel('Adresse e-mail').fill(merchant.email);
    await page.getByLabel('Mot de passe').fill(merchant.password);
    // The home screen asks for today's figures and the period's in the Nairobi days.
    const zoneOf = (path: string) =>
      page.waitForRequest((request) => new URL(request.url()).pathname === path).then((request) => new URL(request.url()).searchParams.get('timeZone'));
    const zones = Promise.all([zoneOf('/api/v1/merchants/home/today'), zoneOf('/api/v1/merchants/home/period')]);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();
    expect(await zones).toEqual(['Africa/Nairobi', 'Africa/Nairobi']);

    // The transaction list.
    await page.goto(`${h.baseUrl}/app/transactions`);
    const row = page.getByRole('listitem').filter({ hasText: reference });
    await row.waitFor();
    expect(await row.innerText()).toContain(nairobiTime);
    expect(await row.innerText()).not.toContain(apiTime);

    // A day typed in the filters is the Nairobi day: from its midnight (21:00 the day before in
    // UTC) to the next midnight, and the payment is in it.
    await page.getByLabel('Du', { exact: true }).fill(nairobiDay);
    await page.getByLabel('Au (inclus)', { exact: true }).fill(nairobiDay);
    const asked = page.waitForRequest((request) => request.url().includes('/api/v1/merchants/transactions?') && request.url().includes('from='));
    await page.getByRole('button', { name: 'Filtrer' }).click();
    const query = new URL((await asked).url()).searchParams;
    const dayStart = new Date(Date.parse(`${nairobiDay}T00:00:00+03:00`));
    expect(query.get('from')).toBe(dayStart.toISOString().slice(0, 19));
    expect(query.get('to')).toBe(new Date(dayStart.getTime() + 86_400_000).toISOString().slice(0, 19));
    await page.getByRole('listitem').filter({ hasText: reference }).waitFor();
    // The CSV export of those filters is named with the Nairobi date (Kolo's clock here says
    // 2026-11-20, the browser's the real date).
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Exporter en CSV' }).click();
    const nairobiToday = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);
    expect((await download).suggestedFilename()).toBe(`transactions-${nairobiToday}.csv`);

    // The home page as Kolo draws it, before any script, then hydrated.
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const response = await page.goto(`${h.baseUrl}/app/`);
    const drawn = await response!.text();
    const bootstrap = JSON.parse(/<script type="application\/json" id="kolo-bootstrap">(.*?)<\/script>/s.exec(drawn)![1]!);
    expect(bootstrap).toMatchObject({ rendered: true, timeZone: 'Africa/Nairobi', serverTimeZone: expect.stringMatching(/^(Etc\/)?UTC$/) });
    const drawnRow = /<li>(?:(?!<\/li>).)*<\/li>/gs.exec(drawn.slice(drawn.indexOf(reference) - 200))?.[0] ?? '';
    expect(drawnRow).toContain(reference);
    expect(drawnRow).toContain(nairobiTime);
    expect(drawnRow).not.toContain(apiTime);
    const homeRow = page.getByRole('listitem').filter({ hasText: reference });
    await homeRow.waitFor();
    await page.waitForLoadState('networkidle');
    expect(await homeRow.innerText()).toContain(nairobiTime);
    // Hydrated without a mismatch: the browser drew the same dates as the server.
    expect(problems).toEqual([]);
    await context.close();
  });
});
