/**
 * The state of a rail's float against its watermarks (`FLOAT_WATERMARKS`), pure.
 */

/** OK, LOW (below the low watermark), CRITICAL (below the critical one, or the operator said short), UNKNOWN (no balance known). */
export type FloatState = 'OK' | 'LOW' | 'CRITICAL' | 'UNKNOWN';

/** A rail's watermarks, base units; `critical` ≤ `low`. */
export interface Watermarks {
  low: number;
  critical: number;
}

/**
 * The state of a float that can still send `sendable` base units (null: unknown): strictly
 * below `critical` is CRITICAL, strictly below `low` is LOW, otherwise OK. With watermarks 0:0
 * only a negative float (more committed than held) is CRITICAL.
 */
export function floatStateOf(sendable: number | null, watermarks: Watermarks): FloatState {
  if (sendable === null) return 'UNKNOWN';
  if (sendable < watermarks.critical || sendable < 0) return 'CRITICAL';
  if (sendable < watermarks.low) return 'LOW';
  return 'OK';
}
