/**
 * Dashboard tokens: short-lived HS256 access JWTs (jose) and opaque refresh tokens stored only as
 * SHA-256 digests, single use and rotated on every refresh. Reusing a refresh token that was
 * already rotated revokes the whole session (COMPROMISED_SESSION), which also kills the session's
 * access tokens: they carry the session id (`sid`) and the auth hook checks that the session is not
 * revoked. One exception keeps two tabs (or a reload during a load) from signing the member out:
 * a token presented again within `REFRESH_REUSE_GRACE_MS` of its rotation gets the same successor
 * it was rotated to (derived from it with an HMAC, so nothing more is stored) and a fresh access
 * token.
 */
import { createHash, createHmac } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { type Db, transaction } from '../db/client.ts';
import { dashboardSessions, refreshTokens } from '../db/schema-dashboard.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { jwtSecret } from './jwt-secret.ts';

/** A dashboard account's role: a merchant account, staff, or a member of a merchant's team. */
export type Role = 'MERCHANT' | 'ADMIN' | 'SUPPORT' | 'MEMBER';

/** Claims of an access token. */
export interface AccessClaims {
  accountId: string;
  role: Role;
  email: string;
  sessionId: string;
}

/** An access token and a refresh token, as returned by login and refresh. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

const ISSUER = 'kolo';
const AUDIENCE = 'kolo-dashboard';
const REFRESH_PATTERN = /^rt_[0-9a-f]{64}$/;

/** SHA-256 hex digest of an opaque token or code. */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Signs an access token valid `accessTokenTtlMinutes` from the injected clock. */
export async function signAccessToken(services: Pick<Services, 'config' | 'clock'>, claims: AccessClaims): Promise<string> {
  const nowSeconds = Math.floor(services.clock.now().getTime() / 1000);
  return new SignJWT({ role: claims.role, email: claims.email, sid: claims.sessionId, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.accountId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + services.config.accessTokenTtlMinutes * 60)
    .sign(jwtSecret(services.config));
}

/**
 * Verifies an access token against the injected clock. Throws 401 TOKEN_EXPIRED when expired,
 * INVALID_TOKEN_TYPE for a token that is not an access token, INVALID_TOKEN otherwise.
 */
export async function verifyAccessToken(services: Pick<Services, 'config' | 'clock'>, token: string): Promise<AccessClaims> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, jwtSecret(services.config), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: services.clock.now(),
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new ApiError('TOKEN_EXPIRED');
    throw new ApiError('INVALID_TOKEN');
  }
  if (payload.typ !== 'access') throw new ApiError('INVALID_TOKEN_TYPE');
  const role = payload.role;
  if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.email !== 'string') {
    throw new ApiError('INVALID_TOKEN');
  }
  if (role !== 'MERCHANT' && role !== 'ADMIN' && role !== 'SUPPORT' && role !== 'MEMBER') throw new ApiError('INVALID_TOKEN');
  return { accountId: payload.sub, role, email: payload.email, sessionId: payload.sid };
}

/**
 * How long after its rotation a refresh token still gets its successor instead of revoking the
 * session: long enough for two tabs restored at once or a reload during a load, short enough that
 * a token stolen from a log or a disk is worth nothing once its browser has moved on.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

/**
 * The refresh token a rotation of `token` issues: `rt_` + HMAC-SHA256(JWT secret, token) in hex.
 * Deterministic, so a reuse within the grace period gets the very same successor without its text
 * being stored; unguessable without the server's secret.
 */
function successorOf(config: Services['config'], token: string): string {
  return `rt_${createHmac('sha256', jwtSecret(config)).update(`refresh-successor:${token}`).digest('hex')}`;
}

async function newRefreshToken(services: Pick<Services, 'config' | 'clock' | 'ids'>, db: Db, sessionId: string, predecessor?: string): Promise<string> {
  const token = predecessor === undefined ? `rt_${services.ids.hex(32)}` : successorOf(services.config, predecessor);
  const now = services.clock.now();
  await db.insert(refreshTokens).values({
    id: services.ids.uuid(),
    sessionId,
    tokenHash: digest(token),
    expiresAt: new Date(now.getTime() + services.config.refreshTokenTtlDays * 86_400_000),
    createdAt: now,
  });
  return token;
}

/**
 * Opens a new session for an account and returns its first token pair; `secondFactor`: the
 * sign-in proved the account's second factor (the session starts fresh for sensitive actions).
 */
export async function openSession(
  services: Pick<Services, 'config' | 'clock' | 'ids' | 'db'>,
  account: { id: string; role: string; email: string },
  options: { secondFactor?: boolean } = {},
): Promise<TokenPair> {
  const sessionId = services.ids.uuid();
  const now = services.clock.now();
  await services.db.insert(dashboardSessions).values({ id: sessionId, accountId: account.id, createdAt: now, secondFactorAt: options.secondFactor ? now : null });
  const refreshToken = await newRefreshToken(services, services.db, sessionId);
  const accessToken = await signAccessToken(services, {
    accountId: account.id,
    role: account.role as Role,
    email: account.email,
    sessionId,
  });
  return { accessToken, refreshToken };
}

/** Revokes one session (idempotent). */
export async function revokeSession(db: Db, sessionId: string, reason: string, now: Date): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(dashboardSessions.id, sessionId), isNull(dashboardSessions.revokedAt)));
}

/** Revokes every open session of an account (password change or reset, suspension). */
export async function revokeAccountSessions(db: Db, accountId: string, reason: string, now: Date): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(dashboardSessions.accountId, accountId), isNull(dashboardSessions.revokedAt)));
}

/**
 * Exchanges a refresh token for a new pair. The compare-and-set on `usedAt` makes two
 * concurrent uses of one token end with exactly one rotation; the other use, like any use within
 * `REFRESH_REUSE_GRACE_MS` of the rotation, gets the same successor refresh token (and its own
 * access token). A use after that window revokes the session and gets 401 COMPROMISED_SESSION.
 * Unknown or malformed → 401 INVALID_REFRESH_TOKEN; past expiry or session closed → 401
 * EXPIRED_SESSION; account no longer ACTIVE → 403 ACCOUNT_NOT_ACTIVE.
 */
export async function refreshSession(services: Pick<Services, 'config' | 'clock' | 'ids' | 'db'>, token: string): Promise<TokenPair> {
  if (!REFRESH_PATTERN.test(token)) throw new ApiError('INVALID_REFRESH_TOKEN');
  const now = services.clock.now();
  const [row] = await services.db
    .select({
      id: refreshTokens.id,
      sessionId: refreshTokens.sessionId,
      expiresAt: refreshTokens.expiresAt,
      usedAt: refreshTokens.usedAt,
      revokedAt: dashboardSessions.revokedAt,
      accountId: accounts.id,
      role: accounts.role,
      email: accounts.email,
      status: accounts.status,
    })
    .from(refreshTokens)
    .innerJoin(dashboardSessions, eq(dashboardSessions.id, refreshTokens.sessionId))
    .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
    .where(eq(refreshTokens.tokenHash, digest(token)));
  if (!row) throw new ApiError('INVALID_REFRESH_TOKEN');
  const withinGrace = (usedAt: Date) => now.getTime() - usedAt.getTime() <= REFRESH_REUSE_GRACE_MS;
  if (row.usedAt && !withinGrace(row.usedAt)) {
    await revokeSession(services.db, row.sessionId, 'REFRESH_TOKEN_REUSED', now);
    throw new ApiError('COMPROMISED_SESSION');
  }
  if (row.revokedAt || row.expiresAt.getTime() <= now.getTime()) throw new ApiError('EXPIRED_SESSION');
  if (row.status !== 'ACTIVE') throw new ApiError('ACCOUNT_NOT_ACTIVE');
  if (row.usedAt) return sameSuccessor(services, token, row);
  const rotated = await transaction(services.db, async (tx) => {
    const claimed = await tx
      .update(refreshTokens)
      .set({ usedAt: now })
      .where(and(eq(refreshTokens.id, row.id), isNull(refreshTokens.usedAt)))
      .returning({ id: refreshTokens.id });
    if (claimed.length === 0) return null;
    const refreshToken = await newRefreshToken(services, tx, row.sessionId, token);
    const accessToken = await signAccessToken(services, {
      accountId: row.accountId,
      role: row.role as Role,
      email: row.email,
      sessionId: row.sessionId,
    });
    return { accessToken, refreshToken };
  });
  // Lost the race to a concurrent use of the same token (two tabs): the winner's successor.
  return rotated ?? sameSuccessor(services, token, row);
}

/**
 * The answer to a refresh token used again within the grace period (or concurrently): the
 * successor its rotation stored, with a new access token. A successor that is not there (the
 * token was rotated before successors were derived) is a reuse: the session is revoked.
 */
async function sameSuccessor(
  services: Pick<Services, 'config' | 'clock' | 'db'>,
  token: string,
  row: { sessionId: string; accountId: string; role: string; email: string },
): Promise<TokenPair> {
  const refreshToken = successorOf(services.config, token);
  const [successor] = await services.db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.tokenHash, digest(refreshToken)), eq(refreshTokens.sessionId, row.sessionId)));
  if (!successor) {
    await revokeSession(services.db, row.sessionId, 'REFRESH_TOKEN_REUSED', services.clock.now());
    throw new ApiError('COMPROMISED_SESSION');
  }
  const accessToken = await signAccessToken(services, { accountId: row.accountId, role: row.role as Role, email: row.email, sessionId: row.sessionId });
  return { accessToken, refreshToken };
}

/** Closes the session of a refresh token (logout). Unknown or malformed → 401 INVALID_REFRESH_TOKEN. */
export async function closeSession(services: Pick<Services, 'clock' | 'db'>, token: string): Promise<{ accountId: string; sessionId: string }> {
  if (!REFRESH_PATTERN.test(token)) throw new ApiError('INVALID_REFRESH_TOKEN');
  const [row] = await services.db
    .select({ sessionId: refreshTokens.sessionId, accountId: dashboardSessions.accountId })
    .from(refreshTokens)
    .innerJoin(dashboardSessions, eq(dashboardSessions.id, refreshTokens.sessionId))
    .where(eq(refreshTokens.tokenHash, digest(token)));
  if (!row) throw new ApiError('INVALID_REFRESH_TOKEN');
  await revokeSession(services.db, row.sessionId, 'LOGOUT', services.clock.now());
  return row;
}
