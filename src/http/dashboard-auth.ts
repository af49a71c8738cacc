/**
 * `Authorization: Bearer <access JWT>` authentication of the dashboard API: the dashboard's
 * merchant, admin and support calls and key management. An `onRequest` hook, so it runs before body
 * validation. API keys are never accepted here (a lone X-API-KEY is a 401), and the merchant API
 * never reads this header. The account is re-read on every request, so a suspension or a revoked
 * session takes effect at once in every instance.
 *
 * A team member (an account of role MEMBER) acts for its merchant: the request's `accountId` is
 * the merchant's, `personId` the member's own, and the same hook is the dashboard's one role
 * guard: every route of a merchant or member request needs the permission `routePermission`
 * gives its method and URL pattern (dashboard/team-roles.ts), else 403 ACCESS_DENIED before the
 * route runs. Staff routes keep their own staff-role checks. The same guard asks for the second
 * factor (dashboard/second-factor.ts): a person who must have one (members who move money out,
 * staff in every environment) and has none may only read and manage its own profile (403
 * SECOND_FACTOR_ENROLMENT_REQUIRED), and the sensitive writes
 * (`needsFreshSecondFactor`) of a person who has or needs one want a second factor proved within
 * 5 minutes (403 FRESH_SECOND_FACTOR_REQUIRED); support staff, who never make those writes, get
 * 403 ACCESS_DENIED for them first.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findApplication, type ApplicationRow } from '../accounts/applications.ts';
import { dashboardSessions, secondFactors } from '../db/schema-dashboard.ts';
import { merchantMembers } from '../db/schema-team.ts';
import { accounts } from '../db/schema.ts';
import { STEP_UP_MS } from '../dashboard/second-factor.ts';
import { memberMay, movesMoneyOut, needsFreshSecondFactor, routePermission, type MemberRole } from '../dashboard/team-roles.ts';
import { ApiError } from '../domain/errors.ts';
import type { Role } from '../dashboard/tokens.ts';
import { verifyAccessToken } from '../dashboard/tokens.ts';
import type { Services } from '../services.ts';

/** Who a dashboard request is from. */
export interface DashboardAccount {
  /** The account the request acts for: the merchant account for its owner and its members. */
  accountId: string;
  /** The effective role: a member acts as MERCHANT (limited by `memberRole`). */
  role: Exclude<Role, 'MEMBER'>;
  /** The signed-in person's own account (the member's, for a member; else `accountId`). */
  personId: string;
  /** The team role (OWNER for a merchant account itself); null for staff. */
  memberRole: MemberRole | null;
  /** The signed-in person's e-mail. */
  email: string;
  /** The login session of the access token (revoked on logout). */
  sessionId: string;
  /** Whether the person has an enabled second factor. */
  hasSecondFactor: boolean;
  /**
   * Whether the person must have one: members who move money out or approve it, every member of a
   * merchant that asks it, and staff (ADMIN, SUPPORT) in every environment.
   */
  secondFactorRequired: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `dashboardAuthHook` on dashboard routes. */
    account?: DashboardAccount;
  }
}

/** The merchant account a member acts for (its team settings). */
const merchantOfMember = alias(accounts, 'merchant_of_member');

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
      .select({
        role: accounts.role,
        email: accounts.email,
        status: accounts.status,
        sessionId: dashboardSessions.id,
        merchantId: merchantMembers.merchantId,
        memberRole: merchantMembers.role,
        secondFactorAt: dashboardSessions.secondFactorAt,
        secondFactorEnabledAt: secondFactors.enabledAt,
        membersNeedSecondFactor: merchantOfMember.membersNeedSecondFactor,
      })
      .from(accounts)
      .leftJoin(
        dashboardSessions,
        and(eq(dashboardSessions.id, claims.sessionId), eq(dashboardSessions.accountId, accounts.id), isNull(dashboardSessions.revokedAt)),
      )
      .leftJoin(merchantMembers, eq(merchantMembers.accountId, accounts.id))
      .leftJoin(secondFactors, eq(secondFactors.accountId, accounts.id))
      .leftJoin(merchantOfMember, eq(merchantOfMember.id, merchantMembers.merchantId))
      .where(eq(accounts.id, claims.accountId));
    if (!row) throw new ApiError('INVALID_TOKEN');
    if (!row.sessionId) throw new ApiError('TOKEN_EXPIRED', { message: 'Cette session a été fermée. Reconnectez-vous.' });
    if (row.status !== 'ACTIVE') throw new ApiError('ACCOUNT_NOT_ACTIVE');
    // The role is the account's current one, not the one frozen in the token.
    const role = row.role as Role;
    const hasSecondFactor = row.secondFactorEnabledAt !== null;
    const base = { email: row.email, sessionId: claims.sessionId, personId: claims.accountId, hasSecondFactor };
    let account: DashboardAccount;
    if (role === 'MEMBER') {
      // A member whose membership ended no longer acts for anyone.
      if (!row.merchantId || !row.memberRole) throw new ApiError('ACCOUNT_NOT_ACTIVE');
      const memberRole = row.memberRole as MemberRole;
      const secondFactorRequired = movesMoneyOut(memberRole) || row.membersNeedSecondFactor === true;
      account = { ...base, accountId: row.merchantId, role: 'MERCHANT', memberRole, secondFactorRequired };
    } else {
      // Staff act on every merchant: a second factor whatever KOLO_ENV, so no environment (a
      // staging copy with real merchants' data, a production started without the switch) lets a
      // stolen staff password write.
      const isStaff = role === 'ADMIN' || role === 'SUPPORT';
      account = { ...base, accountId: claims.accountId, role, memberRole: role === 'MERCHANT' ? 'OWNER' : null, secondFactorRequired: isStaff };
    }
    const url = request.routeOptions.url ?? '';
    const permission = routePermission(request.method, url);
    if (account.memberRole !== null && !memberMay(account.memberRole, permission)) {
      throw new ApiError('ACCESS_DENIED', { message: "Votre rôle dans l'équipe ne permet pas cette action." });
    }
    // Support staff only read: the writes that ask for a step-up are never theirs to make, and the
    // answer says so (rather than asking for an enrolment or a code that could not help).
    if (role === 'SUPPORT' && needsFreshSecondFactor(request.method, url)) throw new ApiError('ACCESS_DENIED');
    // A member whose role needs a second factor only reads and manages its own profile until enrolled.
    if (account.secondFactorRequired && !hasSecondFactor && permission !== 'READ' && permission !== 'SELF') throw new ApiError('SECOND_FACTOR_ENROLMENT_REQUIRED');
    if ((hasSecondFactor || account.secondFactorRequired) && needsFreshSecondFactor(request.method, url)) {
      const fresh = row.secondFactorAt !== null && services.clock.now().getTime() - row.secondFactorAt.getTime() <= STEP_UP_MS;
      if (!fresh) throw new ApiError('FRESH_SECOND_FACTOR_REQUIRED');
    }
    request.account = account;
  };
}

/** The authenticated account of a request that passed `dashboardAuthHook`. */
export function requireAccount(request: FastifyRequest): DashboardAccount {
  if (!request.account) throw new ApiError('UNAUTHORIZED');
  return request.account;
}

/** Throws 403 ACCESS_DENIED unless the account has one of `roles`. */
export function requireRole(account: DashboardAccount, ...roles: Exclude<Role, 'MEMBER'>[]): void {
  if (!roles.includes(account.role)) throw new ApiError('ACCESS_DENIED');
}

/**
 * `onRequest` hook of the staff routes that read: ADMIN or SUPPORT, else 403 ACCESS_DENIED. Async
 * on purpose: a synchronous Fastify hook would have to call `done`.
 */
export const staffRead = async (request: FastifyRequest): Promise<void> => requireRole(requireAccount(request), 'ADMIN', 'SUPPORT');

/** `onRequest` hook of the staff routes that change something: ADMIN only, else 403 ACCESS_DENIED. */
export const adminOnly = async (request: FastifyRequest): Promise<void> => requireRole(requireAccount(request), 'ADMIN');

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

/**
 * The audit actor of a request: the signed-in person (a member is named by its own account id,
 * with its team role as `actorRole`; the owner and staff by their account and role) and the
 * client IP.
 */
export function auditActor(request: FastifyRequest) {
  const account = request.account;
  const isMember = account !== undefined && account.personId !== account.accountId;
  return { actorId: account?.personId ?? null, actorRole: (isMember ? `MEMBER_${account.memberRole}` : account?.role) ?? null, clientIp: request.ip ?? null };
}
