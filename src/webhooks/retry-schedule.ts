/**
 * The published retry schedule of webhook deliveries (README "Webhooks"). Pure.
 * Attempt 1 is immediate; after a failed attempt n the next comes `RETRY_DELAYS_MS[n-1]`
 * later, lengthened by a random 0–20 % (jitter, so a merchant's recovering server is not hit by
 * every retry at the same instant), or later if the receiver asked so with `Retry-After`
 * (capped at `RETRY_AFTER_MAX_MS`). After the last attempt, or on HTTP 410, the delivery FAILS.
 */

/** Delays between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all). */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** Attempts per round (initial + retries). */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Jitter added on top of each delay, as a fraction of it. */
export const JITTER_FRACTION = 0.2;
/** A receiver's `Retry-After` is honoured up to this long. */
export const RETRY_AFTER_MAX_MS = 24 * 3_600_000;

/**
 * Parses `Retry-After` (delta seconds or an HTTP date, RFC 9110 §10.2.3) into milliseconds from
 * `now`, capped; undefined when absent or unparseable.
 */
export function parseRetryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    // An HTTP date always has a weekday and a month name; this keeps "-5" from parsing as a year.
    if (!/[A-Za-z]/.test(trimmed)) return undefined;
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    ms = date - now.getTime();
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS);
}

/** The outcome of one attempt, as the schedule needs it. */
export interface AttemptResult {
  /** HTTP status, or undefined when no response arrived (network error, timeout, refusal). */
  httpStatus: number | undefined;
  retryAfterMs?: number | undefined;
}

/** What to do after an attempt. */
export type NextStep = { kind: 'DELIVERED' } | { kind: 'FAILED' } | { kind: 'RETRY'; delayMs: number };

/**
 * Decides the next step after attempt number `roundAttempts` (1-based, in the current round).
 * `random` is a number in [0, 1) for the jitter.
 */
export function nextStep(result: AttemptResult, roundAttempts: number, random: number): NextStep {
  const status = result.httpStatus;
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'DELIVERED' };
  // 410 Gone: the receiver says this endpoint will never accept it (Standard Webhooks advice).
  if (status === 410) return { kind: 'FAILED' };
  if (roundAttempts >= MAX_ATTEMPTS) return { kind: 'FAILED' };
  const base = RETRY_DELAYS_MS[roundAttempts - 1]!;
  const jittered = Math.round(base * (1 + JITTER_FRACTION * random));
  return { kind: 'RETRY', delayMs: Math.max(jittered, result.retryAfterMs ?? 0) };
}
