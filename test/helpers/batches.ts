/**
 * The set-up batch pay-out tests share: a merchant (its owner signed in over HTTP) with one
 * application and one API key of an environment, team members invited, accepted, signed in and
 * enrolled in a second factor like a person would (the roles that move money out must have one),
 * the fresh second factor an approval asks for, and lists of valid items.
 */
import { sentMails } from '../../src/dashboard/mail.ts';
import type { Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, login, type DashboardAccount } from './dashboard.ts';
import { expectSuccess } from './merchant-api.ts';
import { enrolTotp, type Authenticator } from './totp.ts';

/** A signed-in team member with an enrolled authenticator. */
export interface TeamMember {
  token: string;
  accountId: string;
  email: string;
  password: string;
  auth: Authenticator;
}

/** A merchant ready to send batches: its owner, one application and that application's API key. */
export interface BatchMerchant {
  owner: DashboardAccount;
  appId: string;
  /** The application's API key (all scopes), of the environment asked for. */
  key: string;
}

let counter = 0;

/**
 * Creates a merchant account (owner signed in), an application in XAF and its API key of
 * `environment` (TEST unless said otherwise), all through the dashboard API.
 */
export async function createBatchMerchant(
  h: Harness,
  options: { ownerName?: string; appName?: string; environment?: 'TEST' | 'LIVE' } = {},
): Promise<BatchMerchant> {
  const owner = await createDashboardAccount(h, { fullName: options.ownerName ?? 'Awa Propriétaire' });
  const appId = expectSuccess(await asAccount(h, owner.accessToken, 'POST', '/api/v1/merchants/apps', { body: { name: options.appName ?? 'Paie', currency: 'XAF' } }), 201).id as string;
  const key = expectSuccess(
    await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, { body: { name: 'Clé', environment: options.environment ?? 'TEST' } }),
    201,
  ).plainTextKey as string;
  return { owner, appId, key };
}

/**
 * Invites a member of `role` to the owner's team (the owner signed in with `ownerToken`), reads
 * the invitation mail, accepts it, signs in and enrols a second factor.
 */
export async function joinTeam(h: Harness, ownerToken: string, role: string): Promise<TeamMember> {
  counter += 1;
  const email = `membre${counter}-${role.toLowerCase()}@example.test`;
  expectSuccess(await asAccount(h, ownerToken, 'POST', '/api/v1/merchants/team/invitations', { body: { email, role } }), 201);
  const mail = sentMails(h.config).filter((m) => m.to === email).at(-1);
  const token = /token=(inv_[0-9a-f]{64})/.exec(mail?.text ?? '')?.[1];
  if (!token) throw new Error(`no invitation mail for ${email}`);
  const password = `Mot-de-passe-membre-${counter}`;
  const accepted = expectSuccess(await h.request('POST', '/api/v1/auth/accept-invitation', { body: { token, fullName: `Membre ${counter}`, password } }), 201);
  const { accessToken } = await login(h, email, password);
  const auth = await enrolTotp(h, accessToken);
  return { token: accessToken, accountId: accepted.accountId, email, password, auth };
}

/** Proves the second factor of `person` now (fresh for 5 minutes); the clock moves to the next 30-second code. */
export async function stepUp(h: Harness, person: { token: string; auth: Authenticator }): Promise<void> {
  h.clock.advance(30_000);
  expectSuccess(await asAccount(h, person.token, 'POST', '/api/v1/merchants/me/two-factor/verify', { body: { code: person.auth.code() } }), 200);
}

/**
 * `n` valid items of `amount` XAF (1,000 unless said otherwise) on MTN_MOMO_CM, to distinct
 * numbers `prefix` + 5 digits (from 10000), named `name` + row, with a merchant reference
 * `reference` + row when `reference` is given.
 */
export function validBatchItems(
  n: number,
  options: { amount?: number; prefix?: string; name?: string; reference?: string } = {},
): Record<string, unknown>[] {
  const { amount = 1000, prefix = '2376770', name = 'Employé', reference } = options;
  return Array.from({ length: n }, (_, i) => ({
    amount,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    beneficiaryAccount: `${prefix}${String(10000 + i)}`,
    beneficiaryName: `${name} ${i + 1}`,
    ...(reference !== undefined ? { merchantReference: `${reference}-${i + 1}` } : {}),
  }));
}
