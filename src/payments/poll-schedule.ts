/**
 * The backstop poller's per-transaction schedules. Pure; the jitter is applied by the caller.
 * - A PENDING payment: 2 s after initiation, 3.2 s later, then every 4 s for about two minutes
 *   (the time a payer has to answer a PIN prompt, when a lost callback must not delay the
 *   outcome by more than a few seconds), then growing by 1.6× up to one question a minute.
 * - A late watch (a payment ended without the operator's answer): 2 s, then growing by 1.6× up
 *   to one question a minute.
 */

/** Questions asked at most `PROMPT_GAP_MS` apart: about two minutes' worth. */
const PROMPT_QUESTIONS = 30;
const PROMPT_GAP_MS = 4000;

/** Delay before poll number `attempt` (0-based) of a PENDING payment, in milliseconds (see above). */
export function nextPollDelayMs(attempt: number): number {
  const n = Math.max(0, attempt);
  if (n < PROMPT_QUESTIONS) return Math.min(2000 * 1.6 ** n, PROMPT_GAP_MS);
  return Math.min(PROMPT_GAP_MS * 1.6 ** (n - PROMPT_QUESTIONS + 1), 60_000);
}

/** Delay before question number `attempt` (0-based) of a late watch, in milliseconds: 2 s × 1.6^attempt, at most 60 s. */
export function watchDelayMs(attempt: number): number {
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
