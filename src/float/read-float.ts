/**
 * Reading a LIVE rail's operator balance (on the float job's schedule, or on demand by staff):
 * the reading is stored, the rail's state is compared with the one staff were last notified of,
 * a crossing notifies them once (`notifyCrossing`), and the pay-outs waiting for float are sent
 * if it now covers them (`releaseQueuedPayOuts`).
 */
import { insertFloatReading, latestFloatReading } from '../db/queries/float.ts';
import { withTimeout } from '../payments/initiate-transaction.ts';
import type { Services } from '../services.ts';
import { notifyCrossing } from './notify-float.ts';
import { expireQueuedPayOuts, releaseQueuedPayOuts } from './float-queue-jobs.ts';
import { liveRailCodes, railFloat, type RailFloat } from './rail-float.ts';
import { observeFloat } from './float-metrics.ts';

/**
 * Reads `railCode`'s operator balance now (bounded by `CONNECTOR_TIMEOUT_MS`) and stores the
 * reading (an operator without a balance query stores an unknown reading); then notifies a
 * crossing and releases the queue. Returns the rail's float after it, or null for a rail without
 * a LIVE connector.
 */
export async function readRailFloat(services: Services, railCode: string): Promise<RailFloat | null> {
  const connector = services.connectors.live.get(railCode);
  const before = await railFloat(services, railCode);
  if (!connector || !before) return null;
  const result = connector.readBalance
    ? await withTimeout((signal) => connector.readBalance!(signal), services.config.connectorTimeoutMs)
    : ({ kind: 'UNKNOWN', error: "l'opérateur ne propose pas de consultation de solde" } as const);
  const now = services.clock.now();
  if (result.kind === 'BALANCE' && result.currency !== before.currency) {
    await insertFloatReading(services.db, { railCode, amount: null, currency: result.currency, error: `currency ${result.currency} is not the rail's ${before.currency}`, readAt: now });
  } else if (result.kind === 'BALANCE') {
    await insertFloatReading(services.db, { railCode, amount: result.amount, currency: result.currency, error: null, readAt: now });
  } else {
    await insertFloatReading(services.db, { railCode, amount: null, currency: null, error: result.error.slice(0, 500), readAt: now });
    services.log.warn({ rail: railCode, error: result.error }, 'float: operator balance unknown');
  }
  services.metrics.floatReads.inc({ rail: railCode, outcome: result.kind });
  await settleFloat(services, railCode);
  return railFloat(services, railCode);
}

/**
 * After a reading or an operator's "wallet short": notifies a state crossing (once), sends what
 * the float now covers, and refreshes the rail's metrics.
 */
export async function settleFloat(services: Services, railCode: string): Promise<void> {
  const float = await railFloat(services, railCode);
  if (!float) return;
  await notifyCrossing(services, float);
  await releaseQueuedPayOuts(services, railCode);
  const after = (await railFloat(services, railCode)) ?? float;
  observeFloat(services.metrics, after);
}

/**
 * One pass of the float job: each LIVE rail whose last reading is older than
 * `FLOAT_READ_INTERVAL_MS` (or never read) is read; every rail's queue is then settled (sent if
 * covered, failed past its maximum wait). Returns how many rails were read.
 */
export async function runFloatTick(services: Services): Promise<number> {
  await expireQueuedPayOuts(services);
  const now = services.clock.now().getTime();
  let read = 0;
  for (const railCode of liveRailCodes(services)) {
    const last = await latestFloatReading(services.db, railCode);
    if (!last || now - last.readAt.getTime() >= services.config.floatReadIntervalMs) {
      await readRailFloat(services, railCode);
      read++;
    } else {
      await settleFloat(services, railCode);
    }
  }
  return read;
}
