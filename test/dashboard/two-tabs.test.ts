/**
 * Two tabs, one refresh cookie: two concurrent loads of `/app/` (tabs restored at once, a reload
 * during a load) or two concurrent refresh calls with the same refresh token both keep the
 * session — the token's single rotation answers both with the same successor — while a use of the
 * spent token after the grace period still revokes the session as a token reuse.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness, type TestResponse } from '../harness.ts';
import { REFRESH_REUSE_GRACE_MS } from '../../src/dashboard/tokens.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h?.close());

/** The `kolo_refresh` value a response sets on `path`, if any. */
function cookieOn(response: TestResponse, path: string): string | undefined {
  const line = response.headers.getSetCookie().find((l) => l.startsWith('kolo_refresh=') && l.includes(`Path=${path}`));
  return line?.slice('kolo_refresh='.length).split(';')[0];
}
const meWith = async (accessToken: string) => (await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).status;

it('two concurrent /app/ loads with one refresh cookie keep the session, both with the same new cookie', async () => {
  const account = await createDashboardAccount(h);
  const cookie = { cookie: `kolo_refresh=${account.refreshToken}` };
  const [a, b] = await Promise.all([h.request('GET', '/app/', { headers: cookie }), h.request('GET', '/app/', { headers: cookie })]);
  for (const page of [a, b]) {
    expect(page.status).toBe(200);
    // The signed-in page carries the session; the plain (login) page does not.
    expect(page.text).toContain('id="kolo-bootstrap"');
  }
  const successor = cookieOn(a, '/app')!;
  expect(successor).toMatch(/^rt_[0-9a-f]{64}$/);
  expect(successor).not.toBe(account.refreshToken);
  expect(cookieOn(b, '/app')).toBe(successor);

  // The session lives on: the shared successor refreshes, and the first access token still works.
  expect(await meWith(account.accessToken)).toBe(200);
  const next = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: successor } });
  expect(next.status, next.text).toBe(200);
  expect(await meWith(next.json.data.accessToken)).toBe(200);
});

it('two concurrent refresh calls with one token both succeed with the same successor', async () => {
  const account = await createDashboardAccount(h);
  const body = { refreshToken: account.refreshToken };
  const answers = await Promise.all([1, 2, 3].map(() => h.request('POST', '/api/v1/auth/refresh-token', { body })));
  for (const answer of answers) expect(answer.status, answer.text).toBe(200);
  const successors = new Set(answers.map((answer) => answer.json.data.refreshToken));
  expect(successors.size).toBe(1);
  for (const answer of answers) expect(await meWith(answer.json.data.accessToken)).toBe(200);
  const [successor] = [...successors];
  expect((await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: successor } })).status).toBe(200);
});

it('a reuse within the grace period gets the successor; after it the session is revoked', async () => {
  const account = await createDashboardAccount(h);
  const first = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: account.refreshToken } });
  expect(first.status).toBe(200);

  h.clock.advance(REFRESH_REUSE_GRACE_MS - 1000);
  const again = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: account.refreshToken } });
  expect(again.status, again.text).toBe(200);
  expect(again.json.data.refreshToken).toBe(first.json.data.refreshToken);

  h.clock.advance(2000);
  const late = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: account.refreshToken } });
  expect(late.status).toBe(401);
  expect(late.json.code).toBe('COMPROMISED_SESSION');
  // Signed out everywhere: the successor and every access token of the session are refused.
  expect((await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: first.json.data.refreshToken } })).status).toBe(401);
  expect(await meWith(again.json.data.accessToken)).toBe(401);
  // And /app/ with the spent cookie is the plain page.
  const page = await h.request('GET', '/app/', { headers: { cookie: `kolo_refresh=${account.refreshToken}` } });
  expect(page.text).not.toContain('id="kolo-bootstrap"');
});
