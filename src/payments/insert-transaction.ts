/**
 * Writes a new PENDING transaction and its creation event, always through the one insert of
 * db/queries/transactions.ts (`insertTransactions`):
 * - `insertTransaction`: inside the caller's database transaction (creations that write more in
 *   the same transaction: a pay-out's ledger reservation, a refund, a checkout).
 * - `insertPayInOnce`: charges, in ONE statement: the idempotency key's claim with its stored
 *   response, the transaction and its CREATED event commit together or not at all, in a single
 *   round trip; without a key, coalesced with the other charges of the same event-loop turn.
 * References are unique by index; a collision (48 random bits) makes the request fail loudly
 * rather than silently reuse a reference.
 */
import type { Db } from '../db/client.ts';
import { insertTransactionCoalesced, insertTransactionOnce, insertTransactions, type NewTransaction } from '../db/queries/transactions.ts';
import type { Services } from '../services.ts';
import type { IdempotencyScope } from './idempotency.ts';
import type { TransactionRow } from './transaction-view.ts';

export type { NewTransaction };

/** Inserts the transaction as PENDING with its CREATED event, in `tx`: `insertTransactions` of one. Returns the row. */
export async function insertTransaction(tx: Db, values: NewTransaction, now: Date): Promise<TransactionRow> {
  const [row] = await insertTransactions(tx, [values], now);
  return row!;
}

/** The columns a pay-in creation sets (charge or checkout); absent = null. */
export interface NewPayIn {
  id: string;
  reference: string;
  applicationId: string;
  type: 'CHARGE' | 'CHECKOUT' | 'FUND_COLLECTION';
  environment: string;
  amount: number;
  currency: string;
  description?: string | null;
  paymentMethod?: string | null;
  payerAccount?: string | null;
  payerName?: string | null;
  payerEmail?: string | null;
  merchantReference?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  checkoutToken?: string | null;
  expiresAt?: Date | null;
  /** Set when the initiation was prepared before the insert (a connector that prepares locally). */
  operatorReference?: string | null;
  callbackToken?: string | null;
  initiatedAt?: Date | null;
  /** With `initiatedAt`: until when a request of the initiation may still reach the operator. */
  inFlightUntil?: Date | null;
  deadlineAt?: Date | null;
  nextPollAt: Date;
}

/**
 * Inserts a pay-in as PENDING with its CREATED event and, with an idempotency `scope`, claims
 * the key with `responseData` as the stored response — one statement, one round trip, one
 * database transaction (`insertTransactionOnce`). Without a scope the insert shares a statement
 * with the other inserts of the same event-loop turn. Returns false when the key was already live
 * (the caller replays the stored response). `responseData` must be the create's final 201 `data`.
 */
export async function insertPayInOnce(
  services: Pick<Services, 'db' | 'config'>,
  scope: IdempotencyScope | null,
  values: NewPayIn,
  responseData: unknown,
  now: Date,
): Promise<boolean> {
  const row: NewTransaction = { ...values, direction: 'PAY_IN' };
  if (!scope) {
    await insertTransactionCoalesced(services.db, row, now);
    return true;
  }
  const expiresAt = new Date(now.getTime() + services.config.idempotencyTtlHours * 3_600_000);
  const claim = { applicationId: scope.applicationId, key: scope.key, endpoint: scope.endpoint, requestHash: scope.requestHash, responseBody: responseData, expiresAt };
  return (await insertTransactionOnce(services.db, row, claim, now)) !== null;
}
