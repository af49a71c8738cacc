/**
 * A rail's float as Prometheus gauges (`kolo_float_amount`, `kolo_float_state`), set after each
 * reading or settlement.
 */
import type { Metrics } from '../metrics/metrics.ts';
import type { RailFloat } from './rail-float.ts';

const STATES = ['OK', 'LOW', 'CRITICAL', 'UNKNOWN'] as const;

/** Sets `float`'s gauges; an unknown amount is removed rather than shown as 0. */
export function observeFloat(metrics: Pick<Metrics, 'floatAmount' | 'floatState'>, float: RailFloat): void {
  const amounts: Record<string, number | null> = {
    operator_balance: float.operatorBalance,
    ledger_float: float.ledgerFloat,
    drift: float.drift,
    in_flight: float.inFlight,
    sendable: float.sendable,
    queued: float.queuedAmount,
  };
  for (const [kind, value] of Object.entries(amounts)) {
    if (value === null) metrics.floatAmount.remove({ rail: float.railCode, kind });
    else metrics.floatAmount.set({ rail: float.railCode, kind }, value);
  }
  for (const state of STATES) metrics.floatState.set({ rail: float.railCode, state }, state === float.state ? 1 : 0);
}
