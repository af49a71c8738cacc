/**
 * The batch dispatcher loop: every `POLLER_INTERVAL_MS`, one run of `dispatchBatches`
 * (batches/dispatch-batches.ts): expires unapproved batches, sends at most
 * `BATCH_ITEMS_PER_RAIL_PER_RUN` items per rail as pay-outs, and closes finished batches. Runs
 * with the poller; several instances share the items (each is locked with SKIP LOCKED and sent once).
 */
import { dispatchBatches } from '../batches/index.ts';
import type { Services } from '../services.ts';
import { startLoop, type Loop } from './status-poller.ts';

/** Starts the dispatcher loop. The per-rail bound is the rate: a run that left items waits for the next interval. */
export function startBatchDispatcher(services: Services): Loop {
  // The run's `more` is not passed on: startLoop would go again at once, and the bound is per interval.
  return startLoop(
    'batch-dispatcher',
    services.config.pollerIntervalMs,
    async () => {
      await dispatchBatches(services);
    },
    services.log,
  );
}
