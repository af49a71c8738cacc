import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { nextPollDelayMs } from './poll-schedule.ts';

describe('nextPollDelayMs', () => {
  it('starts at 2 s and grows by 1.6x', () => {
    expect(nextPollDelayMs(0)).toBe(2000);
    expect(nextPollDelayMs(1)).toBeCloseTo(3200);
    expect(nextPollDelayMs(2)).toBeCloseTo(5120);
    expect(nextPollDelayMs(5)).toBeCloseTo(2000 * 1.6 ** 5);
  });

  it('never decreases and is capped at one minute', () => {
    let previous = 0;
    for (let attempt = 0; attempt < 200; attempt++) {
      const delay = nextPollDelayMs(attempt);
      expect(delay).toBeGreaterThanOrEqual(previous);
      expect(delay).toBeLessThanOrEqual(60_000);
      previous = delay;
    }
    expect(nextPollDelayMs(10)).toBe(60_000);
    expect(nextPollDelayMs(10_000)).toBe(60_000);
  });

  it('treats a negative attempt as the first one', () => {
    expect(nextPollDelayMs(-3)).toBe(2000);
  });

  it('leases a claimed row, by default, for at least the longest poll delay', () => {
    expect(loadConfig({}).pollerLeaseMs).toBeGreaterThanOrEqual(nextPollDelayMs(1000));
  });
});
