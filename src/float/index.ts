/**
 * Operator float: what Kolo holds at each LIVE rail's operator, read from the operator's balance
 * query on a schedule and on demand, compared with the ledger, watched against watermarks (staff
 * notified once per crossing), and the queue of pay-outs that wait for it instead of failing.
 */
export { floatStateOf, type FloatState, type Watermarks } from './float-state.ts';
export { railFloat, railFloats, liveRailCodes, watermarksOf, type RailFloat } from './rail-float.ts';
export { readRailFloat, runFloatTick, settleFloat, storeReading } from './read-float.ts';
export { cancelMerchantPayOut, cancelQueuedPayOut, expireQueuedPayOuts, releaseQueuedPayOuts } from './float-queue-jobs.ts';
export { balanceResultUrl, readBalanceToken, BALANCE_RESULT_MAX_AGE_MS } from './balance-token.ts';
export { balanceRetryDelayMs, unansweredBalanceQueries } from './read-backoff.ts';
export { receiveBalanceResult, type BalanceResultOutcome } from './balance-result.ts';
