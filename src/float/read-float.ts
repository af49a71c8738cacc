/**
 * Reading a LIVE rail's operator balance (on the float job's schedule, or on demand by staff):
 * the reading is stored, the rail's state is compared with the one staff were last notified of,
 * a crossing notifies them once (`notifyCrossing`), and the pay-outs waiting for float are sent
 * if it now covers them (`releaseQueuedPayOuts`).
 */
import { insertFloatReading, latestFloatReading } from '../db/queries/float.ts';
import { findRail, withTimeout } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { notifyCrossing } from './notify-float.ts';
import { expireQueuedPayOuts, releaseQueuedPayOuts } from './float-queue-jobs.ts';
import { liveRailCodes, railFloat, type RailFloat } from './rail-float.ts';
import { observeFloat } from './float-metrics.ts';
import { balanceResultUrl } from './balance-token.ts';
import type { BalanceResult } from '../connectors/connector.ts';
import { isBalanceQueryAllowed, noteBalanceKnown, noteBalanceQuery } from './read-backoff.ts';

/**
 * Reads `railCode`'s operator balance now (bounded by `CONNECTOR_TIMEOUT_MS`) and stores the
 * reading (an operator without a balance query stores an unknown reading); then notifies a
 * crossing and releases the queue. An operator answering asynchronously (Daraja) stores nothing
 * now: its result is stored when it arrives (`receiveBalanceResult`). Returns the rail's float
 * after it, or null for a rail without a LIVE connector.
 */
export async function readRailFloat(services: Services, railCode: string): Promise<RailFloat | null> {
  const connector = services.connectors.live.get(railCode);
  const before = await railFloat(services, railCode);
  if (!connector || !before) return null;
  const resultUrl = balanceResultUrl(services, railCode);
  // Unanswered until a balance is stored (read-backoff.ts).
  if (connector.readBalance) noteBalanceQuery(services, railCode, services.clock.now());
  const result = connector.readBalance
    ? await withTimeout((signal) => connector.readBalance!(signal, resultUrl), services.config.connectorTimeoutMs)
    : ({ kind: 'UNKNOWN', error: "l'opérateur ne propose pas de consultation de solde" } as const);
  if (result.kind === 'REQUESTED') {
    // Asynchronous (Daraja): the balance arrives on the result URL (balance-result.ts).
    services.metrics.floatReads.inc({ rail: railCode, outcome: result.kind });
    await settleFloat(services, railCode);
    return railFloat(services, railCode);
  }
  await storeReading(services, railCode, result.kind === 'UNREACHABLE' ? { kind: 'UNKNOWN', error: result.error } : result, services.clock.now());
  return railFloat(services, railCode);
}

/**
 * Stores `result` as `railCode`'s reading at `readAt` (an asynchronous Result: when its query was
 * sent; a synchronous answer: when it came) — a balance in another currency than the rail's is
 * stored as unknown, with why — counts it, then settles the float (`settleFloat`). A balance
 * ends the back-off of the queries sent up to `readAt` (read-backoff.ts).
 */
export async function storeReading(services: Services, railCode: string, result: BalanceResult, readAt: Date): Promise<void> {
  const rail = await findRail(services.db, railCode);
  if (result.kind === 'BALANCE' && rail && result.currency !== rail.currency) {
    await insertFloatReading(services.db, { railCode, amount: null, currency: result.currency, error: `currency ${result.currency} is not the rail's ${rail.currency}`, readAt });
  } else if (result.kind === 'BALANCE') {
    await insertFloatReading(services.db, { railCode, amount: result.amount, currency: result.currency, error: null, readAt });
    noteBalanceKnown(services, railCode, readAt);
  } else {
    const error = result.kind === 'UNKNOWN' ? result.error : 'no balance in the answer';
    await insertFloatReading(services.db, { railCode, amount: null, currency: null, error: error.slice(0, 500), readAt });
    services.log.warn({ rail: railCode, error }, 'float: operator balance unknown');
  }
  services.metrics.floatReads.inc({ rail: railCode, outcome: result.kind });
  await settleFloat(services, railCode);
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
 * `FLOAT_READ_INTERVAL_MS` (or never read), and whose balance queries are not held back by
 * their back-off (read-backoff.ts), is read; every rail's queue is then settled (sent if
 * covered, failed past its maximum wait). Returns how many rails were read.
 */
export async function runFloatTick(services: Services): Promise<number> {
  await expireQueuedPayOuts(services);
  const now = services.clock.now().getTime();
  let read = 0;
  for (const railCode of liveRailCodes(services)) {
    const last = await latestFloatReading(services.db, railCode);
    const isDue = !last || now - last.readAt.getTime() >= services.config.floatReadIntervalMs;
    if (isDue && isBalanceQueryAllowed(services, railCode, services.clock.now())) {
      await readRailFloat(services, railCode);
      read++;
    } else {
      await settleFloat(services, railCode);
    }
  }
  return read;
}
