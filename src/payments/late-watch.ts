/**
 * The schedule of the late watch: how a transaction or checkout attempt that ended without a
 * definitive answer from its operator (failed at its deadline) is asked about again
 * (late-success/). Pure; no imports of ours, so the status-change code can use it without a
 * cycle.
 */

/** Delay before an outcome left unknown at its deadline is first asked about again, ms. */
export const LATE_WATCH_FIRST_ASK_MS = 60_000;

/**
 * Pause between two questions about a pay-out whose reservation is still held once its close
 * watch (`LATE_SUCCESS_WATCH_HOURS`, at least 24 h) is over, ms. Such a pay-out is asked about
 * for as long as the operator gives no definitive answer: its money must not be released on a
 * guess.
 */
export const HELD_PAY_OUT_ASK_MS = 3_600_000;

/** Shortest close watch of a held pay-out, hours (even when `LATE_SUCCESS_WATCH_HOURS` is 0). */
const PAY_OUT_CLOSE_WATCH_MIN_HOURS = 24;

/**
 * End of the close watch of a pay-out failed at its deadline `now`: questions every ≤ 60 s
 * (the poll schedule) until then, every `HELD_PAY_OUT_ASK_MS` after.
 */
export function payOutWatchEnd(config: { lateSuccessWatchHours: number }, now: Date): Date {
  const hours = Math.max(config.lateSuccessWatchHours, PAY_OUT_CLOSE_WATCH_MIN_HOURS);
  return new Date(now.getTime() + hours * 3_600_000);
}
