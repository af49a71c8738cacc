/**
 * The home page drawn by Kolo: `GET /app/` with a live refresh cookie renews the session (the
 * refresh's own rotation) and answers the merchant's home screen already drawn — balances and
 * last transactions in the HTML, in the display choices of the `kolo_prefs` cookie — with the
 * session in a JSON block, `no-store`, under the same strict CSP (the inlined style sheet by its
 * hash, still no inline script). Without a cookie, or with a closed session or a suspended
 * account, it is the plain page (the app's login). In Chromium the drawn page is hydrated: no
 * hydration error, no CSP violation, no token in storage, it answers clicks, and an inline
 * script added to it does not run.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { startHarness, type Harness, type TestResponse } from '../harness.ts';
import { REFRESH_REUSE_GRACE_MS } from '../../src/dashboard/tokens.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { chargeTo } from '../helpers/webhooks.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let merchant: DashboardAccount;
let reference: string;

beforeAll(async () => {
  await ensureWebBuild();
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h, { fullName: 'Awa Rapide' });
  const application = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique Rapide', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: application.id, name: 'test', environment: 'TEST' });
  reference = await chargeTo(h, { merchantId: merchant.accountId, applicationId: application.id, key: key.plainTextKey, keyId: key.id }, 'SUCCESS', 'CMD-FAST-1');
}, 120_000);
afterAll(async () => h?.close());

/** The `kolo_refresh` Set-Cookie lines of a response, by path. */
function refreshCookies(response: TestResponse): Map<string, string> {
  const lines = response.headers.getSetCookie().filter((line) => line.startsWith('kolo_refresh='));
  return new Map(lines.map((line) => [/; Path=([^;]+)/.exec(line)![1]!, line]));
}
const valueOf = (line: string) => line.slice('kolo_refresh='.length).split(';')[0]!;

function prefsCookie(account: { accountId: string }, choices: { language: string; environment: string; timeZone: string }): string {
  return `kolo_prefs=${encodeURIComponent(JSON.stringify({ accountId: account.accountId, ...choices }))}`;
}
const FRENCH_TEST = { language: 'fr', environment: 'TEST', timeZone: 'Africa/Douala' };

/** The page's JSON block, or null. */
function bootstrapOf(html: string): Record<string, any> | null {
  const block = /<script type="application\/json" id="kolo-bootstrap">(.*?)<\/script>/s.exec(html);
  return block ? JSON.parse(block[1]!) : null;
}
/** The inside of #root. */
const rootOf = (html: string) => /<div id="root">(.*?)<\/div>\s*<script type="application\/json"/s.exec(html)?.[1] ?? '';

function expectStrictCsp(response: TestResponse): void {
  const csp = response.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/script-src 'self'(;|$)/);
  expect(csp).toMatch(/style-src 'self'( 'sha256-[A-Za-z0-9+/]+=*')*(;|$)/);
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
}

describe('GET /app/ with a live refresh cookie', () => {
  it('answers the home screen drawn with the balances and the last transactions, no-store, the session renewed', async () => {
    const { refreshToken } = await login(h, merchant.email, merchant.password);
    const response = await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${refreshToken}; ${prefsCookie(merchant, FRENCH_TEST)}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectStrictCsp(response);

    const root = rootOf(response.text);
    expect(root).toContain('<h1>Accueil</h1>');
    expect(root).toContain('Soldes');
    expect(root).toContain('aria-label="XAF"');
    expect(root).toContain('Disponible');
    expect(root).toContain(reference);
    expect(root).toContain('CMD-FAST-1');
    expect(response.text).toMatch(/<html lang="fr">/);

    // The style sheet is inline, allowed by its hash; no script is inline but the JSON block.
    const style = /<style>(.*?)<\/style>/s.exec(response.text)![1]!;
    expect(response.headers.get('content-security-policy')).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    for (const tag of response.text.match(/<script\b[^>]*>/g)!) expect(tag).toMatch(/ src="\/app\/assets\/[^"]+\.js"| type="application\/json"/);

    // The session was renewed as a refresh renews it: both cookie copies rotated, the old token now spent.
    const cookies = refreshCookies(response);
    expect([...cookies.keys()].sort()).toEqual(['/api/v1/auth', '/app']);
    const rotated = valueOf(cookies.get('/app')!);
    expect(rotated).not.toBe(refreshToken);
    expect(valueOf(cookies.get('/api/v1/auth')!)).toBe(rotated);
    for (const line of cookies.values()) expect(line).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i);
    const bootstrap = bootstrapOf(response.text)!;
    expect(bootstrap).toMatchObject({ user: { accountId: merchant.accountId, email: merchant.email, role: 'MERCHANT' }, language: 'fr', environment: 'TEST', rendered: true });
    expect((await asAccount(h, bootstrap.accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(200);
    h.clock.advance(REFRESH_REUSE_GRACE_MS + 1); // past the grace period of two tabs
    const reuse = await h.request('POST', '/api/v1/auth/refresh-token', { body: {}, headers: { cookie: `kolo_refresh=${refreshToken}` } });
    expect(reuse.json.code).toBe('COMPROMISED_SESSION');
  });

  it("draws in the page's language and the TEST/LIVE chosen for this account (kolo_prefs)", async () => {
    const { refreshToken } = await login(h, merchant.email, merchant.password);
    const response = await h.request('GET', '/app', {
      headers: { cookie: `kolo_refresh=${refreshToken}; ${prefsCookie(merchant, { language: 'en', environment: 'LIVE', timeZone: 'Africa/Douala' })}` },
    });
    const root = rootOf(response.text);
    expect(root).toContain('<h1>Home</h1>');
    expect(root).toContain('Balances');
    // LIVE has neither balance nor transaction yet: the TEST payment is not shown.
    expect(root).not.toContain(reference);
    expect(response.text).toMatch(/<html lang="en">/);
    expect(bootstrapOf(response.text)).toMatchObject({ language: 'en', environment: 'LIVE', rendered: true });
  });

  it("the account's own language (profile) wins over the page's", async () => {
    const other = await createDashboardAccount(h);
    expect((await asAccount(h, other.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { language: 'en' } })).status).toBe(200);
    const response = await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${other.refreshToken}; ${prefsCookie(other, FRENCH_TEST)}` } });
    expect(rootOf(response.text)).toContain('<h1>Home</h1>');
    expect(bootstrapOf(response.text)).toMatchObject({ user: { language: 'en' }, language: 'en', rendered: true });
  });

  it("another account's choices are not used: the session comes undrawn, in the browser's language", async () => {
    const { refreshToken } = await login(h, merchant.email, merchant.password);
    const response = await h.request('GET', '/app/', {
      headers: { cookie: `kolo_refresh=${refreshToken}; ${prefsCookie({ accountId: '00000000-0000-4000-8000-000000000000' }, FRENCH_TEST)}`, 'accept-language': 'en-GB,fr;q=0.8' },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(rootOf(response.text)).toBe('');
    expect(bootstrapOf(response.text)).toMatchObject({ language: 'en', environment: 'TEST', rendered: false, queries: null });
  });
});

describe('GET /app/ with a staff session', () => {
  it('brings the session, undrawn (staff screens are drawn by the app), no-store', async () => {
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    const response = await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${admin.refreshToken}; ${prefsCookie(admin, FRENCH_TEST)}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectStrictCsp(response);
    expect(rootOf(response.text)).toBe('');
    expect(bootstrapOf(response.text)).toMatchObject({ user: { accountId: admin.accountId, role: 'ADMIN' }, rendered: false, queries: null });
    expect(refreshCookies(response).size).toBe(2);
  });
});

describe('GET /app/ without a live session: the plain page, whose app shows the login', () => {
  async function expectPlain(response: TestResponse): Promise<void> {
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.text).toContain('<div id="root"></div>');
    expect(response.text).not.toContain('kolo-bootstrap');
    expect(response.text).not.toContain(merchant.email);
    expect(refreshCookies(response).size).toBe(0);
    expectStrictCsp(response);
  }

  it('no cookie, or a malformed one', async () => {
    await expectPlain(await h.request('GET', '/app/'));
    await expectPlain(await h.request('GET', '/app/', { headers: { cookie: 'kolo_refresh=rt_nope' } }));
  });

  it('a session closed by logout', async () => {
    const { refreshToken } = await login(h, merchant.email, merchant.password);
    expect((await h.request('POST', '/api/v1/auth/logout', { body: { refreshToken } })).status).toBe(200);
    await expectPlain(await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${refreshToken}; ${prefsCookie(merchant, FRENCH_TEST)}` } }));
  });

  it('a suspended account', async () => {
    const other = await createDashboardAccount(h);
    const { refreshToken } = await login(h, other.email, other.password);
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    const suspend = await asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/merchants/${other.accountId}/status`, { body: { status: 'SUSPENDED' } });
    expect(suspend.status).toBe(200);
    await expectPlain(await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${refreshToken}; ${prefsCookie(other, FRENCH_TEST)}` } }));
  });

  it('other /app paths stay the plain page, the cookie untouched', async () => {
    const { refreshToken } = await login(h, merchant.email, merchant.password);
    await expectPlain(await h.request('GET', '/app/transactions', { headers: { cookie: `kolo_refresh=${refreshToken}` } }));
    expect((await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken } })).status).toBe(200);
  });
});

describe('the drawn page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  }, 60_000);
  afterAll(async () => browser?.close());

  it('is hydrated without error or CSP violation, keeps no token in storage, answers clicks, runs no inline script', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR', timezoneId: 'Africa/Douala' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByLabel('Adresse e-mail').fill(merchant.email);
    await page.getByLabel('Mot de passe').fill(merchant.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();

    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // The page as it arrives, before any script: already the home screen with the payment.
    const response = await page.goto(`${h.baseUrl}/app/`);
    expect(response!.headers()['cache-control']).toBe('no-store');
    expect(await response!.text()).toContain(reference);
    await page.getByRole('group', { name: 'XAF' }).waitFor();
    await page.getByText(reference).waitFor();
    await page.waitForLoadState('networkidle');
    // Hydrated: the app took over the drawn screen and reacts.
    await page.getByRole('button', { name: '30 jours' }).click();
    await expect.poll(() => page.getByRole('button', { name: '30 jours' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('link', { name: 'Transactions' }).first().click();
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    expect(problems).toEqual([]);
    expect(await page.evaluate(() => document.getElementById('kolo-bootstrap'))).toBeNull();
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toMatch(/eyJ|rt_[0-9a-f]{64}/);
    // The CSP still forbids inline execution: an inline script added to the page does not run.
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.inlineRan = true';
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (window as unknown as { inlineRan?: boolean }).inlineRan === true;
    });
    expect(ran).toBe(false);
    await context.close();
  });
});
