/**
 * Dashboard test helpers: accounts with real tokens, and a bearer-authenticated request.
 * `createDashboardAccount` creates the account through the service layer and logs in through
 * the real HTTP login route (POST /api/v1/auth/login), so the tokens are exactly what a
 * dashboard would hold.
 */
import { randomBytes } from 'node:crypto';
import type { Harness, RequestOptions, TestResponse } from '../harness.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';

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

/** Logs in over HTTP; throws with the response body when it fails. */
export async function login(h: Harness, email: string, password: string): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await h.request('POST', '/api/v1/auth/login', { body: { email, password } });
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
