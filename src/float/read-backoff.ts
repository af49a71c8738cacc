/**
 * Back-off of a rail's balance queries while the operator gives no balance: an error answer, no
 * answer, or (Daraja's asynchronous Account Balance) a query accepted whose Result never comes.
 * Every query counts as unanswered until a balance of the rail is stored; after n ≥ 1 such
 * queries in a row the float job sends the next one only `balanceRetryDelayMs(n)` after the last,
 * min(FLOAT_READ_INTERVAL_MS × 2^(n−1), FLOAT_READ_BACKOFF_MAX_MS), on top of its usual
 * interval. A stored balance ends the streak, unless a later query is still unanswered (a Result
 * that came late): the next query then waits the usual interval after that later one. Staff's
 * on-demand read is always sent (and counts).
 * The streaks live in the instance's memory: a restart, or another instance running the float
 * job, starts from none.
 */
import type { Services } from '../services.ts';

/** A rail's unanswered balance queries in a row, and when the last one was sent (epoch ms). */
interface Streak {
  unanswered: number;
  lastSentAtMs: number;
}

type BackoffServices = Pick<Services, 'connectors' | 'config'>;

// One table per running instance: keyed by its connector registry, created once with its services.
const streaksByInstance = new WeakMap<object, Map<string, Streak>>();

function streaksOf(services: BackoffServices): Map<string, Streak> {
  let streaks = streaksByInstance.get(services.connectors);
  if (!streaks) streaksByInstance.set(services.connectors, (streaks = new Map()));
  return streaks;
}

/**
 * How long after the last query the next one waits once `unanswered` queries in a row gave no
 * balance, ms: 0 for none, else min(`intervalMs` × 2^(unanswered−1), `maxMs`).
 */
export function balanceRetryDelayMs(unanswered: number, intervalMs: number, maxMs: number): number {
  if (unanswered <= 0) return 0;
  return Math.min(maxMs, intervalMs * 2 ** Math.min(unanswered - 1, 32));
}

/** Records a balance query of `railCode` sent at `at`: unanswered until a balance is stored. */
export function noteBalanceQuery(services: BackoffServices, railCode: string, at: Date): void {
  const streaks = streaksOf(services);
  const unanswered = (streaks.get(railCode)?.unanswered ?? 0) + 1;
  streaks.set(railCode, { unanswered, lastSentAtMs: at.getTime() });
}

/**
 * Records that a balance of `railCode` was stored, the answer to the query sent at `queriedAt`:
 * its streak of unanswered queries ends. When a query was sent after that one, that query is
 * still unanswered: the streak restarts at one, from its sending, so the next query waits the
 * usual interval after it rather than going out at the next pass.
 */
export function noteBalanceKnown(services: BackoffServices, railCode: string, queriedAt: Date): void {
  const streaks = streaksOf(services);
  const streak = streaks.get(railCode);
  if (streak && streak.lastSentAtMs > queriedAt.getTime()) streaks.set(railCode, { unanswered: 1, lastSentAtMs: streak.lastSentAtMs });
  else streaks.delete(railCode);
}

/** The queries of `railCode` in a row that gave no balance yet. */
export function unansweredBalanceQueries(services: BackoffServices, railCode: string): number {
  return streaksOf(services).get(railCode)?.unanswered ?? 0;
}

/** False while `railCode`'s back-off holds its next balance query at `now`. */
export function isBalanceQueryAllowed(services: BackoffServices, railCode: string, now: Date): boolean {
  const streak = streaksOf(services).get(railCode);
  if (!streak) return true;
  const delay = balanceRetryDelayMs(streak.unanswered, services.config.floatReadIntervalMs, services.config.floatReadBackoffMaxMs);
  return now.getTime() - streak.lastSentAtMs >= delay;
}
