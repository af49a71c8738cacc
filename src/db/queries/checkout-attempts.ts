/**
 * Statements over `checkout_attempts` behind typed functions (the poller's claim).
 */
import { mapRow } from '../batch.ts';
import type { Db } from '../client.ts';
import { checkoutAttempts } from '../schema-checkout.ts';
import { runStatement, statement } from '../statement.ts';

// Selected once (a materialized CTE) and reached by primary key, as the transactions' claim
// (transactions.ts `leaseDueTransactions`).
const claimAttempts = statement(
  'claim_due_attempts_v4',
  `with due as materialized (
     select id from checkout_attempts
      where status = 'PENDING' and next_poll_at <= $1::timestamptz and rail_code <> all($4::text[])
      order by next_poll_at
      limit $2
      for update skip locked)
   update checkout_attempts a
      set next_poll_at = $3::timestamptz
    where a.id = any(array(select id from due))
   returning a.*`,
);

/**
 * Leases due checkout attempts still PENDING (next poll at or before `now`, oldest first, at most
 * `limit`, skipping locked rows and the rails `skipRails`): their next poll moves to `leaseUntil`.
 * Locks attempt rows only. Returns the rows as leased.
 */
export async function leaseDueAttempts(
  db: Db,
  input: { now: Date; limit: number; leaseUntil: Date; skipRails?: string[] },
): Promise<(typeof checkoutAttempts.$inferSelect)[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, claimAttempts, [input.now.toISOString(), input.limit, input.leaseUntil.toISOString(), input.skipRails ?? []]);
  return rows.map((r) => mapRow(checkoutAttempts, r));
}
