/**
 * Writes a new PENDING transaction and its creation event, inside the caller's database
 * transaction. References are unique by index; a collision (48 random bits) is retried by the
 * caller's request failing loudly rather than silently reusing a reference.
 */
import { transactionEvents, transactions } from '../db/schema.ts';
import type { Db } from '../db/client.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Column values of a new transaction (status, timestamps and counters are set here). */
export type NewTransaction = Omit<typeof transactions.$inferInsert, 'status' | 'createdAt' | 'updatedAt' | 'pollAttempts'>;

/** Inserts the transaction as PENDING and records a CREATED event. Returns the row. */
export async function insertTransaction(tx: Db, values: NewTransaction, now: Date): Promise<TransactionRow> {
  const [row] = await tx
    .insert(transactions)
    .values({ ...values, status: 'PENDING', pollAttempts: 0, createdAt: now, updatedAt: now })
    .returning();
  await tx.insert(transactionEvents).values({
    transactionId: row!.id,
    fromStatus: null,
    toStatus: 'PENDING',
    cause: 'CREATED',
    createdAt: now,
  });
  return row!;
}
