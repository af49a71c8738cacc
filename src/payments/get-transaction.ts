/**
 * Spec 4.3 / 4.5: a transaction by reference, scoped to the caller's application. Another
 * application's reference is indistinguishable from an unknown one (404 TRANSACTION_NOT_FOUND).
 */
import { and, eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Direction } from '../domain/ids.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';

/** The transaction `reference` of `direction` owned by `applicationId`; throws TRANSACTION_NOT_FOUND. */
export async function getTransaction(
  services: Pick<Services, 'db'>,
  applicationId: string,
  direction: Direction,
  reference: string,
): Promise<TransactionRow> {
  const [row] = await services.db
    .select()
    .from(transactions)
    .where(
      and(eq(transactions.reference, reference), eq(transactions.applicationId, applicationId), eq(transactions.direction, direction)),
    )
    .limit(1);
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  return row;
}
