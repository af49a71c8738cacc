/**
 * The backstop poller (issue: "the service re-polls every PENDING transaction itself").
 * Each tick claims at most `batchSize` due PENDING rows with `FOR UPDATE SKIP LOCKED`, leases
 * them (`next_poll_at` pushed `POLLER_LEASE_MS` ahead, so any number of instances share the work
 * without asking twice at once), then refreshes them with at most `concurrency` in flight.
 * It also purges expired idempotency keys. Stoppable; never overlaps itself.
 */
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import type { Services } from '../services.ts';
import { purgeExpiredIdempotencyKeys } from '../payments/idempotency.ts';
import { refreshTransaction, type RefreshOutcome } from '../payments/refresh-transaction.ts';
import type { TransactionRow } from '../payments/transaction-view.ts';

/** Counts of what one tick did. */
export interface PollTickResult {
  claimed: number;
  outcomes: Partial<Record<RefreshOutcome | 'ERROR', number>>;
}

const CONCURRENCY = 8;
const PURGE_BATCH = 1000;

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

/** One poller tick: claim, refresh each (errors are logged and counted, never thrown), purge. */
export async function pollOnce(services: Services): Promise<PollTickResult> {
  const rows = await claimDueTransactions(services, services.config.pollerBatchSize);
  const outcomes: PollTickResult['outcomes'] = {};
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      // The claim incremented pollAttempts; the schedule is indexed from 0.
      const claimed = { ...row, pollAttempts: row.pollAttempts - 1 };
      let outcome: RefreshOutcome | 'ERROR';
      try {
        outcome = await refreshTransaction(services, claimed);
      } catch (error) {
        services.log.error({ err: error, reference: row.reference }, 'refreshing a pending transaction failed');
        outcome = 'ERROR';
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
  await purgeExpiredIdempotencyKeys(services.db, services.clock.now(), PURGE_BATCH);
  return { claimed: rows.length, outcomes };
}

/** A running loop; `stop` waits for the tick in progress to finish. */
export interface Loop {
  stop(): Promise<void>;
}

/** Runs `tick` every `intervalMs` (measured from the end of the previous tick) until stopped. */
export function startLoop(name: string, intervalMs: number, tick: () => Promise<unknown>, log: Services['log']): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = tick()
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
      clearTimeout(timer);
      await running;
    },
  };
}

/** Starts the status poller loop with the configured interval. */
export function startStatusPoller(services: Services): Loop {
  return startLoop('status-poller', services.config.pollerIntervalMs, () => pollOnce(services), services.log);
}
