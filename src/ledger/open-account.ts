/**
 * Creating an account before its first posting, when the creator must know it was the one that
 * created it (e.g. to post an opening balance exactly once). One round trip.
 */
import { sql } from 'drizzle-orm';
import type { AccountSpec } from './accounts.ts';
import { rowsOf, type Db } from '../db/client.ts';

/**
 * Creates the account named by `spec` with a zero balance unless it exists. Returns true when this
 * call created it (in `tx`: it only exists for others once `tx` commits). A concurrent creator
 * waits on the unique key until the first one commits or rolls back.
 */
export async function createAccountIfMissing(tx: Db, spec: AccountSpec, now: Date): Promise<boolean> {
  const result = await tx.execute(sql`
    insert into ledger_accounts (key, kind, currency, normal_side, is_non_negative, application_id, environment, balance, last_delta, version, created_at)
    values (${spec.key}, ${spec.kind}, ${spec.currency}, ${spec.normalSide}, ${spec.isNonNegative}, ${spec.applicationId ?? null}::uuid,
            ${spec.environment ?? null}, 0, 0, 0, ${now.toISOString()}::timestamptz)
    on conflict (key) do nothing
    returning id`);
  return rowsOf(result).length === 1;
}
