/**
 * The backstop poller's per-transaction schedule: 2 s after initiation, then growing by 1.6×
 * up to one poll a minute. Pure; the jitter is applied by the caller.
 */

/** Delay before poll number `attempt` (0-based), in milliseconds: 2 s × 1.6^attempt, at most 60 s. */
export function nextPollDelayMs(attempt: number): number {
  return Math.min(2000 * 1.6 ** Math.max(0, attempt), 60_000);
}
