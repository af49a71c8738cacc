/**
 * Fair share between the API and the background loops (src/jobs/fair-share.ts): a loop whose batch
 * came back full rests as long as the batch took, only while API requests come in. Measured on the
 * real `startLoop` with real timers: the rest is a `setTimeout`, which never fires early, so a
 * rested gap is at least the batch's length whatever the machine's load.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startLoop, type Loop } from '../../src/jobs/status-poller.ts';
import { createApiActivity, type ApiActivity } from '../../src/jobs/fair-share.ts';
import { startHarness, type Harness } from '../harness.ts';

const BATCH_MS = 60;
const log = pino({ level: 'silent' });

/** Keeps the event loop busy for `ms` (a CPU-bound batch). */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Runs a loop of full batches (each `batch()`, then `{ more: true }`) until `count` batches have
 * run; returns each gap in ms between the end of a batch and the start of the next.
 */
async function gapsBetweenFullBatches(count: number, batch: () => Promise<void>, activity?: ApiActivity): Promise<number[]> {
  const starts: number[] = [];
  const ends: number[] = [];
  let loop: Loop | undefined;
  await new Promise<void>((resolve) => {
    loop = startLoop(
      'test-loop',
      // The idle interval, which also bounds a rest: the first batch starts after it.
      5 * BATCH_MS,
      async () => {
        starts.push(performance.now());
        await batch();
        ends.push(performance.now());
        if (starts.length === count) resolve();
        return { more: true };
      },
      log,
      activity,
    );
  });
  await loop!.stop();
  return starts.slice(1).map((start, i) => start - ends[i]!);
}

describe('background loops leave the API its share of the event loop', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('rests after a CPU-bound full batch while requests come in, as long as the batch took', async () => {
    const activity = createApiActivity();
    const gaps = await gapsBetweenFullBatches(
      4,
      async () => {
        activity.requests += 3; // requests began during the batch
        busyFor(BATCH_MS);
      },
      activity,
    );
    // A timer never fires early; 1 ms for its millisecond rounding.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(BATCH_MS - 1);
  });

  it('goes again at once when no request came in, or without an activity counter', async () => {
    const idleApi = await gapsBetweenFullBatches(4, async () => busyFor(BATCH_MS), createApiActivity());
    const noCounter = await gapsBetweenFullBatches(4, async () => busyFor(BATCH_MS));
    for (const gap of [...idleApi, ...noCounter]) expect(gap).toBeLessThan(BATCH_MS / 2);
  });

  it('goes again at once after a batch that waited instead of computing', async () => {
    const activity = createApiActivity();
    const gaps = await gapsBetweenFullBatches(
      4,
      async () => {
        activity.requests += 3;
        await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
      },
      activity,
    );
    for (const gap of gaps) expect(gap).toBeLessThan(BATCH_MS / 2);
  });

  it('counts every request the API begins, answered or refused', async () => {
    harness = await startHarness();
    const before = harness.services.apiActivity.requests;
    await harness.request('GET', '/actuator/health');
    await harness.request('GET', '/api/v1/pay-in/check_status/PI-000000000000'); // no key: refused
    await harness.request('GET', '/no/such/route');
    expect(harness.services.apiActivity.requests - before).toBe(3);
  });
});
