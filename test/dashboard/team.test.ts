/**
 * Team members, through real HTTP and the real database: the owner (the merchant account itself,
 * as SharePay's dashboard logs in) invites by e-mail; the invited person accepts with the mailed
 * link, signs in with their own password and acts for the merchant within their role — the one
 * dashboard guard refuses anything else with 403 ACCESS_DENIED and nothing happens; the audit log
 * names the member; role changes apply on the next request; a removed member is signed out.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../src/db/schema-dashboard.ts';
import { sentMails } from '../../src/dashboard/mail.ts';
import { routePermission } from '../../src/dashboard/team-roles.ts';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { countTransactions, expectError, expectSuccess, transferBody } from '../helpers/merchant-api.ts';
import { enrolTotp } from '../helpers/totp.ts';

let h: Harness;
let owner: DashboardAccount;
let appId: string;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  owner = await createDashboardAccount(h, { fullName: 'Awa Propriétaire' });
  appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Boutique', currency: 'XAF' } }), 201).id;
});
afterAll(async () => h?.close());

/** The last mail sent to `to`. */
const lastMailTo = (to: string) => sentMails(h.config).filter((m) => m.to === to).at(-1)!;

let counter = 0;
/** Invites a new address with `role` as `inviter`, accepts the mailed link and signs in. */
async function join(role: string, inviter = owner): Promise<{ email: string; password: string; accountId: string; memberId: string; token: string }> {
  counter += 1;
  const email = `membre${counter}@example.test`;
  const invitation = expectSuccess(await asAccount(h, inviter.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email, role } }), 201);
  expect(invitation).toMatchObject({ email, role });
  const mail = lastMailTo(email);
  const link = /\/app\/join\?token=(inv_[0-9a-f]{64})/.exec(mail.text)!;
  expect(mail.text).toContain(`${h.config.publicBaseUrl}/app/join?token=`);
  const password = `Mot-de-passe-membre-${counter}`;
  const accepted = expectSuccess(await h.request('POST', '/api/v1/auth/accept-invitation', { body: { token: link[1], fullName: `Membre ${counter}`, password } }), 201);
  const { accessToken } = await login(h, email, password);
  const team = expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/team'), 200);
  const memberId = team.members.find((m: any) => m.email === email).id;
  return { email, password, accountId: accepted.accountId, memberId, token: accessToken };
}

describe('invitations', () => {
  it('lists the owner and pending invitations; a token serves once; a used address is refused', async () => {
    const team = expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/team'), 200);
    expect(team.members[0]).toMatchObject({ accountId: owner.accountId, role: 'OWNER', email: owner.email });

    await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email: 'attente@example.test', role: 'VIEWER' } });
    const pending = expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/team'), 200).invitations;
    expect(pending.map((i: any) => i.email)).toContain('attente@example.test');

    const viewer = await join('VIEWER');
    const reused = await h.request('POST', '/api/v1/auth/accept-invitation', {
      body: { token: /token=(inv_[0-9a-f]+)/.exec(lastMailTo(viewer.email).text)![1], fullName: 'Encore', password: 'Mot-de-passe-123' },
    });
    expectError(reused, 400, 'INVITATION_INVALID');
    expectError(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email: owner.email, role: 'VIEWER' } }), 409, 'EMAIL_ALREADY_EXISTS');
    expectError(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email: 'x@example.test', role: 'OWNER' } }), 400, 'VALIDATION_ERROR');
  });

  it('expires after 7 days', async () => {
    await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email: 'tard@example.test', role: 'VIEWER' } });
    const token = /token=(inv_[0-9a-f]+)/.exec(lastMailTo('tard@example.test').text)![1];
    h.clock.advance(7 * 86_400_000 + 1000);
    const late = await h.request('POST', '/api/v1/auth/accept-invitation', { body: { token, fullName: 'Tard', password: 'Mot-de-passe-123' } });
    expectError(late, 400, 'INVITATION_INVALID');
    owner = { ...owner, ...(await login(h, owner.email, owner.password)) }; // the access token expired meanwhile
  });
});

describe('roles, checked by the dashboard guard', () => {
  it("a viewer reads the merchant's data but changes nothing", async () => {
    const viewer = await join('VIEWER');
    const apps = expectSuccess(await asAccount(h, viewer.token, 'GET', '/api/v1/merchants/apps'), 200);
    expect(apps.map((a: any) => a.id)).toContain(appId);
    const me = expectSuccess(await asAccount(h, viewer.token, 'GET', '/api/v1/merchants/me'), 200);
    expect(me).toMatchObject({ email: viewer.email, role: 'MEMBER' });

    const before = await countTransactions(h, appId);
    const transfer = await asAccount(h, viewer.token, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() });
    expectError(transfer, 403, 'ACCESS_DENIED');
    expect(transfer.json.message).toMatch(/rôle/);
    expectError(await asAccount(h, viewer.token, 'POST', '/api/v1/merchants/apps', { body: { name: 'Pirate', currency: 'XAF' } }), 403, 'ACCESS_DENIED');
    expectError(await asAccount(h, viewer.token, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: { name: 'k', environment: 'TEST' } }), 403, 'ACCESS_DENIED');
    expectError(await asAccount(h, viewer.token, 'POST', '/api/v1/merchants/team/invitations', { body: { email: 'ami@example.test', role: 'ADMINISTRATOR' } }), 403, 'ACCESS_DENIED');
    expect(await countTransactions(h, appId)).toBe(before);
    // Their own profile is theirs to change.
    expectSuccess(await asAccount(h, viewer.token, 'PATCH', '/api/v1/merchants/me', { body: { fullName: 'Vue Seule' } }), 200);
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/me'), 200).fullName).toBe('Awa Propriétaire');
  });

  it('finance pays out and a developer manages keys, each not the other; the audit log names them', async () => {
    const finance = await join('FINANCE');
    const developer = await join('DEVELOPER');
    // Finance moves money out: its second factor comes first (test/dashboard/two-factor.test.ts).
    await enrolTotp(h, finance.token);

    const transfer = expectSuccess(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 201);
    expect(transfer.reference).toMatch(/^PO-/);
    expectError(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: 'TEST' } }), 403, 'ACCESS_DENIED');

    const key = expectSuccess(await asAccount(h, developer.token, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé dev', environment: 'TEST' } }), 201);
    expectError(await asAccount(h, developer.token, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 403, 'ACCESS_DENIED');

    const [entry] = await h.services.db.select().from(auditLog).where(and(eq(auditLog.action, 'API_KEY_CREATED'), eq(auditLog.targetId, key.id)));
    expect(entry).toMatchObject({ actorId: developer.accountId, actorRole: 'MEMBER_DEVELOPER' });
  });

  it('a member never reaches another merchant', async () => {
    const administrator = await join('ADMINISTRATOR');
    const other = await createDashboardAccount(h);
    const otherApp = expectSuccess(await asAccount(h, other.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: 'Autre', currency: 'XAF' } }), 201);
    expectError(await asAccount(h, administrator.token, 'GET', `/api/v1/merchants/apps/${otherApp.id}`), 404, 'APP_NOT_FOUND');
    const otherTeam = expectSuccess(await asAccount(h, other.accessToken, 'GET', '/api/v1/merchants/team'), 200);
    expect(otherTeam.members).toHaveLength(1);
    expectError(await asAccount(h, other.accessToken, 'DELETE', `/api/v1/merchants/team/members/${administrator.memberId}`), 404, 'MEMBER_NOT_FOUND');
  });

  it('a role change applies from the next request; a removed member is signed out', async () => {
    const member = await join('FINANCE');
    expect((await asAccount(h, owner.accessToken, 'PATCH', `/api/v1/merchants/team/members/${member.memberId}`, { body: { role: 'VIEWER' } })).status).toBe(204);
    expectError(await asAccount(h, member.token, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, { body: transferBody() }), 403, 'ACCESS_DENIED');

    const removed = await asAccount(h, owner.accessToken, 'DELETE', `/api/v1/merchants/team/members/${member.memberId}`);
    expect(removed.status).toBe(204);
    expect((await asAccount(h, member.token, 'GET', '/api/v1/merchants/apps')).status).toBe(401);
    const relogin = await h.request('POST', '/api/v1/auth/login', { body: { email: member.email, password: member.password } });
    expectError(relogin, 403, 'ACCOUNT_NOT_ACTIVE');
  });
});

describe('the route permission table', () => {
  it('names the permission of each kind of write, and fails closed on any other', () => {
    expect(routePermission('GET', '/api/v1/merchants/apps')).toBe('READ');
    expect(routePermission('POST', '/api/v1/merchants/apps/:appId/transfer')).toBe('FINANCE');
    expect(routePermission('POST', '/api/v1/merchants/withdrawals/withdraw')).toBe('FINANCE');
    expect(routePermission('POST', '/api/v1/merchants/transactions/:reference/refund')).toBe('FINANCE');
    expect(routePermission('PATCH', '/api/v1/merchants/apps/:appId/webhook')).toBe('DEVELOP');
    expect(routePermission('POST', '/api/v1/merchants/batches/:id/approve')).toBe('APPROVE');
    expect(routePermission('PUT', '/api/v1/merchants/me/password')).toBe('SELF');
    expect(routePermission('PUT', '/api/v1/merchants/apps/:appId/money-settings')).toBe('TEAM');
    expect(routePermission('POST', '/api/v1/merchants/something-new')).toBe('TEAM');
  });
});
