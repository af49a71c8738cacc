/**
 * The pay-in and pay-out status reads (`GET /api/v1/pay-in/check_status/{reference}`,
 * `GET /api/v1/pay-out/check_status/{reference}`): a transaction by reference, scoped to the
 * caller's application AND to its key's environment. Another application's reference, or one of the
 * other environment (a LIVE key asking for a TEST transaction, or the reverse), is
 * indistinguishable from an unknown one (404 TRANSACTION_NOT_FOUND).
 */
import { findStatusViewInScope, type StatusViewRow } from '../db/queries/status-view.ts';
import { findTransactionInScope } from '../db/queries/transactions.ts';
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
  const row = await findTransactionInScope(services.db, { applicationId: scope.applicationId, environment: scope.environment, direction, reference });
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  return row;
}

/**
 * The merchant API's status read: the part of the transaction `reference` of `direction` that the
 * status views show, owned by the caller's application in its key's environment. Throws
 * TRANSACTION_NOT_FOUND, and the driver's error.
 */
export async function readTransactionStatus(
  services: Pick<Services, 'db'>,
  caller: { applicationId: string; environment: Environment },
  direction: 'PAY_IN' | 'PAY_OUT',
  reference: string,
): Promise<StatusViewRow> {
  const row = await findStatusViewInScope(services.db, { applicationId: caller.applicationId, environment: caller.environment, direction, reference });
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  return row;
}
