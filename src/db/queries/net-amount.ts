/**
 * A transaction's net amount as a SQL expression, for the dashboard's sums (the summary's daily
 * volume, the chart's volumes), so they add up the `netAmount` its lists show.
 */
import { sql, type SQL } from 'drizzle-orm';
import { transactions } from '../schema.ts';

/**
 * The net amount of a `transactions` row, base units: for a pay-in what the merchant is credited
 * (amount − fee), for a pay-out what the merchant's balance is debited (amount + fee). A fee not
 * taken counts 0: a pay-in's fee is fixed at SUCCESS, so a pending or failed one counts its amount.
 */
export function netAmountSql(): SQL {
  return sql`(${transactions.amount} + (case when ${transactions.direction} = 'PAY_IN' then -1 else 1 end) * coalesce(${transactions.feeAmount}, 0))`;
}
