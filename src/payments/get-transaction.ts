/**
 * Spec 4.3 / 4.5: a transaction by reference, scoped to the caller's application AND to its
 * key's environment. Another application's reference, or one of the other environment (a LIVE
 * key asking for a TEST transaction, or the reverse), is indistinguishable from an unknown one
 * (404 TRANSACTION_NOT_FOUND).
 */
import { and, eq, sql } from 'drizzle-orm';
import { prepared } from '../db/queries/prepared.ts';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Direction } from '../domain/ids.ts';
import type { Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';

/** The transaction `reference` of `direction` owned by `applicationId` in `environment`; throws TRANSACTION_NOT_FOUND. */
export async function getTransaction(
  services: Pick<Services, 'db'>,
  scope: { applicationId: string; environment: Environment },
  direction: Direction,
  reference: string,
): Promise<TransactionRow> {
  const { applicationId, environment } = scope;
  const [row] = await prepared(services.db, 'transaction_by_reference_env', (db) =>
    db
      .select()
      .from(transactions)
      .where(
        and(
          eq(transactions.reference, sql.placeholder('reference')),
          eq(transactions.applicationId, sql.placeholder('applicationId')),
          eq(transactions.direction, sql.placeholder('direction')),
          eq(transactions.environment, sql.placeholder('environment')),
        ),
      )
      .limit(1)
      .prepare('transaction_by_reference_env'),
  ).execute({ reference, applicationId, direction, environment });
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  return row;
}
