/**
 * Dashboard test helpers: accounts with real tokens, and a bearer-authenticated request.
 * `createDashboardAccount` creates the account through the service layer and logs in through
 * the real HTTP login route (POST /api/v1/auth/login), so the tokens are exactly what a
 * dashboard would hold. `createStaffAccount` does the same for staff and enrols their second
 * factor, which staff need before any write in every environment.
 */
import { randomBytes } from 'node:crypto';
import type { Harness, RequestOptions, TestResponse } from '../harness.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { openSession } from '../../src/dashboard/tokens.ts';
import { enrolTotp, type Authenticator } from './totp.ts';

/** A logged-in dashboard account. */
export interface DashboardAccount {
  accountId: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  role: 'MERCHANT' | 'ADMIN' | 'SUPPORT';
}

let counter = 0;

/** Creates an ACTIVE, verified account of `role` (default MERCHANT) and logs it in over HTTP. */
export async function createDashboardAccount(
  h: Harness,
  options: { role?: 'MERCHANT' | 'ADMIN' | 'SUPPORT'; email?: string; password?: string; fullName?: string } = {},
): Promise<DashboardAccount> {
  counter += 1;
  const role = options.role ?? 'MERCHANT';
  const email = options.email ?? `${role.toLowerCase()}${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = options.password ?? `Mot-de-passe-${counter}-solide`;
  const row = await createAccount(h.services, {
    fullName: options.fullName ?? `${role} ${counter}`,
    email,
    password,
    role,
    status: 'ACTIVE',
    emailVerified: true,
  });
  const tokens = await login(h, email, password);
  return { accountId: row.id, email, password, role, ...tokens };
}

/** A signed-in staff account with an enrolled authenticator. */
export interface StaffAccount extends DashboardAccount {
  role: 'ADMIN' | 'SUPPORT';
  auth: Authenticator;
}

/**
 * Creates an ACTIVE staff account of `role` (default ADMIN), logs it in over HTTP and enrols its
 * second factor like an authenticator app would; the session is then fresh for 5 minutes (a
 * step-up). The harness clock moves 30 s (the enrolment's code is spent).
 */
export async function createStaffAccount(
  h: Harness,
  options: { role?: 'ADMIN' | 'SUPPORT'; email?: string; password?: string; fullName?: string } = {},
): Promise<StaffAccount> {
  const account = await createDashboardAccount(h, { ...options, role: options.role ?? 'ADMIN' });
  const auth = await enrolTotp(h, account.accessToken);
  return { ...account, role: options.role ?? 'ADMIN', auth };
}

/**
 * A new session of `staff`, opened as the login route opens it once the password and the code are
 * right (second factor proved now), for tests that sign staff in again after moving the clock past
 * an access token's life. The service call rather than the route: a code is good once per
 * 30-second step, and the clock stays where the test put it.
 */
export async function loginStaff(h: Harness, staff: StaffAccount): Promise<{ accessToken: string; refreshToken: string }> {
  return openSession(h.services, { id: staff.accountId, role: staff.role, email: staff.email }, { secondFactor: true });
}

/** Logs in over HTTP (with `otp`, the authenticator's code, once a second factor is on); throws with the response body when it fails. */
export async function login(h: Harness, email: string, password: string, otp?: string): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await h.request('POST', '/api/v1/auth/login', { body: { email, password, ...(otp !== undefined ? { otp } : {}) } });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return { accessToken: response.json.data.accessToken, refreshToken: response.json.data.refreshToken };
}

/** Sends a request with `Authorization: Bearer <token>`. */
export function asAccount(
  h: Harness,
  token: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse> {
  return h.request(method, path, { ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } });
}

/** Harness environment for dashboard tests: cheaper scrypt so logins stay fast. */
export const DASHBOARD_TEST_ENV = { PASSWORD_SCRYPT_LOG_N: '14' } as const;
