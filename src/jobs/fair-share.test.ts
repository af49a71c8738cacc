import { describe, expect, it } from 'vitest';
import { restAfterFullBatch, SATURATED_UTILIZATION } from './fair-share.ts';

describe('restAfterFullBatch', () => {
  it('rests as long as the batch took while the API is served on a saturated event loop', () => {
    expect(restAfterFullBatch({ durationMs: 42, utilization: 0.97, requestsDuring: 130 }, 1000)).toBe(42);
    expect(restAfterFullBatch({ durationMs: 42, utilization: SATURATED_UTILIZATION, requestsDuring: 1 }, 1000)).toBe(42);
  });

  it('goes again at once when no request came in: a backlog alone drains at full speed', () => {
    expect(restAfterFullBatch({ durationMs: 42, utilization: 1, requestsDuring: 0 }, 1000)).toBe(0);
  });

  it('goes again at once when the batch mostly waited (on an operator, a receiver, the database)', () => {
    expect(restAfterFullBatch({ durationMs: 900, utilization: 0.3, requestsDuring: 50 }, 1000)).toBe(0);
    expect(restAfterFullBatch({ durationMs: 900, utilization: SATURATED_UTILIZATION - 0.01, requestsDuring: 50 }, 1000)).toBe(0);
  });

  it('never rests longer than the bound (the loop interval)', () => {
    expect(restAfterFullBatch({ durationMs: 5000, utilization: 1, requestsDuring: 10 }, 1000)).toBe(1000);
  });
});
