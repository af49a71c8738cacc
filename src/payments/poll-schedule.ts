/**
 * The backstop poller's per-transaction schedule: 2 s after initiation, then growing by 1.6×
 * up to one poll a minute. Pure; the jitter is applied by the caller.
 */

/** Delay before poll number `attempt` (0-based), in milliseconds: 2 s × 1.6^attempt, at most 60 s. */
export function nextPollDelayMs(attempt: number): number {
  return Math.min(2000 * 1.6 ** Math.max(0, attempt), 60_000);
}

/**
 * The next question after an answer that settled nothing: `delayMs` (the schedule's) from `now`,
 * or later when the operator asked for a pause (`retryAfterMs`, StatusResult PENDING), never
 * past `limit` (the rail's deadline or the watch's end: one last question there), when given.
 */
export function nextAskAt(now: Date, delayMs: number, retryAfterMs: number | undefined, limit: Date | null): Date {
  let next = new Date(now.getTime() + Math.max(delayMs, retryAfterMs ?? 0));
  if (limit && next > limit) next = limit;
  return next;
}
