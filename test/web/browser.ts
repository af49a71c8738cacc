/**
 * Shared pieces of the browser tests: Debian's Chromium through playwright-core, a page that
 * refuses any request to another host than Kolo, and `screen`, which saves a screen at 360 px
 * and 1280 px in test-output/screenshots/web/, checks it has no horizontal scroll at 360 px and
 * runs axe-core on it (no serious or critical violation).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where screenshots are written. */
export const SHOTS = 'test-output/screenshots/web';
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Starts headless Chromium (and creates the screenshot folder). */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A new page at 360 px, in French, in Douala's time zone; any request to another host than `baseUrl` fails the test. */
export async function newPage(browser: Browser, baseUrl: string): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, locale: 'fr-FR', timezoneId: 'Africa/Douala' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.origin !== baseUrl) throw new Error(`request to another host: ${request.url()}`);
  });
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

/** Saves the screen as `name` at 360 px and 1280 px; checks no horizontal scroll at 360 px and runs axe-core. */
export async function screen(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name}: horizontal scroll at 360 px`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${SHOTS}/${name}-360.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `${name}: axe-core`).toEqual([]);
}

/** Logs in through the login form and waits for the home screen. */
export async function logIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/`);
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel('Mot de passe').fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Accueil' }).waitFor();
}

/**
 * Signs in through the login form with a second factor: the password first, then `code` (the
 * authenticator's code of the harness's time) in the field the form then asks for. Waits for
 * nothing more: staff and merchants land on different screens.
 */
export async function logInWithCode(page: Page, baseUrl: string, email: string, password: string, code: string): Promise<void> {
  await page.goto(`${baseUrl}/app/`);
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel('Mot de passe').fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByLabel('Code à deux facteurs (ou code de secours)').fill(code);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}
