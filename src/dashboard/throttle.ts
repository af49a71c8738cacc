/**
 * Throttling of failed logins and code guesses: a counter per key (e.g. `login:<email>`) in the
 * database, so every instance sees the same count. After `authMaxFailures` failures inside a window
 * of `authLockoutMinutes`, the key is locked for `authLockoutMinutes`: 429 TOO_MANY_REQUESTS with
 * `Retry-After` in seconds.
 */
import { eq, sql } from 'drizzle-orm';
import { authThrottle } from '../db/schema-dashboard.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

type Deps = Pick<Services, 'db' | 'clock' | 'config'>;

function tooMany(retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError('TOO_MANY_REQUESTS', {
    message: `Trop de tentatives. Réessayez dans ${Math.ceil(seconds / 60)} minute(s).`,
    headers: { 'retry-after': String(seconds) },
  });
}

/** Throws 429 (with Retry-After) while `key` is locked. */
export async function assertNotThrottled(services: Deps, key: string): Promise<void> {
  const [row] = await services.db.select({ lockedUntil: authThrottle.lockedUntil }).from(authThrottle).where(eq(authThrottle.key, key));
  const now = services.clock.now().getTime();
  if (row?.lockedUntil && row.lockedUntil.getTime() > now) throw tooMany(row.lockedUntil.getTime() - now);
}

/**
 * Counts one failure for `key` in a single upsert (atomic across instances); locks the key when
 * the count reaches `max` (default `authMaxFailures`). A window older than the lockout period starts over.
 */
export async function recordFailure(services: Deps, key: string, max: number = services.config.authMaxFailures): Promise<void> {
  const now = services.clock.now();
  const windowMs = services.config.authLockoutMinutes * 60_000;
  const windowStart = new Date(now.getTime() - windowMs);
  const lockUntil = new Date(now.getTime() + windowMs);
  const fresh = sql`${authThrottle.windowStartedAt} < ${windowStart.toISOString()}::timestamptz`;
  const next = sql`(case when ${fresh} then 1 else ${authThrottle.failures} + 1 end)`;
  await services.db
    .insert(authThrottle)
    .values({ key, failures: 1, windowStartedAt: now, lockedUntil: max <= 1 ? lockUntil : null })
    .onConflictDoUpdate({
      target: authThrottle.key,
      set: {
        failures: next,
        windowStartedAt: sql`(case when ${fresh} then ${now.toISOString()}::timestamptz else ${authThrottle.windowStartedAt} end)`,
        lockedUntil: sql`(case when ${next} >= ${max} then ${lockUntil.toISOString()}::timestamptz else ${authThrottle.lockedUntil} end)`,
      },
    });
}

/** Forgets the failures of `key` (after a success). */
export async function clearFailures(services: Pick<Services, 'db'>, key: string): Promise<void> {
  await services.db.delete(authThrottle).where(eq(authThrottle.key, key));
}

/**
 * Counts one use of a rate-limited action (sending a code) and throws 429 once `key` has been
 * used `authMaxFailures` times in the window.
 */
export async function consumeQuota(services: Deps, key: string): Promise<void> {
  await assertNotThrottled(services, key);
  await recordFailure(services, key);
}
