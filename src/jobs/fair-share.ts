/**
 * Fair share of the event loop between the API and the background loops. The poller and the webhook
 * worker run in the process that serves the API. When their batches come back full (a backlog) they
 * go again at once, so under a burst of charges they took most of the event loop and requests
 * waited.
 *
 * The rule: a loop whose batch came back full rests before its next batch, as long as that batch
 * took. It rests only when both of these held during the batch:
 * - the API was serving: at least one request began;
 * - the event loop was saturated: busy at least `SATURATED_UTILIZATION` of the time.
 * So:
 * - A backlog with no API traffic drains at full speed.
 * - A batch that mostly waited (on an operator, a receiver or the database) does not rest.
 * - The rest is bounded by the loop's interval.
 * A batch's duration includes the requests served between its statements, so background work
 * gets less than half of a saturated event loop while requests come in, and the fewer statements
 * a batch takes, the larger its share.
 * The rest only delays the loop. It never drops work: what is due stays due, leased or not, as
 * before.
 */
import { performance } from 'node:perf_hooks';

/** Requests the API has begun since the process started; `http/app.ts` counts each in `onRequest`. */
export interface ApiActivity {
  requests: number;
}

/** A fresh counter (no request yet). */
export function createApiActivity(): ApiActivity {
  return { requests: 0 };
}

/** Share of a batch's wall time the event loop was busy (0–1) from which the loop counts as saturated. */
export const SATURATED_UTILIZATION = 0.8;

/** What a batch that came back full did: wall milliseconds, event-loop utilisation (0–1), requests begun meanwhile. */
export interface FullBatch {
  durationMs: number;
  utilization: number;
  requestsDuring: number;
}

/**
 * Milliseconds to rest after a full batch before the next one, at most `maxRestMs`.
 * It is the batch's own duration when the API was serving and the event loop was saturated,
 * else 0 (go again at once).
 */
export function restAfterFullBatch(batch: FullBatch, maxRestMs: number): number {
  if (batch.requestsDuring === 0 || batch.utilization < SATURATED_UTILIZATION) return 0;
  return Math.min(batch.durationMs, maxRestMs);
}

/** Measures one batch for `restAfterFullBatch`: call it as the batch starts, and `end` once the batch has returned. */
export function measureBatch(activity: ApiActivity): { end(): FullBatch } {
  const startedAt = performance.now();
  const loopBefore = performance.eventLoopUtilization();
  const requestsBefore = activity.requests;
  return {
    end: () => ({
      durationMs: performance.now() - startedAt,
      utilization: performance.eventLoopUtilization(loopBefore).utilization,
      requestsDuring: activity.requests - requestsBefore,
    }),
  };
}
