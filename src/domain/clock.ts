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
  const ms = date.getMilliseconds();
  return (
    `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}` +
    `T${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}`
  );
}

/** `n` (0–99) in two digits. */
function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
