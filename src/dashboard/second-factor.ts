/**
 * Two-factor sign-in with TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, as every
 * authenticator app reads an `otpauth://` URI), computed by the `otpauth` library. The shared
 * secret is sealed at rest with the instance's AES-256-GCM key (`services.webhookSecretBox`); ten
 * single-use recovery codes are shown once and stored as SHA-256 digests. A code is accepted one
 * step either side of now (clock drift) and never twice (`lastStep`).
 *
 * Who must have one: every team member whose role moves money out or approves it (administrator,
 * finance, approver: `movesMoneyOut`), every member of a merchant that asks it, and staff in
 * production. Until enrolled they may only read and manage their own profile and second factor
 * (the guard in http/dashboard-auth.ts). Anyone else may enrol. Once enrolled, sign-in asks for a code
 * and the sensitive actions (`STEP_UP_MS`) ask for a fresh one.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { transaction } from '../db/client.ts';
import { dashboardSessions, recoveryCodes, secondFactors } from '../db/schema-dashboard.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { digest } from './tokens.ts';

/** How recent a second factor must be for a sensitive action: 5 minutes. */
export const STEP_UP_MS = 5 * 60_000;
/** Recovery codes issued at enrolment. */
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Kolo';
const PERIOD_S = 30;

type SecondFactorServices = Pick<Services, 'db' | 'clock' | 'webhookSecretBox'>;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** Whether `accountId` has an enabled second factor. */
export async function hasSecondFactor(db: Services['db'], accountId: string): Promise<boolean> {
  const [row] = await db.select({ enabledAt: secondFactors.enabledAt }).from(secondFactors).where(eq(secondFactors.accountId, accountId));
  return row?.enabledAt != null;
}

/**
 * Starts (or restarts) an enrolment: a new 160-bit secret, sealed, not yet enabled. Returns the
 * base32 secret and the `otpauth://` URI the app's QR code carries. Throws 409
 * SECOND_FACTOR_ALREADY_ENABLED when one is already enabled (disable it first).
 */
export async function startEnrolment(services: SecondFactorServices, account: { id: string; email: string }): Promise<{ secret: string; otpauthUri: string }> {
  if (await hasSecondFactor(services.db, account.id)) throw new ApiError('SECOND_FACTOR_ALREADY_ENABLED');
  const secret = new Secret({ size: 20 }).base32;
  const now = services.clock.now();
  const sealed = services.webhookSecretBox.seal(secret);
  await services.db
    .insert(secondFactors)
    .values({ accountId: account.id, secretSealed: sealed, enabledAt: null, lastStep: null, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: secondFactors.accountId, set: { secretSealed: sealed, enabledAt: null, lastStep: null, updatedAt: now } });
  return { secret, otpauthUri: totpOf(secret, account.email).toString() };
}

/**
 * Checks a 6-digit `code` against the account's secret (enabled, or pending when `pending`) and
 * records its step so it cannot serve again. Returns false for a wrong, replayed or absent one.
 */
async function acceptCode(services: SecondFactorServices, accountId: string, code: string, pending: boolean): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const [row] = await services.db.select().from(secondFactors).where(eq(secondFactors.accountId, accountId));
  if (!row || (row.enabledAt === null) !== pending) return false;
  const nowMs = services.clock.now().getTime();
  const delta = totpOf(services.webhookSecretBox.open(row.secretSealed), 'x').validate({ token: code, timestamp: nowMs, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(nowMs / 1000 / PERIOD_S) + delta;
  if (row.lastStep !== null && step <= row.lastStep) return false;
  // Compare-and-set on the step: two concurrent uses of one code, one wins.
  const claimed = await services.db
    .update(secondFactors)
    .set({ lastStep: step, updatedAt: services.clock.now() })
    .where(and(eq(secondFactors.accountId, accountId), row.lastStep === null ? isNull(secondFactors.lastStep) : eq(secondFactors.lastStep, row.lastStep)))
    .returning({ accountId: secondFactors.accountId });
  return claimed.length === 1;
}

/**
 * Confirms the enrolment with a first code: enables the second factor and issues the recovery
 * codes (returned once, `xxxxx-xxxxx` lowercase hex). Throws 400 SECOND_FACTOR_INVALID for a
 * wrong code or no pending enrolment.
 */
export async function confirmEnrolment(services: SecondFactorServices & Pick<Services, 'ids' | 'requestId'>, accountId: string, code: string, actor: AuditActor): Promise<{ recoveryCodes: string[] }> {
  if (!(await acceptCode(services, accountId, code, true))) throw new ApiError('SECOND_FACTOR_INVALID');
  const now = services.clock.now();
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = randomBytes(5).toString('hex');
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
  await transaction(services.db, async (tx) => {
    await tx.update(secondFactors).set({ enabledAt: now, updatedAt: now }).where(eq(secondFactors.accountId, accountId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.accountId, accountId));
    await tx.insert(recoveryCodes).values(codes.map((c) => ({ id: services.ids.uuid(), accountId, codeHash: digest(c), createdAt: now })));
    await recordAudit({ ...services, db: tx }, actor, { action: 'SECOND_FACTOR_ENABLED', targetType: 'ACCOUNT', targetId: accountId });
  });
  return { recoveryCodes: codes };
}

/**
 * Proves the second factor with a TOTP code or a recovery code (spent). Throws 401
 * SECOND_FACTOR_INVALID when neither matches.
 */
export async function proveSecondFactor(services: SecondFactorServices, accountId: string, input: { code?: string | undefined; recoveryCode?: string | undefined }): Promise<void> {
  if (input.code !== undefined && (await acceptCode(services, accountId, input.code.trim(), false))) return;
  if (input.recoveryCode !== undefined) {
    const spent = await services.db
      .update(recoveryCodes)
      .set({ usedAt: services.clock.now() })
      .where(and(eq(recoveryCodes.accountId, accountId), eq(recoveryCodes.codeHash, digest(input.recoveryCode.trim().toLowerCase())), isNull(recoveryCodes.usedAt)))
      .returning({ id: recoveryCodes.id });
    if (spent.length === 1) return;
  }
  throw new ApiError('SECOND_FACTOR_INVALID');
}

/** Records on `sessionId` that its person just proved their second factor. */
export async function markSecondFactor(services: Pick<Services, 'db' | 'clock'>, sessionId: string): Promise<void> {
  await services.db.update(dashboardSessions).set({ secondFactorAt: services.clock.now() }).where(eq(dashboardSessions.id, sessionId));
}

/** Disables the second factor after a code proves it (its recovery codes go too). */
export async function disableSecondFactor(services: SecondFactorServices & Pick<Services, 'requestId'>, accountId: string, proof: { code?: string; recoveryCode?: string }, actor: AuditActor): Promise<void> {
  await proveSecondFactor(services, accountId, proof);
  await transaction(services.db, async (tx) => {
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.accountId, accountId));
    await tx.delete(secondFactors).where(eq(secondFactors.accountId, accountId));
    await recordAudit({ ...services, db: tx }, actor, { action: 'SECOND_FACTOR_DISABLED', targetType: 'ACCOUNT', targetId: accountId });
  });
}
