/** Source of the current time, injected everywhere so tests can drive time by hand. */
export interface Clock {
  now(): Date;
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to (`advance(ms)`, `set(date)`); for tests and benchmarks. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(date: Date): void;
}

/** Creates a manual clock starting at `start` (default: the real time now). */
export function createManualClock(start: Date = new Date()): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
}

/**
 * Formats a date as ISO 8601 in the server's local time with no zone designator,
 * e.g. `2026-11-20T14:03:07.123`: the form of the response envelope's `timestamp`.
 */
export function formatLocalTimestamp(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}` +
    `T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}`
  );
}
