/**
 * Password spraying: failed logins are also counted per client IP, whatever the e-mail, so one
 * password tried against many accounts is locked out too (AUTH_MAX_FAILURES_PER_IP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { createDashboardAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, AUTH_MAX_FAILURES_PER_IP: '6' });
});
afterAll(async () => h?.close());

const login = (email: string, password: string) => h.request('POST', '/api/v1/auth/login', { body: { email, password } });

describe('login throttling per client IP', () => {
  it('locks the IP after failures spread over many e-mails, each below its own limit', async () => {
    const victim = await createDashboardAccount(h);
    // Six different e-mails, one wrong password each: no e-mail reaches its own limit of 5.
    for (let i = 0; i < 6; i += 1) {
      const r = await login(`someone${i}@example.test`, 'Spring2026!');
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('INVALID_CREDENTIALS');
    }
    // The IP is now locked: even the right password of a real account waits.
    const locked = await login(victim.email, victim.password);
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(15 * 60_000 + 1000);
    expect((await login(victim.email, victim.password)).status).toBe(200);
  });
});
