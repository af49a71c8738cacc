/**
 * Withdrawal accounts as SharePay's dashboard shows them (each account's `providerName` and
 * `providerType`, the "Via …" of the account list), read from the rail the account's `providerCode`
 * names.
 */
import { inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { providers } from '../db/schema.ts';
import type { WithdrawalAccountRow } from '../withdrawals/index.ts';

/** A withdrawal account with its rail's name (e.g. « MTN Mobile Money ») and type (e.g. MOBILE_MONEY). */
export interface WithdrawalAccountView extends WithdrawalAccountRow {
  /** Null when no rail has the account's code any more (an administrator renamed it). */
  providerName: string | null;
  providerType: string | null;
}

/** `accounts`, in order, with their rails' name and type: one query whatever the number of accounts. */
export async function withdrawalAccountViews(db: Db, accounts: readonly WithdrawalAccountRow[]): Promise<WithdrawalAccountView[]> {
  const codes = [...new Set(accounts.map((a) => a.providerCode))];
  const rails =
    codes.length === 0
      ? []
      : await db.select({ code: providers.code, name: providers.name, type: providers.type }).from(providers).where(inArray(providers.code, codes));
  const byCode = new Map(rails.map((r) => [r.code, r]));
  return accounts.map((a) => ({ ...a, providerName: byCode.get(a.providerCode)?.name ?? null, providerType: byCode.get(a.providerCode)?.type ?? null }));
}
