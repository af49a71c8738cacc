/**
 * The float of each LIVE rail, as staff see it: the operator's balance and when it was read, the
 * ledger's float (the rail's OPERATOR_FLOAT account), their drift, what pay-outs in flight have
 * committed, the queue waiting for float, the watermarks and the state.
 */
import { accountBalance } from '../ledger/balances.ts';
import { operatorFloatAccount } from '../ledger/accounts.ts';
import { committedPayOutAmount, floatRailOf, latestFloatReading, latestKnownFloatReading, queuedPayOutTotals } from '../db/queries/float.ts';
import { findRail, type RailRow, sendableFloat } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { floatStateOf, type FloatState, type Watermarks } from './float-state.ts';

/** One LIVE rail's float; amounts in base units of `currency`. */
export interface RailFloat {
  railCode: string;
  operator: string;
  currency: string;
  /** Whether the operator's contract offers a balance query (else the balance stays unknown). */
  hasBalanceQuery: boolean;
  /** The operator's balance at its last successful reading, or null (never read, or unknown). */
  operatorBalance: number | null;
  /** When that balance was read, or null. */
  operatorBalanceReadAt: string | null;
  /** The last reading's error, when the last reading failed. */
  lastReadError: string | null;
  /** The ledger's float of the rail (OPERATOR_FLOAT, LIVE). */
  ledgerFloat: number;
  /** operatorBalance − ledgerFloat, or null when the balance is unknown. */
  drift: number | null;
  /** LIVE pay-outs sent and not yet final. */
  inFlight: number;
  /** What a new pay-out may still use: balance − in flight − paid since the reading (null: unknown). */
  sendable: number | null;
  queuedCount: number;
  queuedAmount: number;
  lowWatermark: number;
  criticalWatermark: number;
  state: FloatState;
  /** The state staff were last notified of (UNKNOWN before the first reading). */
  notifiedState: FloatState;
}

/** The watermarks of `railCode` (`FLOAT_WATERMARKS`; 0:0 when not named). */
export function watermarksOf(services: Pick<Services, 'config'>, railCode: string): Watermarks {
  return services.config.floatWatermarks[railCode] ?? { low: 0, critical: 0 };
}

/** The rail codes with a LIVE connector, sorted. */
export function liveRailCodes(services: Pick<Services, 'connectors'>): string[] {
  return [...services.connectors.live.keys()].sort();
}

/** The float of LIVE rail `railCode`, or null when it has no LIVE connector or no rail row. */
export async function railFloat(services: Pick<Services, 'db' | 'config' | 'connectors'>, railCode: string): Promise<RailFloat | null> {
  const connector = services.connectors.live.get(railCode);
  const rail: RailRow | null = connector ? await findRail(services.db, railCode) : null;
  if (!connector || !rail) return null;
  const [last, known, notified, queued] = await Promise.all([
    latestFloatReading(services.db, railCode),
    latestKnownFloatReading(services.db, railCode),
    floatRailOf(services.db, railCode),
    queuedPayOutTotals(services.db, railCode),
  ]);
  const committed = await committedPayOutAmount(services.db, railCode, null);
  const ledgerFloat = await accountBalance(services.db, operatorFloatAccount(railCode, 'LIVE', rail.currency).key);
  const sendable = await sendableFloat(services.db, railCode);
  const watermarks = watermarksOf(services, railCode);
  const operatorBalance = known?.amount ?? null;
  return {
    railCode,
    operator: rail.operator,
    currency: rail.currency,
    hasBalanceQuery: typeof connector.readBalance === 'function',
    operatorBalance,
    operatorBalanceReadAt: known ? known.readAt.toISOString() : null,
    lastReadError: last && last.amount === null ? last.error : null,
    ledgerFloat,
    drift: operatorBalance === null ? null : operatorBalance - ledgerFloat,
    inFlight: committed.inFlight,
    sendable,
    queuedCount: queued.count,
    queuedAmount: queued.amount,
    lowWatermark: watermarks.low,
    criticalWatermark: watermarks.critical,
    state: floatStateOf(sendable, watermarks),
    notifiedState: (notified?.state as FloatState | undefined) ?? 'UNKNOWN',
  };
}

/** The float of every LIVE rail. */
export async function railFloats(services: Pick<Services, 'db' | 'config' | 'connectors'>): Promise<RailFloat[]> {
  const out: RailFloat[] = [];
  for (const code of liveRailCodes(services)) {
    const float = await railFloat(services, code);
    if (float) out.push(float);
  }
  return out;
}
