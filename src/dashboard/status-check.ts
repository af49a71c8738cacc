/**
 * "Ask the operator now" from the dashboard: one PENDING transaction of the merchant refreshed
 * at once, by the same code as the poller (`refreshTransaction`; checkouts through their own
 * refresh). The operator's answer is applied as the poller would apply it: SUCCEEDED / FAILED
 * move the transaction, while an ambiguous answer (PENDING, unreachable, a timeout, an error)
 * leaves it PENDING with its next poll scheduled. A final transaction is not asked about.
 *
 * Bounded: at most one check per transaction every `STATUS_CHECK_INTERVAL_MS`, counted in the
 * database (`auth_throttle`, key `status-check:<transaction id>`) so every instance shares the
 * same bound; a check too soon is 429 TOO_MANY_REQUESTS with `Retry-After` in seconds. The slot
 * of a transaction this check ends is deleted (a final transaction needs none).
 */
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { applications, transactions } from '../db/schema.ts';
import { authThrottle } from '../db/schema-dashboard.ts';
import { ApiError } from '../domain/errors.ts';
import { type RefreshOutcome, refreshTransaction } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { merchantTransactionWhere } from './transactions.ts';

/** The shortest interval between two checks of the same transaction, in milliseconds. */
export const STATUS_CHECK_INTERVAL_MS = 5_000;

/** What a check did: `FINAL` when the transaction had already ended (nothing was asked). */
export type StatusCheckOutcome = RefreshOutcome | 'FINAL' | 'ERROR';

/**
 * Asks the operator about the transaction `idOrReference` (UUID or reference) of `merchantId`'s
 * applications, now, and applies its answer. Throws 404 TRANSACTION_NOT_FOUND when it is not
 * the merchant's (or does not exist), 429 TOO_MANY_REQUESTS when it was checked less than
 * `STATUS_CHECK_INTERVAL_MS` ago. An error while asking is logged and leaves the transaction
 * PENDING (outcome `ERROR`): the poller asks again later.
 */
export async function checkTransactionNow(services: Services, merchantId: string, idOrReference: string): Promise<StatusCheckOutcome> {
  const [found] = await services.db
    .select({ id: transactions.id, status: transactions.status })
    .from(transactions)
    .innerJoin(applications, eq(applications.id, transactions.applicationId))
    .where(merchantTransactionWhere(merchantId, idOrReference))
    .limit(1);
  if (!found) throw new ApiError('TRANSACTION_NOT_FOUND');
  if (found.status !== 'PENDING') return 'FINAL';
  await takeCheckSlot(services, found.id);

  // Leased like a poller claim, so the poller does not ask about it at the same time.
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  const claimed = await services.db
    .update(transactions)
    .set({ nextPollAt: lease })
    .where(and(eq(transactions.id, found.id), eq(transactions.status, 'PENDING')))
    .returning();
  const row = claimed[0];
  if (!row) return 'FINAL';
  try {
    const outcome = await refreshTransaction(services, row);
    // Ended: never checked again (a final transaction answers without a slot), so its slot goes.
    if (outcome === 'SUCCESS' || outcome === 'FAILED' || outcome === 'EXPIRED') await releaseCheckSlot(services, row.id);
    return outcome;
  } catch (error) {
    services.log.error({ err: error, reference: row.reference }, 'status check from the dashboard failed; left PENDING');
    // Due again at once for the poller: the lease would otherwise delay its next question.
    await services.db
      .update(transactions)
      .set({ nextPollAt: now })
      .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')));
    return 'ERROR';
  }
}

/**
 * Takes the transaction's check slot for `STATUS_CHECK_INTERVAL_MS`, in one upsert (atomic
 * across instances); throws 429 TOO_MANY_REQUESTS with `Retry-After` when it is still taken.
 */
async function takeCheckSlot(services: Pick<Services, 'db' | 'clock'>, transactionId: string): Promise<void> {
  const key = `status-check:${transactionId}`;
  const now = services.clock.now();
  const until = new Date(now.getTime() + STATUS_CHECK_INTERVAL_MS);
  const taken = await services.db
    .insert(authThrottle)
    .values({ key, failures: 0, windowStartedAt: now, lockedUntil: until })
    .onConflictDoUpdate({
      target: authThrottle.key,
      set: { windowStartedAt: now, lockedUntil: until },
      setWhere: or(isNull(authThrottle.lockedUntil), lte(authThrottle.lockedUntil, sql`${now.toISOString()}::timestamptz`)),
    })
    .returning({ key: authThrottle.key });
  if (taken.length > 0) return;
  const [slot] = await services.db.select({ lockedUntil: authThrottle.lockedUntil }).from(authThrottle).where(eq(authThrottle.key, key));
  const waitMs = Math.max(0, (slot?.lockedUntil?.getTime() ?? now.getTime()) - now.getTime());
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  throw new ApiError('TOO_MANY_REQUESTS', {
    message: `Cette transaction vient d'être vérifiée. Réessayez dans ${seconds} seconde(s).`,
    headers: { 'retry-after': String(seconds) },
  });
}

/** Forgets a transaction's check slot (it has ended). */
async function releaseCheckSlot(services: Pick<Services, 'db'>, transactionId: string): Promise<void> {
  await services.db.delete(authThrottle).where(eq(authThrottle.key, `status-check:${transactionId}`));
}
