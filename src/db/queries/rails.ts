/**
 * The rails' reads (`providers`) that run on every payment, behind typed functions; the checks of
 * the merchant API that depend on the rail live in src/payments/rails.ts. Reads of one event-loop
 * turn share one statement (batch.ts); nothing is cached between turns.
 */
import { mapRow, perDatabase } from '../batch.ts';
import type { Db } from '../client.ts';
import { providers } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';

/** A rail row. */
export type RailRow = typeof providers.$inferSelect;

const railsByCode = statement('rails_by_code_v1', 'select * from providers where code = any($1::text[])');
const railsOf = perDatabase<string, RailRow | null>(async (db, codes) => {
  const { rows } = await runStatement<Record<string, unknown>>(db, railsByCode, [[...new Set(codes)]]);
  const byCode = new Map(rows.map((r) => [r.code as string, mapRow(providers, r)]));
  return codes.map((c) => byCode.get(c) ?? null);
});

/**
 * The rail with provider code `code`, active or not, or null. The codes asked in one event-loop
 * turn are read by one statement. Throws the driver's error.
 */
export function railByCode(db: Db, input: { code: string }): Promise<RailRow | null> {
  return railsOf(db).load(input.code);
}

/**
 * The fee terms stored for a rail in one direction: the rail's fee (`feePercentage` as stored, a
 * decimal string; `feeFixed` in base units) and settlement delay, and the merchant's override of
 * that rail and direction (both null when none). All null when the rail no longer exists.
 */
export interface StoredFeeTerms {
  feePercentage: string | null;
  feeFixed: number | null;
  settlementDelaySeconds: number | null;
  overridePercentage: string | null;
  overrideFixed: number | null;
}

/**
 * The SQL of the fee-terms rule: the select of `StoredFeeTerms`' columns (`fee_percentage`,
 * `fee_fixed`, `settlement_delay_seconds`, `override_percentage`, `override_fixed`) for the rail
 * `railCode`, the direction `direction` and the merchant owning application `applicationId`, each
 * an SQL expression (a parameter, a column of an outer query, a literal). One row, or none when
 * the rail does not exist. Used as it is and as a lateral subquery of the status change's read.
 */
export function feeTermsSelect(railCode: string, direction: string, applicationId: string): string {
  return `select (case when ${direction} = 'PAY_IN' then p.fee_percentage else p.pay_out_fee_percentage end)::text as fee_percentage,
          case when ${direction} = 'PAY_IN' then p.fee_fixed else p.pay_out_fee_fixed end as fee_fixed,
          p.settlement_delay_seconds, o.fee_percentage::text as override_percentage, o.fee_fixed as override_fixed
     from providers p
     left join applications a on a.id = ${applicationId}
     left join merchant_fee_overrides o on o.merchant_id = a.merchant_id and o.provider_code = p.code and o.direction = ${direction}
    where p.code = ${railCode}`;
}

const feeTermsSql = statement('rail_fee_terms_v1', feeTermsSelect('$1', '$2', '$3::uuid'));

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * The `StoredFeeTerms` in the columns of `raw` named `<prefix>fee_percentage`, `<prefix>fee_fixed`,
 * `<prefix>settlement_delay_seconds`, `<prefix>override_percentage` and `<prefix>override_fixed`
 * (percentages selected as text).
 */
export function storedFeeTermsFrom(raw: Record<string, unknown>, prefix = ''): StoredFeeTerms {
  return {
    feePercentage: (raw[`${prefix}fee_percentage`] as string | null | undefined) ?? null,
    feeFixed: numberOrNull(raw[`${prefix}fee_fixed`]),
    settlementDelaySeconds: numberOrNull(raw[`${prefix}settlement_delay_seconds`]),
    overridePercentage: (raw[`${prefix}override_percentage`] as string | null | undefined) ?? null,
    overrideFixed: numberOrNull(raw[`${prefix}override_fixed`]),
  };
}

/**
 * The fee terms of rail `railCode` in `direction` ('PAY_IN' or 'PAY_OUT') for the merchant owning
 * application `applicationId`, or null when the rail does not exist. One statement.
 */
export async function feeTermsOf(db: Db, input: { railCode: string; direction: 'PAY_IN' | 'PAY_OUT'; applicationId: string }): Promise<StoredFeeTerms | null> {
  const { rows } = await runStatement<Record<string, unknown>>(db, feeTermsSql, [input.railCode, input.direction, input.applicationId]);
  return rows[0] ? storedFeeTermsFrom(rows[0]) : null;
}
