import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextStep, parseRetryAfterMs, RETRY_AFTER_MAX_MS, RETRY_DELAYS_MS } from './retry-schedule.ts';

const now = new Date('2026-11-20T10:00:00Z');

describe('nextStep', () => {
  it('counts any 2xx as delivered, 410 as final, anything else as a retry', () => {
    for (const status of [200, 202, 204, 299]) expect(nextStep({ httpStatus: status }, 1, 0).kind).toBe('DELIVERED');
    expect(nextStep({ httpStatus: 410 }, 1, 0).kind).toBe('FAILED');
    for (const status of [undefined, 199, 301, 302, 400, 404, 429, 500, 503]) expect(nextStep({ httpStatus: status }, 1, 0).kind).toBe('RETRY');
  });

  it('follows the schedule with 0–20 % jitter, and fails after the last attempt', () => {
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const base = RETRY_DELAYS_MS[n - 1]!;
      expect(nextStep({ httpStatus: 500 }, n, 0)).toEqual({ kind: 'RETRY', delayMs: base });
      const high = nextStep({ httpStatus: 500 }, n, 0.999999);
      expect(high.kind === 'RETRY' && high.delayMs <= base * 1.2 && high.delayMs > base).toBe(true);
    }
    expect(nextStep({ httpStatus: 500 }, MAX_ATTEMPTS, 0).kind).toBe('FAILED');
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it('waits for Retry-After when longer than the schedule', () => {
    expect(nextStep({ httpStatus: 429, retryAfterMs: 60_000 }, 1, 0)).toEqual({ kind: 'RETRY', delayMs: 60_000 });
    expect(nextStep({ httpStatus: 429, retryAfterMs: 1_000 }, 1, 0)).toEqual({ kind: 'RETRY', delayMs: 5_000 });
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delta seconds and HTTP dates, caps them, ignores garbage', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Fri, 20 Nov 2026 10:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfterMs('Fri, 20 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs(String(10 * 24 * 3600), now)).toBe(RETRY_AFTER_MAX_MS);
    expect(parseRetryAfterMs('bientôt', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});
