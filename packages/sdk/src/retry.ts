/**
 * When and how long to wait before retrying a request, as pure functions (stripe-node's model:
 * `shouldRetry` decides from the outcome alone, the delay is a jittered exponential backoff).
 *
 * A request is retried only when repeating it cannot do a second thing: reads, and creates sent
 * with an idempotency key (every retry carries the same key, so Kolo answers the first result).
 * Among those, only outcomes that say nothing about the request itself are retried: no answer
 * (network error, timeout), a 5xx, and a 429 whose `Retry-After` is not longer than
 * `MAX_RETRY_AFTER_MS`. A 4xx is the caller's to fix and is never retried.
 */

/** Upper bound on `maxRetries`: more retries than this only hide an outage. */
export const MAX_RETRIES_LIMIT = 10;

/** A `Retry-After` longer than this (one minute) is not waited for: the 429 is thrown. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** What one attempt ended with. */
export type AttemptOutcome =
  | { kind: 'network' }
  | { kind: 'timeout' }
  | { kind: 'response'; status: number; retryAfterMs: number | null };

/** Inputs of `shouldRetry`. `retriesDone` counts retries already made (0 after the first attempt). */
export interface RetryInput {
  outcome: AttemptOutcome;
  retriesDone: number;
  maxRetries: number;
  /** True for a read, or a create sent with an idempotency key. */
  isIdempotent: boolean;
}

/** True when the request should be sent again (see the module comment for the rule). */
export function shouldRetry(input: RetryInput): boolean {
  if (!input.isIdempotent || input.retriesDone >= input.maxRetries) return false;
  const { outcome } = input;
  if (outcome.kind !== 'response') return true;
  if (outcome.status === 429) return outcome.retryAfterMs === null || outcome.retryAfterMs <= MAX_RETRY_AFTER_MS;
  return outcome.status >= 500;
}

/** Backoff settings, in milliseconds. */
export interface BackoffOptions {
  /** Wait before the first retry, before jitter. */
  initialDelayMs: number;
  /** Cap of the exponential growth. */
  maxDelayMs: number;
}

/** Defaults: 0.5 s, doubling, at most 8 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 500, maxDelayMs: 8_000 };

/**
 * Milliseconds to wait before retry number `retriesDone + 1`: `initialDelayMs · 2^retriesDone`
 * capped at `maxDelayMs`, scaled by a jitter in [0.5, 1) from `random()` (so that many clients
 * cut off together do not come back together), and never less than a `Retry-After` the server gave.
 */
export function retryDelayMs(retriesDone: number, retryAfterMs: number | null, backoff: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exponential = Math.min(backoff.initialDelayMs * 2 ** retriesDone, backoff.maxDelayMs);
  const jittered = Math.round(exponential * (0.5 + random() / 2));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * A `Retry-After` header in milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3);
 * null when absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
