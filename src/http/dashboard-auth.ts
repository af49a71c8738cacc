/**
 * `Authorization: Bearer <access JWT>` authentication of the dashboard API: the dashboard's
 * merchant, admin and support calls and key management. An `onRequest` hook, so it runs before body
 * validation. API keys are never accepted here (a lone X-API-KEY is a 401), and the merchant API
 * never reads this header. The account is re-read on every request, so a suspension or a revoked
 * session takes effect at once in every instance.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findApplication, type ApplicationRow } from '../accounts/applications.ts';
import { dashboardSessions } from '../db/schema-dashboard.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Role } from '../dashboard/tokens.ts';
import { verifyAccessToken } from '../dashboard/tokens.ts';
import type { Services } from '../services.ts';

/** Who a dashboard request is from. */
export interface DashboardAccount {
  accountId: string;
  role: Role;
  email: string;
  /** The login session of the access token (revoked on logout). */
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `dashboardAuthHook` on dashboard routes. */
    account?: DashboardAccount;
  }
}

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/i;

/**
 * Builds the `onRequest` hook. Throws 401 UNAUTHORIZED when no bearer token is sent (an
 * X-API-KEY alone included), INVALID_TOKEN for a malformed or badly signed one, TOKEN_EXPIRED
 * past its expiry or when its session was closed, and 403 ACCOUNT_NOT_ACTIVE for an account
 * that is not ACTIVE.
 */
export function dashboardAuthHook(services: Services) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || !/^Bearer\s/i.test(header)) {
      throw new ApiError('UNAUTHORIZED', { message: 'Authentification requise : envoyez un jeton « Authorization: Bearer ».' });
    }
    const match = BEARER.exec(header);
    if (!match) throw new ApiError('INVALID_TOKEN');
    const claims = await verifyAccessToken(request.services, match[1]!);
    const [row] = await services.db
      .select({ role: accounts.role, email: accounts.email, status: accounts.status, sessionId: dashboardSessions.id })
      .from(accounts)
      .leftJoin(
        dashboardSessions,
        and(eq(dashboardSessions.id, claims.sessionId), eq(dashboardSessions.accountId, accounts.id), isNull(dashboardSessions.revokedAt)),
      )
      .where(eq(accounts.id, claims.accountId));
    if (!row) throw new ApiError('INVALID_TOKEN');
    if (!row.sessionId) throw new ApiError('TOKEN_EXPIRED', { message: 'Cette session a été fermée. Reconnectez-vous.' });
    if (row.status !== 'ACTIVE') throw new ApiError('ACCOUNT_NOT_ACTIVE');
    // The role is the account's current one, not the one frozen in the token.
    request.account = { accountId: claims.accountId, role: row.role as Role, email: row.email, sessionId: claims.sessionId };
  };
}

/** The authenticated account of a request that passed `dashboardAuthHook`. */
export function requireAccount(request: FastifyRequest): DashboardAccount {
  if (!request.account) throw new ApiError('UNAUTHORIZED');
  return request.account;
}

/** Throws 403 ACCESS_DENIED unless the account has one of `roles`. */
export function requireRole(account: DashboardAccount, ...roles: Role[]): void {
  if (!roles.includes(account.role)) throw new ApiError('ACCESS_DENIED');
}

/**
 * The application `appId` as `account` may see it. 404 APP_NOT_FOUND when it does not exist,
 * is deleted, or (MERCHANT) belongs to another merchant, so ids of others cannot be probed.
 * SUPPORT reads any application and gets 403 ACCESS_DENIED on `write`; ADMIN reads and writes any.
 */
export async function findAccessibleApplication(
  services: Pick<Services, 'db'>,
  account: DashboardAccount,
  appId: string,
  options: { write: boolean },
): Promise<ApplicationRow> {
  const app = await findApplication(services.db, appId);
  if (!app) throw new ApiError('APP_NOT_FOUND');
  if (account.role === 'MERCHANT') {
    if (app.merchantId !== account.accountId) throw new ApiError('APP_NOT_FOUND');
    return app;
  }
  if (account.role === 'SUPPORT' && options.write) throw new ApiError('ACCESS_DENIED');
  return app;
}

/** The audit actor of a request: the authenticated account (if any) and the client IP. */
export function auditActor(request: FastifyRequest) {
  return { actorId: request.account?.accountId ?? null, actorRole: request.account?.role ?? null, clientIp: request.ip ?? null };
}
