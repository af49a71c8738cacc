/**
 * Creating an account before its first posting, when the creator must know it was the one that
 * created it (e.g. to post an opening balance exactly once). One round trip.
 */
import type { AccountSpec } from './accounts.ts';
import type { Db } from '../db/client.ts';
import { insertAccountIfMissing } from '../db/queries/ledger.ts';

/**
 * Creates the account named by `spec` with a zero balance unless it exists. Returns true when this
 * call created it (in `tx`: it only exists for others once `tx` commits). A concurrent creator
 * waits on the unique key until the first one commits or rolls back.
 */
export function createAccountIfMissing(tx: Db, spec: AccountSpec, now: Date): Promise<boolean> {
  return insertAccountIfMissing(tx, { account: spec, createdAt: now });
}
