/**
 * Two-factor sign-in (TOTP, RFC 6238) through real HTTP and the real database: enrolment with the
 * `otpauth://` URI and a first code, sign-in that then asks for a code or a recovery code (each
 * recovery code once, a TOTP code once), step-up within 5 minutes for sensitive actions, the
 * secret sealed at rest, and members whose role moves money out and staff (in every environment)
 * held to enrol first.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryCodes, secondFactors } from '../../src/db/schema-dashboard.ts';
import { sentMails } from '../../src/dashboard/mail.ts';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login } from '../helpers/dashboard.ts';
import { countTransactions, expectError, expectSuccess, transferBody } from '../helpers/merchant-api.ts';
import { enrolTotp } from '../helpers/totp.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
});
afterAll(async () => h?.close());

const signIn = (email: string, password: string, extra: Record<string, string> = {}) => h.request('POST', '/api/v1/auth/login', { body: { email, password, ...extra } });

describe('enrolment and sign-in', () => {
  it('enrols, then asks for a code at sign-in; a code and a recovery code each serve once', async () => {
    const owner = await createDashboardAccount(h);
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/me/two-factor'), 200)).toEqual({ enabled: false, required: false });
    const app = await enrolTotp(h, owner.accessToken);
    expect(app.recoveryCodes).toHaveLength(10);
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/me/two-factor'), 200).enabled).toBe(true);

    // At rest: the secret sealed, the recovery codes as digests.
    const [stored] = await h.services.db.select().from(secondFactors).where(eq(secondFactors.accountId, owner.accountId));
    expect(stored!.secretSealed).toMatch(/^v1:/);
    expect(stored!.secretSealed).not.toContain(app.totp.secret.base32);
    const codes = await h.services.db.select().from(recoveryCodes).where(eq(recoveryCodes.accountId, owner.accountId));
    expect(codes.map((c) => c.codeHash)).not.toContain(app.recoveryCodes[0]);

    expectError(await signIn(owner.email, owner.password), 401, 'SECOND_FACTOR_REQUIRED');
    expectError(await signIn(owner.email, owner.password, { otp: '000000' }), 401, 'SECOND_FACTOR_INVALID');
    const code = app.code();
    expect((await signIn(owner.email, owner.password, { otp: code })).status).toBe(200);
    expectError(await signIn(owner.email, owner.password, { otp: code }), 401, 'SECOND_FACTOR_INVALID'); // the same code again
    expect((await signIn(owner.email, owner.password, { recoveryCode: app.recoveryCodes[0]! })).status).toBe(200);
    expectError(await signIn(owner.email, owner.password, { recoveryCode: app.recoveryCodes[0]! }), 401, 'SECOND_FACTOR_INVALID');
  });
});

describe('step-up for sensitive actions', () => {
  /**
   * An owner with an application and an enrolled second factor, signed in with a code more than
   * 5 minutes ago: the sign-in's code is fresh for 5 minutes, past them sensitive actions ask again.
   */
  async function ownerWithStaleFactor() {
    const owner = await createDashboardAccount(h);
    const appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Boutique', currency: 'XAF' } }), 201).id as string;
    const auth = await enrolTotp(h, owner.accessToken);
    const { accessToken } = expectSuccess(await signIn(owner.email, owner.password, { otp: auth.code() }), 200) as { accessToken: string };
    h.clock.advance(5 * 60_000 + 1000);
    return { appId, auth, accessToken };
  }

  it('a person with a second factor confirms it within 5 minutes before a transfer or a key rotation', async () => {
    const { appId, auth, accessToken } = await ownerWithStaleFactor();
    const before = await countTransactions(h, appId);
    expectError(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expectError(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: 'TEST' } }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expect(await countTransactions(h, appId)).toBe(before);

    expectSuccess(await asAccount(h, accessToken, 'POST', '/api/v1/merchants/me/two-factor/verify', { body: { code: auth.code() } }), 200);
    expectSuccess(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 201);
    expectSuccess(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: 'TEST' } }), 201);
    // Reads never ask.
    expectSuccess(await asAccount(h, accessToken, 'GET', '/api/v1/merchants/apps'), 200);
  });

  it('asks it again, changing nothing, before a withdrawal account, a key rotation or a webhook URL', async () => {
    const { appId, auth, accessToken } = await ownerWithStaleFactor();
    const account = { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' };
    const rotate = { name: 'Clé 2', environment: 'TEST' };
    const webhook = { webhookUrl: 'http://127.0.0.1:9/kolo' };
    const webhookOf = async () => expectSuccess(await asAccount(h, accessToken, 'GET', `/api/v1/merchants/apps/${appId}`), 200).webhookUrl;
    const accountsOf = async () => expectSuccess(await asAccount(h, accessToken, 'GET', '/api/v1/merchants/withdrawals/accounts'), 200);
    const keyBefore = expectSuccess(await asAccount(h, accessToken, 'GET', `/api/v1/merchants/apps/${appId}/api-keys`), 200);

    expectError(await asAccount(h, accessToken, 'POST', '/api/v1/merchants/withdrawals/accounts', { body: account }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expectError(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: rotate }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expectError(await asAccount(h, accessToken, 'PATCH', `/api/v1/merchants/apps/${appId}/webhook`, { body: webhook }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expect(await accountsOf()).toEqual([]);
    expect(expectSuccess(await asAccount(h, accessToken, 'GET', `/api/v1/merchants/apps/${appId}/api-keys`), 200)).toEqual(keyBefore);
    expect(await webhookOf()).not.toBe(webhook.webhookUrl);

    expectSuccess(await asAccount(h, accessToken, 'POST', '/api/v1/merchants/me/two-factor/verify', { body: { code: auth.code() } }), 200);
    expectSuccess(await asAccount(h, accessToken, 'POST', '/api/v1/merchants/withdrawals/accounts', { body: account }), 201);
    expectSuccess(await asAccount(h, accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: rotate }), 201);
    expectSuccess(await asAccount(h, accessToken, 'PATCH', `/api/v1/merchants/apps/${appId}/webhook`, { body: webhook }), 200);
    expect(await accountsOf()).toHaveLength(1);
    expect(await webhookOf()).toBe(webhook.webhookUrl);
  });

  it('support staff are refused the writes that ask for a step-up, whatever their factor’s age, and nothing changes', async () => {
    const { appId } = await ownerWithStaleFactor();
    const support = await createStaffAccount(h, { role: 'SUPPORT' });
    const batchId = '00000000-0000-4000-8000-000000000001';
    const writes: [string, string, Record<string, unknown>][] = [
      ['POST', `/api/v1/merchants/apps/${appId}/transfer`, transferBody()],
      ['POST', `/api/v1/merchants/apps/${appId}/api-keys`, { name: 'Clé', environment: 'TEST' }],
      ['POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { name: 'Clé 2', environment: 'TEST' }],
      ['PATCH', `/api/v1/merchants/apps/${appId}/webhook`, { webhookUrl: 'http://127.0.0.1:9/support' }],
      ['PATCH', `/api/v1/merchants/apps/${appId}`, { webhookUrl: 'http://127.0.0.1:9/support' }],
      ['PUT', `/api/v1/merchants/apps/${appId}/money-settings`, { lateSuccessPolicy: 'REFUND' }],
      ['POST', '/api/v1/merchants/withdrawals/accounts', { providerCode: 'MTN_MOMO_CM', accountNumber: '677000001', accountName: 'Awa' }],
      ['POST', `/api/v1/merchants/batches/${batchId}/approve`, {}],
    ];
    const before = await countTransactions(h, appId);
    // Past the 5 minutes of the enrolment's code, then with a code just proved: the same refusal.
    h.clock.advance(5 * 60_000 + 1000);
    for (const [method, url, body] of writes) expectError(await asAccount(h, support.accessToken, method, url, { body }), 403, 'ACCESS_DENIED');
    expectSuccess(await asAccount(h, support.accessToken, 'POST', '/api/v1/merchants/me/two-factor/verify', { body: { code: support.auth.code() } }), 200);
    for (const [method, url, body] of writes) expectError(await asAccount(h, support.accessToken, method, url, { body }), 403, 'ACCESS_DENIED');
    expect(await countTransactions(h, appId)).toBe(before);
    // Staff reads are theirs.
    expectSuccess(await asAccount(h, support.accessToken, 'GET', '/api/v1/admin/merchants'), 200);
  });

  it('a merchant account without a second factor works as before (SharePay’s dashboard)', async () => {
    const owner = await createDashboardAccount(h);
    const appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Sans 2FA', currency: 'XAF' } }), 201).id;
    expectSuccess(await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: 'TEST' } }), 201);
    expectSuccess(await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 201);
  });
});

describe('members whose role moves money out', () => {
  it('must enrol before any write but their own profile; then work with a fresh factor', async () => {
    const owner = await createDashboardAccount(h);
    const appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Paie', currency: 'XAF' } }), 201).id;
    const email = `finance-${Date.now()}@example.test`;
    await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email, role: 'FINANCE' } });
    const token = /token=(inv_[0-9a-f]+)/.exec(sentMails(h.config).filter((m) => m.to === email).at(-1)!.text)![1];
    await h.request('POST', '/api/v1/auth/accept-invitation', { body: { token, fullName: 'Fin Ance', password: 'Mot-de-passe-finance' } });
    const member = await login(h, email, 'Mot-de-passe-finance');

    expect(expectSuccess(await asAccount(h, member.accessToken, 'GET', '/api/v1/merchants/me/two-factor'), 200)).toEqual({ enabled: false, required: true });
    expectSuccess(await asAccount(h, member.accessToken, 'GET', '/api/v1/merchants/apps'), 200);
    expectError(await asAccount(h, member.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 403, 'SECOND_FACTOR_ENROLMENT_REQUIRED');

    const auth = await enrolTotp(h, member.accessToken);
    expectSuccess(await asAccount(h, member.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 201);
    expectError(await asAccount(h, member.accessToken, 'DELETE', '/api/v1/merchants/me/two-factor', { body: { code: auth.code() } }), 403, 'SECOND_FACTOR_ENROLMENT_REQUIRED');
  });

  it('every member must enrol once the merchant asks it of the whole team', async () => {
    const owner = await createDashboardAccount(h);
    const appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Équipe stricte', currency: 'XAF' } }), 201).id;
    const email = `dev-${Date.now()}@example.test`;
    await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email, role: 'DEVELOPER' } });
    const token = /token=(inv_[0-9a-f]+)/.exec(sentMails(h.config).filter((m) => m.to === email).at(-1)!.text)![1];
    await h.request('POST', '/api/v1/auth/accept-invitation', { body: { token, fullName: 'Dev Eloppeur', password: 'Mot-de-passe-dev-42' } });
    const member = await login(h, email, 'Mot-de-passe-dev-42');
    expectSuccess(await asAccount(h, member.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: 'TEST' } }), 201);

    expect((await asAccount(h, owner.accessToken, 'PUT', '/api/v1/merchants/team/settings', { body: { membersNeedSecondFactor: true } })).status).toBe(204);
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/team'), 200).membersNeedSecondFactor).toBe(true);
    expect(expectSuccess(await asAccount(h, member.accessToken, 'GET', '/api/v1/merchants/me/two-factor'), 200).required).toBe(true);
    expectError(await asAccount(h, member.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: { name: 'Clé 2', environment: 'TEST' } }), 403, 'SECOND_FACTOR_ENROLMENT_REQUIRED');
  });

  it('staff must enrol before any write, in development as in production: reads and their own profile only until then', async () => {
    // The harness runs as `npm start` does on a laptop: no KOLO_ENV=production.
    expect(h.services.config.isProduction).toBe(false);
    for (const role of ['ADMIN', 'SUPPORT'] as const) {
      const person = await createDashboardAccount(h, { role });
      expect(expectSuccess(await asAccount(h, person.accessToken, 'GET', '/api/v1/merchants/me/two-factor'), 200)).toEqual({ enabled: false, required: true });
      expectSuccess(await asAccount(h, person.accessToken, 'GET', '/api/v1/admin/merchants'), 200);
      expect(expectSuccess(await asAccount(h, person.accessToken, 'PATCH', '/api/v1/merchants/me', { body: { fullName: `${role} sans second facteur` } }), 200).fullName).toBe(`${role} sans second facteur`);
      // Required of them: they cannot turn it off once on either.
      expectError(await asAccount(h, person.accessToken, 'DELETE', '/api/v1/merchants/me/two-factor', { body: { code: '000000' } }), 403, 'SECOND_FACTOR_ENROLMENT_REQUIRED');
    }
    const admin = await createDashboardAccount(h, { role: 'ADMIN' });
    const staff = { email: `support-${Date.now()}@example.test`, fullName: 'Sup Port', role: 'SUPPORT', password: 'Mot-de-passe-support' };
    expectError(await asAccount(h, admin.accessToken, 'POST', '/api/v1/admin/staff', { body: staff }), 403, 'SECOND_FACTOR_ENROLMENT_REQUIRED');
    expect(expectSuccess(await asAccount(h, admin.accessToken, 'GET', '/api/v1/admin/staff'), 200).content.map((s: { email: string }) => s.email)).not.toContain(staff.email);
    await enrolTotp(h, admin.accessToken);
    expectSuccess(await asAccount(h, admin.accessToken, 'POST', '/api/v1/admin/staff', { body: staff }), 201);
  });
});
