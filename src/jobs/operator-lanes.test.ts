import { describe, expect, it } from 'vitest';
import { OperatorLanes } from './operator-lanes.ts';

/** A task that ends when `finish()` is called. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

describe('OperatorLanes', () => {
  it('a lane stuck on slow questions does not hold back another lane', async () => {
    const lanes = new OperatorLanes({ concurrency: 2, ratePerSecond: 1000, queue: 2 });
    const slow = gate();
    let slowStarted = 0;
    for (let n = 0; n < 4; n++) lanes.submit('mtn', async () => {
      slowStarted += 1;
      await slow.done;
    });
    const fast: number[] = [];
    for (let n = 0; n < 3; n++) lanes.submit('orange', async () => void fast.push(n));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fast).toEqual([0, 1, 2]);
    // At most `concurrency` of the slow lane run; the rest wait, and the lane is full.
    expect(slowStarted).toBe(2);
    expect(lanes.load().mtn).toEqual({ running: 2, waiting: 2 });
    expect(lanes.isFull('mtn')).toBe(true);
    expect(lanes.fullLanes()).toEqual(['mtn']);
    expect(lanes.submit('mtn', async () => {})).toBe(false);
    slow.finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slowStarted).toBe(4);
    await lanes.stop();
  });

  it('starts at most `ratePerSecond` tasks a second per lane', async () => {
    let clock = 0;
    const lanes = new OperatorLanes({ concurrency: 100, ratePerSecond: 5, queue: 100 }, () => clock);
    let started = 0;
    for (let n = 0; n < 12; n++) lanes.submit('wave', async () => void (started += 1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toBe(5);
    clock = 1000;
    // The refill timer fires at the next token's time; the clock says a second passed.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(started).toBe(10);
    await lanes.stop();
  });

  it('an unbounded rate starts every task up to the concurrency at once', async () => {
    const lanes = new OperatorLanes({ concurrency: 3, ratePerSecond: Number.POSITIVE_INFINITY, queue: 10 });
    let started = 0;
    for (let n = 0; n < 8; n++) lanes.submit('sandbox', async () => void (started += 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toBe(8);
    await lanes.stop();
  });

  it('stopping abandons the waiting tasks and waits for the running ones', async () => {
    const lanes = new OperatorLanes({ concurrency: 1, ratePerSecond: 1000, queue: 5 });
    const running = gate();
    let finished = false;
    const abandoned: number[] = [];
    lanes.submit('mpesa', async () => {
      await running.done;
      finished = true;
    });
    for (let n = 0; n < 3; n++) lanes.submit('mpesa', async () => {}, () => abandoned.push(n));
    const stopped = lanes.stop();
    expect(abandoned).toEqual([0, 1, 2]);
    running.finish();
    await stopped;
    expect(finished).toBe(true);
    expect(lanes.submit('mpesa', async () => {})).toBe(false);
  });
});
