import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { nextAskAt, nextPollDelayMs, watchDelayMs } from './poll-schedule.ts';

describe('nextPollDelayMs', () => {
  it('asks at 2 s, 3.2 s later, then every 4 s for about two minutes', () => {
    expect(nextPollDelayMs(0)).toBe(2000);
    expect(nextPollDelayMs(1)).toBeCloseTo(3200);
    expect(nextPollDelayMs(2)).toBe(4000);
    expect(nextPollDelayMs(29)).toBe(4000);
    let elapsed = 0;
    for (let attempt = 0; attempt < 30; attempt++) elapsed += nextPollDelayMs(attempt);
    expect(elapsed).toBeGreaterThanOrEqual(115_000);
  });

  it('then grows by 1.6x', () => {
    expect(nextPollDelayMs(30)).toBeCloseTo(6400);
    expect(nextPollDelayMs(31)).toBeCloseTo(10_240);
  });

  it('never decreases and is capped at one minute', () => {
    let previous = 0;
    for (let attempt = 0; attempt < 200; attempt++) {
      const delay = nextPollDelayMs(attempt);
      expect(delay).toBeGreaterThanOrEqual(previous);
      expect(delay).toBeLessThanOrEqual(60_000);
      previous = delay;
    }
    expect(nextPollDelayMs(40)).toBe(60_000);
    expect(nextPollDelayMs(10_000)).toBe(60_000);
  });

  it('treats a negative attempt as the first one', () => {
    expect(nextPollDelayMs(-3)).toBe(2000);
  });

  it('leases a claimed row, by default, for at least the longest poll delay', () => {
    expect(loadConfig({}).pollerLeaseMs).toBeGreaterThanOrEqual(nextPollDelayMs(1000));
  });
});

describe('watchDelayMs', () => {
  it('starts at 2 s and grows by 1.6x up to a minute', () => {
    expect(watchDelayMs(0)).toBe(2000);
    expect(watchDelayMs(2)).toBeCloseTo(5120);
    expect(watchDelayMs(10)).toBe(60_000);
  });
});

describe('nextAskAt', () => {
  const now = new Date('2026-11-26T10:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms);
  it("follows the schedule, or the operator's longer pause (Daraja: STK Query 20 s after the push)", () => {
    expect(nextAskAt(now, 2000, undefined, null)).toEqual(at(2000));
    expect(nextAskAt(now, 2000, 18_000, null)).toEqual(at(18_000));
    expect(nextAskAt(now, 60_000, 15_000, null)).toEqual(at(60_000));
  });
  it('never past the limit (the deadline or the watch end: one last question there)', () => {
    expect(nextAskAt(now, 2000, 30_000, at(10_000))).toEqual(at(10_000));
    expect(nextAskAt(now, 2000, undefined, at(2000))).toEqual(at(2000));
    expect(nextAskAt(now, 2000, undefined, at(2001))).toEqual(at(2000));
  });
});
