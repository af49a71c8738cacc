/**
 * One-time codes (e-mail verification, password reset) and reset tokens: 6 random digits,
 * stored only as a digest, expiring after `otpTtlMinutes`, single use (compare-and-set on
 * `consumedAt`), a new code replacing the previous one. Wrong guesses are throttled per account
 * and purpose (see throttle.ts).
 */
import { randomInt } from 'node:crypto';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { authCodes } from '../db/schema-dashboard.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { assertNotThrottled, clearFailures, recordFailure } from './throttle.ts';
import { digest } from './tokens.ts';
import { transaction } from '../db/client.ts';

/** What a code is for. */
export type CodePurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'RESET_TOKEN';

type Deps = Pick<Services, 'db' | 'clock' | 'ids' | 'config'>;
const RESET_TOKEN_TTL_MS = 15 * 60_000;

function codeDigest(accountId: string, purpose: CodePurpose, code: string): string {
  return digest(`${purpose}:${accountId}:${code}`);
}

/** Issues a fresh 6-digit code (previous unused ones of the same purpose stop working). */
export async function issueCode(services: Deps, accountId: string, purpose: 'VERIFY_EMAIL' | 'RESET_PASSWORD'): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = services.clock.now();
  await transaction(services.db, async (tx) => {
    await tx
      .update(authCodes)
      .set({ consumedAt: now })
      .where(and(eq(authCodes.accountId, accountId), eq(authCodes.purpose, purpose), isNull(authCodes.consumedAt)));
    await tx.insert(authCodes).values({
      id: services.ids.uuid(),
      accountId,
      purpose,
      codeHash: codeDigest(accountId, purpose, code),
      expiresAt: new Date(now.getTime() + services.config.otpTtlMinutes * 60_000),
      createdAt: now,
    });
  });
  return code;
}

/**
 * Consumes `code`. Throws 429 while guesses are locked, 404 OTP_NOT_FOUND when no code is
 * pending, 400 OTP_EXPIRED past its expiry, 400 OTP_INVALID for a wrong code (counted).
 */
export async function consumeCode(services: Deps, accountId: string, purpose: 'VERIFY_EMAIL' | 'RESET_PASSWORD', code: string): Promise<void> {
  const throttleKey = `otp:${purpose}:${accountId}`;
  await assertNotThrottled(services, throttleKey);
  const [pending] = await services.db
    .select()
    .from(authCodes)
    .where(and(eq(authCodes.accountId, accountId), eq(authCodes.purpose, purpose), isNull(authCodes.consumedAt)))
    .orderBy(desc(authCodes.createdAt))
    .limit(1);
  if (!pending) throw new ApiError('OTP_NOT_FOUND');
  const now = services.clock.now();
  if (pending.expiresAt.getTime() <= now.getTime()) throw new ApiError('OTP_EXPIRED');
  if (pending.codeHash !== codeDigest(accountId, purpose, code)) {
    await recordFailure(services, throttleKey);
    throw new ApiError('OTP_INVALID');
  }
  const claimed = await services.db
    .update(authCodes)
    .set({ consumedAt: now })
    .where(and(eq(authCodes.id, pending.id), isNull(authCodes.consumedAt)))
    .returning({ id: authCodes.id });
  if (claimed.length === 0) throw new ApiError('OTP_INVALID');
  await clearFailures(services, throttleKey);
}

/** Issues a single-use reset token (15 minutes) after a good reset code. */
export async function issueResetToken(services: Deps, accountId: string): Promise<string> {
  const token = `rst_${services.ids.hex(32)}`;
  const now = services.clock.now();
  await services.db.insert(authCodes).values({
    id: services.ids.uuid(),
    accountId,
    purpose: 'RESET_TOKEN',
    codeHash: digest(token),
    expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
    createdAt: now,
  });
  return token;
}

/** Consumes a reset token and returns its account id; 400 INVALID_RESET_TOKEN otherwise. */
export async function consumeResetToken(services: Deps, token: string): Promise<string> {
  if (!/^rst_[0-9a-f]{64}$/.test(token)) throw new ApiError('INVALID_RESET_TOKEN');
  const now = services.clock.now();
  const [row] = await services.db
    .update(authCodes)
    .set({ consumedAt: now })
    .where(
      and(eq(authCodes.codeHash, digest(token)), eq(authCodes.purpose, 'RESET_TOKEN'), isNull(authCodes.consumedAt), gt(authCodes.expiresAt, now)),
    )
    .returning({ accountId: authCodes.accountId });
  if (!row) throw new ApiError('INVALID_RESET_TOKEN');
  return row.accountId;
}
