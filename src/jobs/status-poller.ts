/**
 * The backstop poller: the service re-polls every PENDING transaction itself.
 * Each tick claims at most `batchSize` due PENDING rows with `FOR UPDATE SKIP LOCKED`, leases
 * them (`next_poll_at` pushed `POLLER_LEASE_MS` ahead, so any number of instances share the work
 * without asking twice at once), then asks their rails (at most CONCURRENCY in flight) and writes
 * the outcomes in batches; a full batch makes the loop go again at once.
 * It also claims, the same way, every due checkout attempt still in flight, whatever its
 * checkout's state: a request sent to an operator is asked about until it ends, even when its
 * checkout ended first. It also purges expired idempotency keys, releases due pending
 * settlements, asks again about charges failed at their deadline (late successes) and runs
 * automatic withdrawals.
 * Stoppable; never overlaps itself.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { deleteExpiredIdempotencyKeys } from '../db/queries/retention.ts';
import { decideRefresh, type RefreshDecision, type RefreshOutcome } from '../payments/refresh-transaction.ts';
import { applyTransition, applyTransitions } from '../payments/apply-transition.ts';
import { refreshAttempt } from '../payments/refresh-checkout.ts';
import type { CheckoutAttemptRow } from '../payments/checkout-attempt-records.ts';
import { releaseDueSettlements } from '../payments/transaction-postings.ts';
import { watchLateSuccesses } from '../late-success/index.ts';
import { runAutomaticWithdrawals } from '../withdrawals/index.ts';
import type { TransactionRow } from '../payments/transaction-view.ts';
import { leaseDueTransactions, scheduleNextPolls, type NextPoll } from '../db/queries/transactions.ts';
import { leaseDueAttempts } from '../db/queries/checkout-attempts.ts';
import { measureBatch, restAfterFullBatch, type ApiActivity } from './fair-share.ts';

/** Counts of what one tick did. */
export interface PollTickResult {
  /** PENDING transactions claimed. */
  claimed: number;
  /** Checkout attempts in flight claimed. */
  claimedAttempts: number;
  outcomes: Partial<Record<RefreshOutcome | 'ERROR', number>>;
  /** True when a claim came back full: more is due, the loop runs again at once. */
  more: boolean;
}

const CONCURRENCY = 16;
const PURGE_BATCH = 1000;
const SETTLEMENT_BATCH = 200;

/** Claims due PENDING transactions (at most `batchSize`) and leases them to this caller for `config.pollerLeaseMs`. */
export async function claimDueTransactions(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<TransactionRow[]> {
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  return leaseDueTransactions(services.db, { now, limit: batchSize, leaseUntil: lease });
}

/**
 * Claims due checkout attempts still in flight (at most `batchSize`), whatever their checkout's
 * state, and leases them for `config.pollerLeaseMs`. Locks only attempt rows, and skips locked
 * ones: it never waits, so it cannot deadlock with writers that lock the checkout row first.
 */
export async function claimDueAttempts(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number): Promise<CheckoutAttemptRow[]> {
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  return leaseDueAttempts(services.db, { now, limit: batchSize, leaseUntil: lease });
}

/**
 * Runs `refresh` over `items` with at most CONCURRENCY in flight; errors are logged and counted,
 * as is each outcome (null: the caller counts it later).
 * Once `signal` is aborted (the instance is stopping) no further item is started; returns the
 * items never started, for the caller to release.
 */
async function refreshAll<T extends { id: string }>(
  services: Services,
  items: T[],
  refresh: (item: T) => Promise<RefreshOutcome | null>,
  outcomes: PollTickResult['outcomes'],
  signal: AbortSignal | undefined,
): Promise<T[]> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const item = items[next++]!;
      let outcome: RefreshOutcome | 'ERROR' | null;
      try {
        outcome = await refresh(item);
      } catch (error) {
        services.log.error({ err: error, id: item.id }, 'refreshing a pending transaction or attempt failed');
        outcome = 'ERROR';
      }
      if (outcome) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
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
  const batchSize = services.config.pollerBatchSize;
  const rows = await claimDueTransactions(services, batchSize);
  services.metrics.pollerClaimed.observe({ kind: 'transactions' }, rows.length);
  const leftRows = await refreshClaimed(services, rows, outcomes, signal);
  if (signal?.aborted) {
    await releaseClaims(services, leftRows, []);
    return { claimed: rows.length, claimedAttempts: 0, outcomes, more: false };
  }
  const attempts = await claimDueAttempts(services, batchSize);
  services.metrics.pollerClaimed.observe({ kind: 'attempts' }, attempts.length);
  const leftAttempts = await refreshAll(services, attempts, (attempt) => refreshAttempt(services, attempt), outcomes, signal);
  if (signal?.aborted) {
    await releaseClaims(services, [], leftAttempts);
    return { claimed: rows.length, claimedAttempts: attempts.length, outcomes, more: false };
  }
  await deleteExpiredIdempotencyKeys(services.db, { now: services.clock.now(), limit: PURGE_BATCH });
  await releaseDueSettlements(services, SETTLEMENT_BATCH);
  await watchLateSuccesses(services);
  await runAutomaticWithdrawals(services);
  return { claimed: rows.length, claimedAttempts: attempts.length, outcomes, more: rows.length === batchSize || attempts.length === batchSize };
}

/**
 * Refreshes claimed transactions in two phases: first every rail is asked (at most CONCURRENCY at
 * once; checkouts and re-initiations are handled there, one by one), then the decisions are written
 * together — every transition in one database transaction (`applyTransitions`) and every next poll
 * in one statement. When the batch cannot be applied (an error, e.g. a deadlock with a concurrent
 * writer), each transition is applied on its own.
 * Returns the rows never started (the instance is stopping).
 */
async function refreshClaimed(services: Services, rows: TransactionRow[], outcomes: PollTickResult['outcomes'], signal: AbortSignal | undefined): Promise<TransactionRow[]> {
  const transitions: Extract<RefreshDecision, { kind: 'TRANSITION' }>[] = [];
  const polls: NextPoll[] = [];
  // The claim incremented pollAttempts; the schedule is indexed from 0.
  const left = await refreshAll(
    services,
    rows,
    async (row) => {
      const decision = await decideRefresh(services, { ...row, pollAttempts: row.pollAttempts - 1 });
      if (decision.kind === 'DONE') return decision.outcome;
      if (decision.kind === 'SCHEDULE') polls.push({ id: row.id, at: decision.at, statusQueryReference: decision.statusQueryReference });
      else transitions.push(decision);
      return null;
    },
    outcomes,
    signal,
  );
  if (polls.length > 0) {
    await scheduleNextPolls(services.db, { polls });
    outcomes.STILL_PENDING = (outcomes.STILL_PENDING ?? 0) + polls.length;
  }
  if (transitions.length === 0) return left;
  let applied: Set<string>;
  try {
    applied = new Set((await applyTransitions(services, transitions.map((t) => t.input))).map((r) => r.id));
  } catch (error) {
    services.log.warn({ err: error, size: transitions.length }, 'batched status changes failed; applying them one by one');
    applied = new Set();
    for (const t of transitions) {
      try {
        if (await applyTransition(services, t.input)) applied.add(t.input.transactionId);
      } catch (cause) {
        services.log.error({ err: cause, id: t.input.transactionId }, 'applying a status change failed');
        outcomes.ERROR = (outcomes.ERROR ?? 0) + 1;
      }
    }
  }
  for (const t of transitions) {
    const outcome = applied.has(t.input.transactionId) ? t.outcome : 'SKIPPED';
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return left;
}

/** A running loop; `stop` waits for the tick in progress to finish. */
export interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs` (measured from the end of the previous tick) until stopped, or
 * again when the tick returns `{ more: true }` (its batch was full: work is waiting): at once, or,
 * with `activity`, after the rest `restAfterFullBatch` gives while the API is serving on a
 * saturated event loop (fair-share.ts).
 * `stop` aborts the signal given to the tick in progress (which finishes its work under way and
 * releases the rest) and resolves once that tick has returned.
 */
export function startLoop(
  name: string,
  intervalMs: number,
  tick: (signal: AbortSignal) => Promise<unknown>,
  log: Services['log'],
  activity?: ApiActivity,
): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  const run = () => {
    const batch = activity ? measureBatch(activity) : null;
    running = tick(stopping.signal)
      .then(
        (result) => (result as { more?: boolean } | undefined)?.more === true,
        (error: unknown) => {
          log.error({ err: error, loop: name }, 'loop tick failed');
          return false;
        },
      )
      .then((more) => {
        if (stopped) return;
        // A full batch means more is due: go again at once (yielding to I/O first), or after a
        // rest that leaves the API its share of the event loop.
        const delay = !more ? intervalMs : batch ? restAfterFullBatch(batch.end(), intervalMs) : 0;
        timer = setTimeout(run, delay);
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
  return startLoop('status-poller', services.config.pollerIntervalMs, (signal) => pollOnce(services, signal), services.log, services.apiActivity);
}
