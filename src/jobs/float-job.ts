/**
 * The float job (float/): every `FLOAT_JOB_TICK_MS` at most (sooner when `FLOAT_READ_INTERVAL_MS`
 * is shorter), reads the LIVE rails' operator balances that are due, sends the pay-outs the float
 * now covers and fails those that waited too long; then prepares the merchants' statements still
 * due. Stoppable; never overlaps itself.
 */
import { runFloatTick } from '../float/index.ts';
import { prepareDueStatements } from '../statements/index.ts';
import type { Services } from '../services.ts';
import { startLoop, type Loop } from './status-poller.ts';

/** Longest pause between two passes: a recovered float sends its queue within it. */
const FLOAT_JOB_TICK_MS = 15_000;

/** Starts the float job loop. */
export function startFloatJob(services: Services): Loop {
  const intervalMs = Math.min(FLOAT_JOB_TICK_MS, services.config.floatReadIntervalMs);
  return startLoop(
    'float',
    intervalMs,
    async () => {
      await runFloatTick(services);
      // Statements a stopped instance left unprepared (each is also prepared at once after its request).
      await prepareDueStatements(services);
    },
    services.log,
  );
}
