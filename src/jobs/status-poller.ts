/**
 * The backstop poller (issue: "the service re-polls every PENDING transaction itself").
 * Each tick claims at most `batchSize` due PENDING rows with `FOR UPDATE SKIP LOCKED`, leases
 * them (`next_poll_at` pushed `POLLER_LEASE_MS` ahead, so any number of instances share the work
 * without asking twice at once), then refreshes them with at most `concurrency` in flight.
 * It also claims, the same way, every due checkout attempt still in flight, whatever its
 * checkout's state: a request sent to an operator is asked about until it ends, even when its
 * checkout ended first. It also purges expired idempotency keys, releases due pending
 * settlements, asks again about charges failed at their deadline (late successes) and runs
 * automatic withdrawals (issue 11).
 * Stoppable; never overlaps itself.
 */
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { purgeExpiredIdempotencyKeys } from '../payments/idempotency.ts';
import { refreshTransaction, type RefreshOutcome } from '../payments/refresh-transaction.ts';
import { refreshAttempt } from '../payments/refresh-checkout.ts';
import type { CheckoutAttemptRow } from '../payments/checkout-attempt-records.ts';
import { releaseDueSettlements } from '../payments/transaction-postings.ts';
import { watchLateSuccesses } from '../payments/late-success.ts';
import { runAutomaticWithdrawals } from '../payments/withdrawals.ts';
import type { TransactionRow } from '../payments/transaction-view.ts';

/** Counts of what one tick did. */
export interface PollTickResult {
  /** PENDING transactions claimed. */
  claimed: number;
  /** Checkout attempts in flight claimed. */
  claimedAttempts: number;
  outcomes: Partial<Record<RefreshOutcome | 'ERROR', number>>;
}

const CONCURRENCY = 8;
const PURGE_BATCH = 1000;
const SETTLEMENT_BATCH = 200;

/** Claims due PENDING transactions (at most `batchSize`) and leases them to this caller for `config.pollerLeaseMs`. */
export async function claimDueTransactions(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<TransactionRow[]> {
  const now = services.clock.now();
  const due = services.db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(eq(transactions.status, 'PENDING'), lte(transactions.nextPollAt, now)))
    .orderBy(asc(transactions.nextPollAt))
    .limit(batchSize)
    .for('update', { skipLocked: true });
  return services.db
    .update(transactions)
    .set({
      nextPollAt: new Date(now.getTime() + services.config.pollerLeaseMs),
      pollAttempts: sql`${transactions.pollAttempts} + 1`,
    })
    .where(and(inArray(transactions.id, due), eq(transactions.status, 'PENDING')))
    .returning();
}

/**
 * Claims due checkout attempts still in flight (at most `batchSize`), whatever their checkout's
 * state, and leases them for `config.pollerLeaseMs`. Locks only attempt rows, and skips locked
 * ones: it never waits, so it cannot deadlock with writers that lock the checkout row first.
 */
export async function claimDueAttempts(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<CheckoutAttemptRow[]> {
  const now = services.clock.now();
  const due = services.db
    .select({ id: checkoutAttempts.id })
    .from(checkoutAttempts)
    .where(and(eq(checkoutAttempts.status, 'PENDING'), lte(checkoutAttempts.nextPollAt, now)))
    .orderBy(asc(checkoutAttempts.nextPollAt))
    .limit(batchSize)
    .for('update', { skipLocked: true });
  return services.db
    .update(checkoutAttempts)
    .set({ nextPollAt: new Date(now.getTime() + services.config.pollerLeaseMs) })
    .where(and(inArray(checkoutAttempts.id, due), eq(checkoutAttempts.status, 'PENDING')))
    .returning();
}

/**
 * Runs `refresh` over `items` with at most CONCURRENCY in flight; errors are logged and counted.
 * Once `signal` is aborted (the instance is stopping) no further item is started; returns the
 * items never started, for the caller to release.
 */
async function refreshAll<T extends { id: string }>(
  services: Services,
  items: T[],
  refresh: (item: T) => Promise<RefreshOutcome>,
  outcomes: PollTickResult['outcomes'],
  signal: AbortSignal | undefined,
): Promise<T[]> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const item = items[next++]!;
      let outcome: RefreshOutcome | 'ERROR';
      try {
        outcome = await refresh(item);
      } catch (error) {
        services.log.error({ err: error, id: item.id }, 'refreshing a pending transaction or attempt failed');
        outcome = 'ERROR';
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return items.slice(next);
}

/**
 * Gives back claims this instance will not work on (it is stopping): due now, so another
 * instance takes them at once instead of waiting for the lease to run out.
 */
async function releaseClaims(services: Pick<Services, 'db' | 'clock'>, rows: { id: string }[], attempts: { id: string }[]): Promise<void> {
  const now = services.clock.now();
  if (rows.length > 0) {
    await services.db
      .update(transactions)
      .set({ nextPollAt: now })
      .where(and(inArray(transactions.id, rows.map((r) => r.id)), eq(transactions.status, 'PENDING')));
  }
  if (attempts.length > 0) {
    await services.db
      .update(checkoutAttempts)
      .set({ nextPollAt: now })
      .where(and(inArray(checkoutAttempts.id, attempts.map((a) => a.id)), eq(checkoutAttempts.status, 'PENDING')));
  }
}

/**
 * One poller tick: claim and refresh transactions, then attempts (errors are logged and counted,
 * never thrown), purge. When `signal` aborts (graceful stop), the refreshes under way finish,
 * nothing more is started or claimed, and what was claimed but not started is released.
 */
export async function pollOnce(services: Services, signal?: AbortSignal): Promise<PollTickResult> {
  const outcomes: PollTickResult['outcomes'] = {};
  const rows = await claimDueTransactions(services, services.config.pollerBatchSize);
  services.metrics.pollerClaimed.observe({ kind: 'transactions' }, rows.length);
  // The claim incremented pollAttempts; the schedule is indexed from 0.
  const leftRows = await refreshAll(services, rows, (row) => refreshTransaction(services, { ...row, pollAttempts: row.pollAttempts - 1 }), outcomes, signal);
  if (signal?.aborted) {
    await releaseClaims(services, leftRows, []);
    return { claimed: rows.length, claimedAttempts: 0, outcomes };
  }
  const attempts = await claimDueAttempts(services, services.config.pollerBatchSize);
  services.metrics.pollerClaimed.observe({ kind: 'attempts' }, attempts.length);
  const leftAttempts = await refreshAll(services, attempts, (attempt) => refreshAttempt(services, attempt), outcomes, signal);
  if (signal?.aborted) {
    await releaseClaims(services, [], leftAttempts);
    return { claimed: rows.length, claimedAttempts: attempts.length, outcomes };
  }
  await purgeExpiredIdempotencyKeys(services.db, services.clock.now(), PURGE_BATCH);
  await releaseDueSettlements(services, SETTLEMENT_BATCH);
  await watchLateSuccesses(services);
  await runAutomaticWithdrawals(services);
  return { claimed: rows.length, claimedAttempts: attempts.length, outcomes };
}

/** A running loop; `stop` waits for the tick in progress to finish. */
export interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs` (measured from the end of the previous tick) until stopped.
 * `stop` aborts the signal given to the tick in progress (which finishes its work under way and
 * releases the rest) and resolves once that tick has returned.
 */
export function startLoop(name: string, intervalMs: number, tick: (signal: AbortSignal) => Promise<unknown>, log: Services['log']): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  const run = () => {
    running = tick(stopping.signal)
      .then(
        () => {},
        (error: unknown) => log.error({ err: error, loop: name }, 'loop tick failed'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(run, intervalMs);
      });
  };
  timer = setTimeout(run, intervalMs);
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

/** Starts the status poller loop with the configured interval. */
export function startStatusPoller(services: Services): Loop {
  return startLoop('status-poller', services.config.pollerIntervalMs, (signal) => pollOnce(services, signal), services.log);
}
