/**
 * The web app's session: login sets the refresh token as an httpOnly, SameSite=Strict cookie,
 * one copy scoped to /api/v1/auth and one to the app's pages (/app); refresh-token and logout take it from the cookie when the body has
 * none (rotating or clearing it); a body token still wins, for API clients.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { REFRESH_REUSE_GRACE_MS } from '../../src/dashboard/tokens.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h?.close());

/** The `kolo_refresh` Set-Cookie line of a response. */
function refreshCookie(headers: Headers): string | undefined {
  return headers.getSetCookie().find((line) => line.startsWith('kolo_refresh='));
}
const valueOf = (line: string) => line.slice('kolo_refresh='.length).split(';')[0]!;

async function logIn(): Promise<{ cookie: string; refreshToken: string; accessToken: string }> {
  const account = await createDashboardAccount(h);
  const response = await h.request('POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
  expect(response.status).toBe(200);
  const cookie = refreshCookie(response.headers)!;
  return { cookie, refreshToken: response.json.data.refreshToken, accessToken: response.json.data.accessToken };
}

it('login sets the refresh token as an httpOnly, SameSite=Strict cookie on /api/v1/auth and /app', async () => {
  const account = await createDashboardAccount(h);
  const response = await h.request('POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
  const cookie = refreshCookie(response.headers)!;
  const refreshToken = response.json.data.refreshToken as string;
  expect(valueOf(cookie)).toBe(refreshToken);
  expect(cookie).toMatch(/; HttpOnly/i);
  expect(cookie).toMatch(/; SameSite=Strict/i);
  expect(cookie).toMatch(/; Path=\/api\/v1\/auth/);
  expect(cookie).toMatch(/; Max-Age=\d+/);
  // The harness is plain http: no Secure flag (set behind an https PUBLIC_BASE_URL).
  expect(cookie).not.toMatch(/; Secure/i);
  // The same cookie for the app's pages, and for no other path.
  const copies = response.headers.getSetCookie().filter((line) => line.startsWith('kolo_refresh='));
  expect(copies.map((line) => /; Path=([^;]+)/.exec(line)![1]).sort()).toEqual(['/api/v1/auth', '/app']);
  for (const copy of copies) expect(copy.replace(/; Path=[^;]+/, '')).toBe(cookie.replace(/; Path=[^;]+/, ''));
});

it('refresh-token with the cookie only: a new pair and a rotated cookie; the old one is refused after', async () => {
  const { cookie } = await logIn();
  const first = await h.request('POST', '/api/v1/auth/refresh-token', { body: {}, headers: { cookie: `kolo_refresh=${valueOf(cookie)}` } });
  expect(first.status).toBe(200);
  const rotated = refreshCookie(first.headers)!;
  expect(valueOf(rotated)).toBe(first.json.data.refreshToken);
  expect(valueOf(rotated)).not.toBe(valueOf(cookie));
  expect((await asAccount(h, first.json.data.accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(200);
  h.clock.advance(REFRESH_REUSE_GRACE_MS + 1); // past the grace period of two tabs
  const reuse = await h.request('POST', '/api/v1/auth/refresh-token', { body: {}, headers: { cookie: `kolo_refresh=${valueOf(cookie)}` } });
  expect(reuse.status).toBe(401);
  expect(reuse.json.code).toBe('COMPROMISED_SESSION');
});

it('without body token or cookie: 401 INVALID_REFRESH_TOKEN; an empty body token: 400', async () => {
  const none = await h.request('POST', '/api/v1/auth/refresh-token', { body: {} });
  expect(none.status).toBe(401);
  expect(none.json.code).toBe('INVALID_REFRESH_TOKEN');
  const empty = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: '' } });
  expect(empty.status).toBe(400);
});

it('logout with the cookie closes the session and clears the cookie', async () => {
  const { cookie, accessToken } = await logIn();
  const out = await h.request('POST', '/api/v1/auth/logout', { body: {}, headers: { cookie: `kolo_refresh=${valueOf(cookie)}` } });
  expect(out.status).toBe(200);
  const cleared = out.headers.getSetCookie().filter((line) => line.startsWith('kolo_refresh='));
  expect(cleared.map((line) => /; Path=([^;]+)/.exec(line)![1]).sort()).toEqual(['/api/v1/auth', '/app']);
  for (const line of cleared) {
    expect(line).toMatch(/^kolo_refresh=;/);
    expect(line).toMatch(/Expires=Thu, 01 Jan 1970/);
  }
  expect((await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(401);
});
