/**
 * Dashboard tables: login sessions and their refresh tokens, one-time codes, the failed-attempt
 * counters that throttle logins and code guesses, and the audit log.
 * Every secret (refresh token, code, reset token) is stored only as a SHA-256 hex digest.
 */
import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A login session (a "family" of refresh tokens). Revoking it (logout, password change, reuse
 * of a used refresh token) kills every refresh token and every access token of the family:
 * access tokens carry the session id and the auth hook checks `revokedAt`.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id),
    revokedAt: ts('revoked_at'),
    revokedReason: text('revoked_reason'),
    /** When the session's person last proved their second factor (sign-in or step-up); null: never. */
    secondFactorAt: ts('second_factor_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('dashboard_sessions_account_idx').on(t.accountId)],
);

/** Refresh tokens: single use, rotated on every refresh; `usedAt` set means already rotated. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => dashboardSessions.id),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_key').on(t.tokenHash)],
);

/**
 * One-time codes and reset tokens. `purpose` is VERIFY_EMAIL, RESET_PASSWORD (the 6-digit code)
 * or RESET_TOKEN (the token handed out after a good reset code). Single use: `consumedAt`.
 */
export const authCodes = pgTable(
  'auth_codes',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id),
    purpose: text('purpose').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('auth_codes_account_purpose_idx').on(t.accountId, t.purpose), index('auth_codes_hash_idx').on(t.codeHash)],
);

/**
 * Failed-attempt counters (login per e-mail, code guesses per e-mail and purpose). Kept in the
 * database so every instance sees the same count.
 */
export const authThrottle = pgTable('auth_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: ts('window_started_at').notNull(),
  lockedUntil: ts('locked_until'),
});

/** Audit log of every state-changing dashboard action; `before`/`after` never hold secrets. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actorId: uuid('actor_id'),
    actorRole: text('actor_role'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    clientIp: text('client_ip'),
    /** `X-Request-Id` of the request that did it (request-context.ts); null outside a request. */
    requestId: text('request_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('audit_log_created_idx').on(t.createdAt)],
);

/**
 * An account's TOTP second factor (RFC 6238): the shared secret sealed with the instance's
 * at-rest key (webhooks/secret-box.ts, never stored in clear), `enabledAt` null while the
 * enrolment awaits its first code, and the last time step accepted (a code is never accepted twice).
 */
export const secondFactors = pgTable('second_factors', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id),
  secretSealed: text('secret_sealed').notNull(),
  enabledAt: ts('enabled_at'),
  lastStep: bigint('last_step', { mode: 'number' }),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/** Single-use recovery codes of a second factor, stored only as SHA-256 hex digests. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id),
    codeHash: text('code_hash').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('recovery_codes_hash_key').on(t.accountId, t.codeHash)],
);
