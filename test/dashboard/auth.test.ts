import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { REFRESH_REUSE_GRACE_MS } from '../../src/dashboard/tokens.ts';
import { sentMails } from '../../src/dashboard/mail.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login } from '../helpers/dashboard.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h.close());

/** The 6-digit code of the last mail sent to `email` (in-memory sink of memory:// data dirs). */
function lastCode(email: string): string {
  const mail = [...sentMails(h.config)].reverse().find((m) => m.to === email);
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}

const signUp = (email: string, extra: Record<string, unknown> = {}) =>
  h.request('POST', '/api/v1/auth/register', {
    body: { fullName: 'Awa Ndiaye', email, phone: '+237677000001', password: 'tres-secret-42', country: 'CM', ...extra },
  });

describe('sign-up and e-mail verification', () => {
  it('registers, refuses login before verification, verifies with the mailed code, logs in', async () => {
    const email = 'awa@example.test';
    const created = await signUp(email);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ success: true, code: 'SUCCESS', data: null });

    const early = await h.request('POST', '/api/v1/auth/login', { body: { email, password: 'tres-secret-42' } });
    expect(early.status).toBe(403);
    expect(early.json.code).toBe('EMAIL_NOT_VERIFIED');

    const wrong = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: lastCode(email) === '000000' ? '111111' : '000000' } });
    expect(wrong.json.code).toBe('OTP_INVALID');

    const verified = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: lastCode(email) } });
    expect(verified.status).toBe(200);
    const again = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: lastCode(email) } });
    expect(again.json.code).toBe('ACCOUNT_ALREADY_VERIFIED');

    const ok = await h.request('POST', '/api/v1/auth/login', { body: { email: 'AWA@example.test', password: 'tres-secret-42' } });
    expect(ok.status).toBe(200);
    expect(ok.json.data.user).toMatchObject({ email, role: 'MERCHANT', status: 'ACTIVE', kycLevel: 'NONE' });
    const me = await asAccount(h, ok.json.data.accessToken, 'GET', '/api/v1/merchants/me');
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ email, fullName: 'Awa Ndiaye', country: 'CM', emailVerified: true });
    // The zone of the API's zone-less timestamps: this process's (Kolo runs in the test's process).
    expect(me.json.data.serverTimeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(me.json.data.passwordHash).toBeUndefined();
  });

  it('rejects a duplicate e-mail (any case) and invalid fields', async () => {
    await signUp('dup@example.test');
    const dup = await signUp('DUP@example.test');
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('EMAIL_ALREADY_EXISTS');
    const bad = await h.request('POST', '/api/v1/auth/register', { body: { email: 'x', password: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(bad.json.data).sort()).toEqual(['country', 'email', 'fullName', 'password', 'phone']);
  });

  it('expires codes, resends a new one that replaces the old one, and 404s an unknown e-mail', async () => {
    const email = 'late@example.test';
    await signUp(email);
    const first = lastCode(email);
    h.clock.advance(11 * 60_000);
    const expired = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: first } });
    expect(expired.json.code).toBe('OTP_EXPIRED');
    const resent = await h.request('POST', '/api/v1/auth/resend-verify-email-code', { body: { email } });
    expect(resent.status).toBe(200);
    const second = lastCode(email);
    if (second !== first) {
      const old = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: first } });
      expect(old.json.code).toBe('OTP_INVALID');
    }
    expect((await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: second } })).status).toBe(200);
    const unknown = await h.request('POST', '/api/v1/auth/resend-verify-email-code', { body: { email: 'nobody@example.test' } });
    expect(unknown.json.code).toBe('USER_NOT_FOUND');
  });

  it('throttles code guesses with 429 and Retry-After', async () => {
    const email = 'guess@example.test';
    await signUp(email);
    const code = lastCode(email);
    const wrongCode = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i += 1) {
      const r = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: wrongCode } });
      expect(r.json.code).toBe('OTP_INVALID');
    }
    const locked = await h.request('POST', '/api/v1/auth/verify-email-otp', { body: { email, otp: code } });
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('login, refresh, logout', () => {
  it('throttles failed logins per e-mail, then lets the right password in after the lockout', async () => {
    const acct = await createDashboardAccount(h);
    for (let i = 0; i < 5; i += 1) {
      const r = await h.request('POST', '/api/v1/auth/login', { body: { email: acct.email, password: 'wrong-password' } });
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('INVALID_CREDENTIALS');
    }
    const locked = await h.request('POST', '/api/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBe(15 * 60);
    h.clock.advance(15 * 60_000 + 1000);
    expect((await h.request('POST', '/api/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
  });

  it('answers the same 401 for an unknown e-mail', async () => {
    const r = await h.request('POST', '/api/v1/auth/login', { body: { email: 'ghost@example.test', password: 'whatever-123' } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('INVALID_CREDENTIALS');
  });

  it('rotates refresh tokens; reusing a used one revokes the whole session', async () => {
    const acct = await createDashboardAccount(h);
    const first = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: acct.refreshToken } });
    expect(first.status).toBe(200);
    const { accessToken, refreshToken } = first.json.data;
    expect(refreshToken).not.toBe(acct.refreshToken);
    expect((await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(200);

    // Past the grace period that lets two tabs share one rotation (test/dashboard/two-tabs.test.ts).
    h.clock.advance(REFRESH_REUSE_GRACE_MS + 1);
    const reuse = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: acct.refreshToken } });
    expect(reuse.status).toBe(401);
    expect(reuse.json.code).toBe('COMPROMISED_SESSION');
    // The whole family is gone: the newer refresh token and the access tokens too.
    const next = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken } });
    expect(next.status).toBe(401);
    expect((await asAccount(h, accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(401);
    expect((await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(401);
  });

  it('rejects unknown refresh tokens and closes the session on logout', async () => {
    const bad = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: 'rt_' + 'a'.repeat(64) } });
    expect(bad.json.code).toBe('INVALID_REFRESH_TOKEN');
    const acct = await createDashboardAccount(h);
    const out = await h.request('POST', '/api/v1/auth/logout', { body: { refreshToken: acct.refreshToken } });
    expect(out.status).toBe(200);
    expect((await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(401);
    const after = await h.request('POST', '/api/v1/auth/refresh-token', { body: { refreshToken: acct.refreshToken } });
    expect(after.status).toBe(401);
  });

  it('expires access tokens after 15 minutes', async () => {
    const acct = await createDashboardAccount(h);
    h.clock.advance(15 * 60_000 + 1000);
    const r = await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me');
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('TOKEN_EXPIRED');
  });
});

describe('password reset and change', () => {
  it('resets with a mailed code and a single-use reset token; old sessions die', async () => {
    const acct = await createDashboardAccount(h);
    expect((await h.request('POST', '/api/v1/auth/forgot-password', { body: { email: acct.email } })).status).toBe(200);
    const unknown = await h.request('POST', '/api/v1/auth/forgot-password', { body: { email: 'none@example.test' } });
    expect(unknown.status).toBe(200);
    const verified = await h.request('POST', '/api/v1/auth/verify-reset-password-otp', { body: { email: acct.email, otp: lastCode(acct.email) } });
    expect(verified.status).toBe(200);
    const { resetToken } = verified.json.data;
    const reset = await h.request('POST', '/api/v1/auth/reset-password', { body: { resetToken, newPassword: 'un-nouveau-secret' } });
    expect(reset.status).toBe(200);
    const reuse = await h.request('POST', '/api/v1/auth/reset-password', { body: { resetToken, newPassword: 'encore-un-autre' } });
    expect(reuse.json.code).toBe('INVALID_RESET_TOKEN');
    expect((await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me')).status).toBe(401);
    await expect(login(h, acct.email, acct.password)).rejects.toThrow();
    await login(h, acct.email, 'un-nouveau-secret');
  });

  it('changes the password with the current one, and updates the profile', async () => {
    const acct = await createDashboardAccount(h);
    const wrong = await asAccount(h, acct.accessToken, 'PUT', '/api/v1/merchants/me/password', {
      body: { currentPassword: 'not-it', newPassword: 'nouveau-mot-de-passe' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.data.currentPassword).toBeDefined();
    const changed = await asAccount(h, acct.accessToken, 'PUT', '/api/v1/merchants/me/password', {
      body: { currentPassword: acct.password, newPassword: 'nouveau-mot-de-passe' },
    });
    expect(changed.status).toBe(200);
    await login(h, acct.email, 'nouveau-mot-de-passe');

    const patched = await asAccount(h, acct.accessToken, 'PATCH', '/api/v1/merchants/me', {
      body: { fullName: 'Nouveau Nom', country: 'SN', avatarUrl: 'https://cdn.example.test/a.png' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({ fullName: 'Nouveau Nom', country: 'SN', avatarUrl: 'https://cdn.example.test/a.png', serverTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    const bad = await asAccount(h, acct.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { avatarUrl: 'javascript:alert(1)' } });
    expect(bad.status).toBe(400);
  });

  it('keeps the dashboard language per account, merchant or staff, and refuses any other', async () => {
    for (const role of ['MERCHANT', 'ADMIN', 'SUPPORT'] as const) {
      const acct = await createDashboardAccount(h, { role });
      expect((await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me')).json.data.language).toBeNull();
      const set = await asAccount(h, acct.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { language: 'en' } });
      expect(set.status, role).toBe(200);
      expect(set.json.data.language).toBe('en');
      // Another session of the same account (another browser) reads it back.
      const other = await login(h, acct.email, acct.password);
      expect((await asAccount(h, other.accessToken, 'GET', '/api/v1/merchants/me')).json.data.language).toBe('en');
      // A change of something else leaves it alone.
      expect((await asAccount(h, acct.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { country: 'CM' } })).json.data.language).toBe('en');
      for (const language of ['de', 'FR', '', null]) {
        const bad = await asAccount(h, acct.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { language } });
        expect(bad.status, String(language)).toBe(400);
        expect(bad.json.code).toBe('VALIDATION_ERROR');
        expect(bad.json.data.language).toMatch(/[a-zéè]/);
      }
      expect((await asAccount(h, acct.accessToken, 'GET', '/api/v1/merchants/me')).json.data.language).toBe('en');
    }
  });
});

describe('e-mail verification switched off', () => {
  it('activates accounts at sign-up', async () => {
    const h2 = await startHarness({ ...DASHBOARD_TEST_ENV, EMAIL_VERIFICATION_REQUIRED: 'false' });
    try {
      const r = await h2.request('POST', '/api/v1/auth/register', {
        body: { fullName: 'Closed', email: 'closed@example.test', phone: '237677000002', password: 'tres-secret-42', country: 'CM' },
      });
      expect(r.status).toBe(201);
      expect(sentMails(h2.config)).toHaveLength(0);
      expect((await h2.request('POST', '/api/v1/auth/login', { body: { email: 'closed@example.test', password: 'tres-secret-42' } })).status).toBe(200);
    } finally {
      await h2.close();
    }
  });
});
