/**
 * The roll-up of balance deltas: postings append one delta row per touched account instead of
 * updating its balance row (post-entry.ts), so that payments never wait on each other's balance
 * rows; the background jobs fold those rows into the stored balances here, a batch of accounts
 * at a time. A balance read is right at any moment (stored + deltas); the roll-up only keeps the
 * number of delta rows an account has small.
 */
import { transaction, type Db } from '../db/client.ts';
import { rollUpBalanceDeltas } from '../db/queries/ledger.ts';

/**
 * Folds the deltas of at most `limit` accounts per database transaction into their stored
 * balances, until no account is left with deltas or `rounds` transactions ran. Accounts locked by
 * a posting at that moment are skipped (the next run takes them). Returns the accounts rolled up.
 */
export async function rollUpBalances(db: Db, limit = 500, rounds = 10): Promise<number> {
  let total = 0;
  for (let round = 0; round < rounds; round++) {
    const done = await transaction(db, (tx) => rollUpBalanceDeltas(tx, limit));
    total += done;
    if (done < limit) break;
  }
  return total;
}
