/**
 * The backstop for a PENDING checkout (the CHECKOUT branch of `refresh-transaction.ts`), also
 * run by the hosted page when it is read:
 * 1. the attempt in flight, when due (or when the session has ended: one last question), is
 *    asked about at its rail: success → attempt SUCCEEDED and checkout SUCCESS; decline or
 *    NOT_FOUND → attempt FAILED, checkout stays PENDING (the customer may retry) — NOT_FOUND only
 *    once none of the attempt's requests can still reach the operator (initiation-window.ts);
 *    no answer past the rail's deadline → attempt FAILED (TIMEOUT / PROVIDER_UNAVAILABLE);
 * 2. a checkout whose session has ended fails with SESSION_EXPIRED — but only once no attempt is
 *    in flight: while the operator may still move the customer's money, expiring would record
 *    an ambiguous outcome as FAILED. The wait is bounded by the attempt's rail deadline, after
 *    which the attempt fails (TIMEOUT / PROVIDER_UNAVAILABLE) and the session expires;
 * 3. otherwise the checkout's next poll is the in-flight attempt's, or the session's end.
 * Readers "claim" an attempt by pushing its `next_poll_at` ahead (compare-and-set), so many
 * page reads cost at most one operator call per poll interval.
 */
import { and, eq, lte } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import { closeCheckout } from './close-checkout.ts';
import { failAttempt, findPendingAttempt, succeedAttempt, type CheckoutAttemptRow } from './checkout-attempt-records.ts';
import { withTimeout } from './initiate-transaction.ts';
import { conclusiveStatus, initiationStateOf } from './initiation-window.ts';
import { nextAskAt, nextPollDelayMs } from './poll-schedule.ts';
import { findActiveRail } from './rails.ts';
import type { RefreshOutcome } from './refresh-transaction.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Options: `forcePoll` asks about the in-flight attempt even when it is not due (before a cancel). */
export interface RefreshCheckoutOptions {
  forcePoll?: boolean;
}

/** Refreshes one CHECKOUT transaction row. Never throws for operator outcomes. */
export async function refreshCheckout(services: Services, row: TransactionRow, options: RefreshCheckoutOptions = {}): Promise<RefreshOutcome> {
  if (row.status !== 'PENDING') return 'SKIPPED';
  const now = services.clock.now();
  const isExpired = row.expiresAt !== null && row.expiresAt <= now;
  let attempt = await findPendingAttempt(services.db, row.id);
  if (attempt) {
    const isDue = attempt.nextPollAt !== null && attempt.nextPollAt <= now;
    if (options.forcePoll || (isDue && (await claimAttempt(services, attempt, now)))) {
      const outcome = await pollAttempt(services, row, attempt);
      if (outcome === 'SUCCESS') return 'SUCCESS';
      attempt = outcome === 'PENDING' ? attempt : null;
    }
  }
  if (isExpired && !attempt) {
    // Decided again under the checkout's row lock: an attempt that started meanwhile wins.
    const result = await closeCheckout(services, row.id, 'EXPIRY');
    if ('closed' in result) return 'EXPIRED';
    if (result.refused === 'NOT_PENDING') return 'SKIPPED';
    attempt = await findPendingAttempt(services.db, row.id);
  }
  const pending = attempt ? await findPendingAttempt(services.db, row.id) : null;
  let next = isExpired ? (pending?.nextPollAt ?? now) : (row.expiresAt ?? new Date(now.getTime() + 60_000));
  if (pending?.nextPollAt && pending.nextPollAt < next) next = pending.nextPollAt;
  await services.db
    .update(transactions)
    .set({ nextPollAt: next })
    .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')));
  return 'STILL_PENDING';
}

/**
 * The backstop for one attempt in flight, already leased by the caller (the poller claims every
 * PENDING attempt when due, whatever its checkout's state, so that no request sent to an
 * operator is ever left unasked). Polls it, then, when its checkout is still PENDING, runs the
 * checkout's own backstop (session end, next poll). An attempt whose checkout already ended is
 * still resolved: a success there is a late success (`succeedAttempt` → 'LATE').
 */
export async function refreshAttempt(services: Services, attempt: CheckoutAttemptRow): Promise<RefreshOutcome> {
  const [row] = await services.db.select().from(transactions).where(eq(transactions.id, attempt.transactionId)).limit(1);
  if (!row) throw new Error(`checkout attempt ${attempt.id} has no transaction`);
  const outcome = await pollAttempt(services, row, attempt);
  if (outcome === 'SUCCESS') return 'SUCCESS';
  if (row.status !== 'PENDING') return outcome === 'PENDING' ? 'STILL_PENDING' : 'FAILED';
  const [fresh] = await services.db.select().from(transactions).where(eq(transactions.id, row.id)).limit(1);
  return fresh ? refreshCheckout(services, fresh) : 'SKIPPED';
}

/** Leases a due attempt to this caller for one connector timeout; false when another caller has it. */
async function claimAttempt(services: Pick<Services, 'db' | 'config'>, attempt: CheckoutAttemptRow, now: Date): Promise<boolean> {
  const claimed = await services.db
    .update(checkoutAttempts)
    .set({ nextPollAt: new Date(now.getTime() + services.config.connectorTimeoutMs + 1000) })
    .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING'), lte(checkoutAttempts.nextPollAt, now)))
    .returning({ id: checkoutAttempts.id });
  return claimed.length === 1;
}

/** Asks the rail about `attempt` and records the answer. */
async function pollAttempt(services: Services, row: TransactionRow, attempt: CheckoutAttemptRow): Promise<'SUCCESS' | 'FAILED' | 'PENDING'> {
  const now = services.clock.now();
  const rail = await findActiveRail(services.db, attempt.railCode);
  const connector = rail ? resolveConnector(services.connectors, rail.code, row.environment as Environment) : null;
  if (!rail || !connector) {
    services.log.error({ reference: row.reference, rail: attempt.railCode }, 'rail of a checkout attempt is unavailable');
    await reschedule(services, attempt, now);
    return 'PENDING';
  }
  // Taken before the question: only an answer given after `inFlightUntil` proves it never landed.
  const initiation = initiationStateOf(attempt, now);
  const query = {
    direction: 'PAY_IN' as const,
    reference: attempt.correlationId,
    operatorReference: attempt.operatorReference,
    rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
    msisdn: attempt.msisdn,
    amount: row.amount,
    initiatedAt: attempt.initiatedAt,
    initiation,
  };
  const status = conclusiveStatus(await withTimeout((signal) => connector.getStatus(query, signal), services.config.connectorTimeoutMs), initiation);
  switch (status.kind) {
    case 'SUCCEEDED': {
      const result = await succeedAttempt(services, attempt, status.operatorReference, status.operatorTransactionId ?? null);
      return result === 'SUCCESS' ? 'SUCCESS' : 'FAILED';
    }
    case 'FAILED':
      await failAttempt(services, attempt, { code: status.failureCode, reason: status.failureReason, cause: 'POLL' });
      return 'FAILED';
    case 'NOT_FOUND':
      await failAttempt(services, attempt, {
        code: 'NOT_FOUND_AT_PROVIDER',
        reason: "L'opérateur n'a aucune trace de cette demande de paiement.",
        cause: 'POLL',
      });
      return 'FAILED';
    case 'PENDING':
    case 'UNREACHABLE': {
      if (attempt.deadlineAt <= now) {
        const unreachable = status.kind === 'UNREACHABLE';
        await failAttempt(services, attempt, {
          code: unreachable ? 'PROVIDER_UNAVAILABLE' : 'TIMEOUT',
          reason: unreachable
            ? "L'opérateur est resté injoignable jusqu'à l'échéance de la demande."
            : "Aucune réponse définitive de l'opérateur avant l'échéance de la demande.",
          cause: 'DEADLINE',
        });
        return 'FAILED';
      }
      await reschedule(services, attempt, now, status.kind === 'PENDING' ? status.retryAfterMs : undefined);
      return 'PENDING';
    }
  }
}

async function reschedule(services: Pick<Services, 'db'>, attempt: CheckoutAttemptRow, now: Date, retryAfterMs?: number): Promise<void> {
  const next = nextAskAt(now, nextPollDelayMs(attempt.pollCount), retryAfterMs, attempt.deadlineAt);
  await services.db
    .update(checkoutAttempts)
    .set({ nextPollAt: next, pollCount: attempt.pollCount + 1, updatedAt: now })
    .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')));
}
