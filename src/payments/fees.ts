/**
 * Kolo's fees: per rail and direction, a percentage in whole basis points plus a fixed amount, from
 * the rails table (`fee_percentage`/`fee_fixed` for pay-ins, `pay_out_fee_*` for pay-outs),
 * replaced by a merchant's own override when one exists. Rounding: the percentage part is rounded
 * half-up to the base unit (XAF 0.5 → 1), then the fixed part is added. A pay-in's fee never
 * exceeds its amount (the merchant is never owed a negative net); a pay-out's fee is charged on top
 * of its amount.
 */
import type { Db } from '../db/client.ts';
import { feeTermsOf, type StoredFeeTerms } from '../db/queries/rails.ts';

/** A fee rule: basis points (1 bp = 0.01 %) and a fixed amount in base units. */
export interface FeeRule {
  basisPoints: number;
  fixed: number;
}

/** Direction of a fee: a pay-in credits the merchant, a pay-out debits them. */
export type FeeDirection = 'PAY_IN' | 'PAY_OUT';

/** Basis points of a stored percentage (`1.5` → 150); percentages are kept in whole basis points. */
export function basisPointsOf(percentage: string | number): number {
  return Math.round(Number(percentage) * 100);
}

/**
 * The fee on `amount` (base units): round-half-up(amount × bp / 10 000) + fixed, capped at
 * `amount` for a pay-in. Integers only (BigInt for the product), never a float.
 */
export function computeFee(amount: number, rule: FeeRule, direction: FeeDirection): number {
  const scaled = BigInt(amount) * BigInt(rule.basisPoints);
  const percentPart = Number((scaled + 5000n) / 10000n);
  const fee = percentPart + rule.fixed;
  return direction === 'PAY_IN' ? Math.min(fee, amount) : fee;
}

/** What a rail's rules say for one transaction: the fee rule and, for pay-ins, the settlement delay. */
export interface RailTerms {
  rule: FeeRule;
  settlementDelaySeconds: number;
}

/**
 * The terms of `railCode` in `direction` for the merchant owning `applicationId`: the merchant's
 * fee override when one exists, else the rail's fee (`railTermsFrom`). One query. A rail that no
 * longer exists charges nothing and settles at once.
 */
export async function railTermsFor(db: Db, railCode: string, direction: FeeDirection, applicationId: string): Promise<RailTerms> {
  return railTermsFrom(await feeTermsOf(db, { railCode, direction, applicationId }), direction);
}

/**
 * The terms that stored fee terms give in `direction`: the merchant's override (`overridePercentage`
 * and `overrideFixed`, both set) when there is one, else the rail's fee of that direction; the
 * settlement delay is the rail's for a pay-in, none for a pay-out. `stored` null, or without the
 * rail's fee (a rail that no longer exists): no fee, no delay.
 */
export function railTermsFrom(stored: StoredFeeTerms | null, direction: FeeDirection): RailTerms {
  if (!stored || stored.feePercentage === null || stored.feeFixed === null) return { rule: { basisPoints: 0, fixed: 0 }, settlementDelaySeconds: 0 };
  const settlementDelaySeconds = direction === 'PAY_IN' ? (stored.settlementDelaySeconds ?? 0) : 0;
  if (stored.overridePercentage !== null && stored.overrideFixed !== null) {
    return { rule: { basisPoints: basisPointsOf(stored.overridePercentage), fixed: stored.overrideFixed }, settlementDelaySeconds };
  }
  return { rule: { basisPoints: basisPointsOf(stored.feePercentage), fixed: stored.feeFixed }, settlementDelaySeconds };
}
