/**
 * Spec 4.3 / 4.5: a transaction by reference, scoped to the caller's application. Another
 * application's reference is indistinguishable from an unknown one (404 TRANSACTION_NOT_FOUND).
 */
import { and, eq, sql } from 'drizzle-orm';
import { prepared } from '../db/queries/prepared.ts';
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
  const [row] = await prepared(services.db, 'transaction_by_reference', (db) =>
    db
      .select()
      .from(transactions)
      .where(
        and(
          eq(transactions.reference, sql.placeholder('reference')),
          eq(transactions.applicationId, sql.placeholder('applicationId')),
          eq(transactions.direction, sql.placeholder('direction')),
        ),
      )
      .limit(1)
      .prepare('transaction_by_reference'),
  ).execute({ reference, applicationId, direction });
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  return row;
}
