/**
 * The backstop poller: the service re-polls every PENDING transaction itself.
 * Each tick claims at most `batchSize` due PENDING rows with `FOR UPDATE SKIP LOCKED`, leases
 * them (`next_poll_at` pushed `POLLER_LEASE_MS` ahead, so any number of instances share the work
 * without asking twice at once), and hands each question to its operator's lane
 * (operator-lanes.ts: bounded concurrency and rate per operator); outcomes are written in batches
 * as they come (`DecisionWriter`). The loop does not wait for the answers: a slow operator delays
 * only its own lane, and the claim skips the rails of a full lane. A full batch makes the loop go
 * again at once.
 * It also claims, the same way, every due checkout attempt still in flight, whatever its
 * checkout's state: a request sent to an operator is asked about until it ends, even when its
 * checkout ended first, and the late watches (late-success/), through the same lanes. It also
 * purges expired idempotency keys, releases due pending settlements and runs automatic
 * withdrawals.
 * Stoppable; never overlaps itself.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { providers as rails, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { deleteExpiredIdempotencyKeys } from '../db/queries/retention.ts';
import {
  applyTransition,
  applyTransitions,
  type CheckoutAttemptRow,
  decideRefresh,
  refreshAttempt,
  type RefreshDecision,
  type RefreshOutcome,
  releaseDueSettlements,
} from '../payments/index.ts';
import { watchLateSuccesses } from '../late-success/index.ts';
import { runAutomaticWithdrawals } from '../withdrawals/index.ts';
import { leaseDueTransactions, scheduleNextPolls, type NextPoll, type RowForTransition } from '../db/queries/transactions.ts';
import { leaseDueAttempts } from '../db/queries/checkout-attempts.ts';
import { measureBatch, restAfterFullBatch, type ApiActivity } from './fair-share.ts';
import { OperatorLanes, type LaneLimits } from './operator-lanes.ts';

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

const PURGE_BATCH = 1000;
const SETTLEMENT_BATCH = 200;

/**
 * Claims due PENDING transactions (at most `batchSize`) and leases them to this caller for
 * `config.pollerLeaseMs`; each as a status change reads it (the leased row, its version, its
 * pay-in fee terms).
 */
export async function claimDueTransactions(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number, skipRails: string[] = []): Promise<RowForTransition[]> {
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  return leaseDueTransactions(services.db, { now, limit: batchSize, leaseUntil: lease, skipRails });
}

/**
 * Claims due checkout attempts still in flight (at most `batchSize`), whatever their checkout's
 * state, and leases them for `config.pollerLeaseMs`. Locks only attempt rows, and skips locked
 * ones: it never waits, so it cannot deadlock with writers that lock the checkout row first.
 */
export async function claimDueAttempts(services: Pick<Services, 'db' | 'clock' | 'config'>, batchSize: number, skipRails: string[] = []): Promise<CheckoutAttemptRow[]> {
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  return leaseDueAttempts(services.db, { now, limit: batchSize, leaseUntil: lease, skipRails });
}

/**
 * Gives back claims this instance will not work on (it is stopping): due now, so another
 * instance takes them at once instead of waiting for the lease to run out.
 */
async function releaseClaims(services: Pick<Services, 'db' | 'clock'>, rows: { id: string }[], attempts: { id: string }[], delayMs = 0): Promise<void> {
  const now = new Date(services.clock.now().getTime() + delayMs);
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

/** The lane key of work on rail `railCode`: its operator (or the rail itself when unknown). */
type LaneOf = (railCode: string | null) => string;

/** The operator of every rail, as a lane key function (one small query per tick). */
async function laneKeys(services: Pick<Services, 'db'>): Promise<{ laneOf: LaneOf; railsOf: (lanes: string[]) => string[] }> {
  const all = await services.db.select({ code: rails.code, operator: rails.operator }).from(rails);
  const operatorOf = new Map(all.map((r) => [r.code, r.operator]));
  const laneOf: LaneOf = (railCode) => (railCode === null ? CHECKOUT_LANE : (operatorOf.get(railCode) ?? railCode));
  return { laneOf, railsOf: (lanes) => all.filter((r) => lanes.includes(laneOf(r.code))).map((r) => r.code) };
}

/** The lane of the sandbox: TEST questions, answered in-process by the sandbox connector. */
export const SANDBOX_LANE = 'sandbox';
/** The lane of hosted checkouts' own refreshes (their session's end; their attempts have their operators' lanes). */
export const CHECKOUT_LANE = 'checkout';

/**
 * Each lane's bounds: an operator's from the configuration (`POLLER_OPERATOR_CONCURRENCY`,
 * `POLLER_OPERATOR_RATE`); the sandbox's and the checkouts' own 16 at once, at any rate (no
 * operator is asked there).
 */
export function laneLimitsOf(config: Services['config']): (lane: string) => LaneLimits {
  const { pollerOperatorConcurrency: concurrency, pollerOperatorRate: ratePerSecond, pollerBatchSize } = config;
  return (lane) =>
    lane === SANDBOX_LANE || lane === CHECKOUT_LANE
      ? { concurrency: 16, ratePerSecond: Number.POSITIVE_INFINITY, queue: pollerBatchSize * 2 }
      : { concurrency, ratePerSecond, queue: Math.max(concurrency, ratePerSecond * 2) };
}

/**
 * The poller's writes, batched as answers come: decisions added in the same turn of the event
 * loop are written together — every next poll in one statement, every transition in one
 * database transaction (`applyTransitions`; when the batch cannot be applied, e.g. a deadlock with
 * a concurrent writer, each transition on its own). Writes run one batch at a time.
 */
export class DecisionWriter {
  readonly #services: Services;
  #transitions: { decision: Extract<RefreshDecision, { kind: 'TRANSITION' }>; outcomes: PollTickResult['outcomes'] }[] = [];
  #polls: { poll: NextPoll; outcomes: PollTickResult['outcomes'] }[] = [];
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;

  constructor(services: Services) {
    this.#services = services;
  }

  /** Adds a decision of `row` to the next batch; its outcome is counted in `outcomes` once written. */
  add(row: { id: string }, decision: Exclude<RefreshDecision, { kind: 'DONE' }>, outcomes: PollTickResult['outcomes']): void {
    if (decision.kind === 'SCHEDULE') this.#polls.push({ poll: { id: row.id, at: decision.at, statusQueryReference: decision.statusQueryReference }, outcomes });
    else this.#transitions.push({ decision, outcomes });
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#writing = this.#writing.then(() => this.#write());
    });
  }

  /** Resolves once every decision added so far is written. */
  async idle(): Promise<void> {
    while (this.#scheduled || this.#polls.length > 0 || this.#transitions.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      await this.#writing;
    }
    await this.#writing;
  }

  async #write(): Promise<void> {
    const services = this.#services;
    const polls = this.#polls.splice(0);
    const transitions = this.#transitions.splice(0);
    try {
      if (polls.length > 0) {
        await scheduleNextPolls(services.db, { polls: polls.map((p) => p.poll) });
        for (const p of polls) p.outcomes.STILL_PENDING = (p.outcomes.STILL_PENDING ?? 0) + 1;
      }
    } catch (error) {
      services.log.error({ err: error, size: polls.length }, 'scheduling next polls failed');
    }
    if (transitions.length === 0) return;
    let applied: Set<string>;
    try {
      applied = new Set((await applyTransitions(services, transitions.map((t) => t.decision.input))).map((r) => r.id));
    } catch (error) {
      services.log.warn({ err: error, size: transitions.length }, 'batched status changes failed; applying them one by one');
      applied = new Set();
      for (const t of transitions) {
        try {
          if (await applyTransition(services, t.decision.input)) applied.add(t.decision.input.transactionId);
        } catch (cause) {
          services.log.error({ err: cause, id: t.decision.input.transactionId }, 'applying a status change failed');
          t.outcomes.ERROR = (t.outcomes.ERROR ?? 0) + 1;
        }
      }
    }
    for (const t of transitions) {
      const outcome = applied.has(t.decision.input.transactionId) ? t.decision.outcome : 'SKIPPED';
      t.outcomes[outcome] = (t.outcomes[outcome] ?? 0) + 1;
    }
  }
}

/** What a tick works with: the lanes and writer it hands work to (the loop's, or a tick's own). */
export interface PollerWork {
  lanes: OperatorLanes;
  writer: DecisionWriter;
  /** Claims handed back unstarted (a full lane, or the lanes stopping), released by the next release. */
  abandoned: { rows: { id: string }[]; attempts: { id: string }[] };
}

/** New lanes and writer for `services`. */
function pollerWork(services: Services): PollerWork {
  return { lanes: new OperatorLanes(laneLimitsOf(services.config)), writer: new DecisionWriter(services), abandoned: { rows: [], attempts: [] } };
}

/** Gives back the claims `work` abandoned (due at once, for any instance). */
async function releaseAbandoned(services: Services, work: PollerWork): Promise<void> {
  const rows = work.abandoned.rows.splice(0);
  const attempts = work.abandoned.attempts.splice(0);
  if (rows.length > 0 || attempts.length > 0) await releaseClaims(services, rows, attempts);
}

/**
 * One poller tick, waiting for every question it asked (tests, `kolo` commands): claims and
 * refreshes transactions and attempts through lanes of its own, writes the outcomes, then the
 * late watches and the housekeeping. When `signal` aborts (graceful stop), the questions under
 * way finish, nothing more is started or claimed, and what was claimed but not started is
 * released. Errors are logged and counted, never thrown.
 */
export async function pollOnce(services: Services, signal?: AbortSignal): Promise<PollTickResult> {
  const work = pollerWork(services);
  const result = await dispatchOnce(services, work, signal, true);
  await work.lanes.stop();
  await releaseAbandoned(services, work);
  if (!signal?.aborted) await housekeeping(services);
  return result;
}

/**
 * Claims due transactions, attempts and late watches and hands each question to its operator's
 * lane in `work`, without waiting for the answers (the loop's tick). Rails whose lane is full are
 * not claimed from. `phased`: each of the three phases' answers are awaited and written before
 * the next phase is claimed (`pollOnce`, the order a single tick has always had).
 */
export async function dispatchOnce(services: Services, work: PollerWork, signal?: AbortSignal, phased = false): Promise<PollTickResult> {
  const running: Promise<unknown>[] | undefined = phased ? [] : undefined;
  const phaseEnd = async () => {
    if (!running) return;
    await Promise.all(running.splice(0));
    await work.writer.idle();
  };
  const outcomes: PollTickResult['outcomes'] = {};
  const batchSize = services.config.pollerBatchSize;
  const { laneOf, railsOf } = await laneKeys(services);
  const { lanes, writer, abandoned } = work;
  const deferred: { rows: { id: string }[]; attempts: { id: string }[] } = { rows: [], attempts: [] };
  const submit = <T>(lane: string, item: T, task: (item: T) => Promise<void>, release: (item: T) => void, defer: (item: T) => void) => {
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    running?.push(finished);
    const queued =
      !signal?.aborted &&
      lanes.submit(
        lane,
        () => task(item).finally(done),
        () => {
          release(item);
          done();
        },
      );
    if (!queued) {
      // A full lane (or a stopping instance): asked again a tick later, not claimed again at once.
      if (signal?.aborted) release(item);
      else defer(item);
      done();
    }
  };
  const count = (outcome: RefreshOutcome | 'ERROR') => (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1);

  const leased = await claimDueTransactions(services, batchSize, railsOf(lanes.fullLanes()));
  services.metrics.pollerClaimed.observe({ kind: 'transactions' }, leased.length);
  for (const read of leased) {
    const { row } = read;
    submit(
      row.type === 'CHECKOUT' ? CHECKOUT_LANE : row.environment === 'TEST' ? SANDBOX_LANE : laneOf(row.paymentMethod),
      row,
      async (r) => {
        try {
          // The claim incremented pollAttempts; the schedule is indexed from 0.
          // A status change starts from the row as leased: not read again unless it moved since.
          const decision = await decideRefresh(services, { ...r, pollAttempts: r.pollAttempts - 1 }, { readAs: read });
          if (decision.kind === 'DONE') count(decision.outcome);
          else writer.add(r, decision, outcomes);
        } catch (error) {
          services.log.error({ err: error, id: r.id }, 'refreshing a pending transaction failed');
          count('ERROR');
        }
      },
      (r) => abandoned.rows.push(r),
      (r) => deferred.rows.push(r),
    );
  }
  await phaseEnd();
  const attempts = signal?.aborted ? [] : await claimDueAttempts(services, batchSize, railsOf(lanes.fullLanes()));
  services.metrics.pollerClaimed.observe({ kind: 'attempts' }, attempts.length);
  for (const attempt of attempts) {
    submit(
      laneOf(attempt.railCode),
      attempt,
      async (a) => {
        try {
          count(await refreshAttempt(services, a));
        } catch (error) {
          services.log.error({ err: error, id: a.id }, 'refreshing a checkout attempt failed');
          count('ERROR');
        }
      },
      (a) => abandoned.attempts.push(a),
      (a) => deferred.attempts.push(a),
    );
  }
  await phaseEnd();
  if (!signal?.aborted) {
    await watchLateSuccesses(services, (railCode, task) => {
      let done!: () => void;
      running?.push(new Promise<void>((resolve) => (done = resolve)));
      // A watch that finds its lane full or the poller stopping is asked at its lease's end.
      if (!lanes.submit(laneOf(railCode), () => task().finally(done), done)) done();
    });
  }
  await phaseEnd();
  // Claims not started: back at once when the instance is stopping (another takes them), a tick
  // later when their lane was full (the loop then waits a tick rather than claim them again).
  await releaseAbandoned(services, work);
  const isDeferred = deferred.rows.length > 0 || deferred.attempts.length > 0;
  if (isDeferred) await releaseClaims(services, deferred.rows, deferred.attempts, services.config.pollerIntervalMs);
  return { claimed: leased.length, claimedAttempts: attempts.length, outcomes, more: !isDeferred && (leased.length === batchSize || attempts.length === batchSize) };
}

/** The poller's housekeeping: expired idempotency keys, due settlements, automatic withdrawals. */
async function housekeeping(services: Services): Promise<void> {
  await deleteExpiredIdempotencyKeys(services.db, { now: services.clock.now(), limit: PURGE_BATCH });
  await releaseDueSettlements(services, SETTLEMENT_BATCH);
  await runAutomaticWithdrawals(services);
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

/**
 * Starts the status poller: the claim loop (`dispatchOnce` every `POLLER_INTERVAL_MS`, handing
 * questions to long-lived operator lanes) and the housekeeping loop beside it. `stop` stops both,
 * lets the questions under way finish and their outcomes be written, and releases the rest.
 */
export function startStatusPoller(services: Services): Loop {
  const work = pollerWork(services);
  const claims = startLoop('status-poller', services.config.pollerIntervalMs, (signal) => dispatchOnce(services, work, signal), services.log, services.apiActivity);
  const chores = startLoop('poller-housekeeping', services.config.pollerIntervalMs, () => housekeeping(services), services.log);
  return {
    async stop() {
      await Promise.all([claims.stop(), chores.stop()]);
      await work.lanes.stop();
      await work.writer.idle();
      await releaseAbandoned(services, work);
    },
  };
}
