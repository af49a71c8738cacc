/**
 * Writes a funded pay-out: the PENDING transaction (with its fee and reservation) and the
 * reservation of amount + fee from the merchant's available balance (transaction-postings.ts),
 * which throws 400 INSUFFICIENT_BALANCE when the balance does not cover it. Two ways, one row and
 * one posting rule:
 * - `insertFundedPayOut`, inside the caller's database transaction (a batch's items, automatic
 *   withdrawals): the available balance stays locked until that transaction ends;
 * - `createFundedPayOut`, on its own (a transfer, a withdrawal asked for): the row, its event, its
 *   reservation and a transfer's idempotency key's claim in one statement, so the available
 *   balance is locked only while that statement runs.
 * The operator is called after commit (or by the poller's backstop).
 */
import { transaction, type Db } from '../db/client.ts';
import { insertTransactionWithPosting } from '../db/queries/transactions.ts';
import { DEADLOCK_DETECTED, sqlStateOf } from '../db/statement.ts';
import { preparePostings } from '../ledger/post-entry.ts';
import type { Services } from '../services.ts';
import { insertTransaction, type NewTransaction } from './insert-transaction.ts';
import type { IdempotencyClaim } from './idempotency.ts';
import { ensureSandboxOpening, insufficientBalance, isSandboxOpeningKnown, reservationPosting, reservePayOut, type ReservedPayOut } from './transaction-postings.ts';
import type { TransactionRow } from './transaction-view.ts';

/** What a funded pay-out needs; `type` is null for a transfer, WITHDRAWAL for a withdrawal. */
export interface FundedPayOut {
  applicationId: string;
  environment: string;
  type: 'WITHDRAWAL' | null;
  amount: number;
  feeAmount: number;
  currency: string;
  railCode: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  beneficiaryEmail: string | null;
  merchantReference: string | null;
  description: string | null;
}

type FundedServices = Pick<Services, 'ids' | 'clock' | 'config' | 'db'>;

/** The new row's values: a PENDING pay-out funded by the merchant, R = amount + fee reserved. */
function fundedPayOutValues(services: FundedServices, input: FundedPayOut, now: Date): NewTransaction & ReservedPayOut {
  return {
    id: services.ids.uuid(),
    reference: services.ids.reference('PAY_OUT'),
    applicationId: input.applicationId,
    direction: 'PAY_OUT',
    type: input.type,
    environment: input.environment,
    amount: input.amount,
    currency: input.currency,
    description: input.description,
    paymentMethod: input.railCode,
    beneficiaryAccount: input.beneficiaryAccount,
    beneficiaryName: input.beneficiaryName,
    beneficiaryEmail: input.beneficiaryEmail,
    merchantReference: input.merchantReference,
    nextPollAt: new Date(now.getTime() + services.config.connectorTimeoutMs + 5000),
    feeAmount: input.feeAmount,
    reservedAmount: input.amount + input.feeAmount,
    fundingSource: 'MERCHANT',
  };
}

/** Inserts and reserves the pay-out in `tx`; returns its row. */
export async function insertFundedPayOut(tx: Db, services: FundedServices, input: FundedPayOut): Promise<TransactionRow> {
  const now = services.clock.now();
  const row = await insertTransaction(tx, fundedPayOutValues(services, input, now), now);
  await reservePayOut(tx, services, row);
  return row;
}

/** Runs of the one statement before the pay-out is written in a database transaction instead. */
const STATEMENT_RUNS = 3;

/** The idempotency key a funded pay-out claims as it is written, and its stored response, made from the row. */
export interface FundedPayOutKey extends IdempotencyClaim {
  responseOf: (row: TransactionRow) => unknown;
}

/**
 * Writes the pay-out with one statement (`insertTransactionWithPosting`): its row, CREATED event
 * and reservation, and with `key` the key's claim, all or nothing; in `db`, a database handle or
 * a transaction's (`alone` false). Runs it again when the balance changed while it waited for the
 * lock, or, `alone`, when PostgreSQL ended it to break a deadlock (with a creation that claimed
 * the same key first and then locks the balance: a refund reusing the transfer's key at the same
 * moment). Returns the row, `held` when a live request held the key, or `stale` when every run
 * was; throws 400 INSUFFICIENT_BALANCE.
 */
async function writeFundedPayOut(
  db: Db,
  services: FundedServices,
  input: FundedPayOut,
  key: FundedPayOutKey | undefined,
  alone: boolean,
): Promise<TransactionRow | 'held' | 'stale'> {
  const now = services.clock.now();
  const values = fundedPayOutValues(services, input, now);
  const posting = await preparePostings(db, [reservationPosting(values, now)]);
  const claim = key && { ...key.scope, expiresAt: key.expiresAt, responseOf: key.responseOf };
  // In a database transaction, a stale run keeps the locks it took: the second run cannot be stale.
  for (let run = 0; run < (alone ? STATEMENT_RUNS : 2); run++) {
    const written = await insertTransactionWithPosting(db, values, posting, now, claim).catch((error: unknown) => {
      if (alone && sqlStateOf(error) === DEADLOCK_DETECTED) return null;
      throw error;
    });
    if (written === null || written.outcome.stale) continue;
    if (written.outcome.held) return 'held';
    if (written.outcome.refused.length > 0) throw insufficientBalance(written.row);
    return written.row;
  }
  return 'stale';
}

/**
 * Creates the pay-out outside any database transaction: its row, CREATED event and reservation
 * (and, with `key`, the idempotency key's claim with its stored response) in one statement, so
 * the available balance is locked only while that statement runs, and before the key: every
 * creation that claims a key after locking a balance takes them in that order. When a TEST
 * application's opening balance has not been written yet, or when concurrent spends changed the
 * balance under `STATEMENT_RUNS` runs in a row, the opening and the same statement run in one
 * database transaction instead. Returns the row, or null when a live request held the key (the
 * caller replays its stored response); throws 400 INSUFFICIENT_BALANCE.
 */
export async function createFundedPayOut(services: FundedServices, input: FundedPayOut): Promise<TransactionRow>;
export async function createFundedPayOut(services: FundedServices, input: FundedPayOut, key: FundedPayOutKey | undefined): Promise<TransactionRow | null>;
export async function createFundedPayOut(services: FundedServices, input: FundedPayOut, key?: FundedPayOutKey): Promise<TransactionRow | null> {
  if (isSandboxOpeningKnown(services, input)) {
    const written = await writeFundedPayOut(services.db, services, input, key, true);
    if (written !== 'stale') return written === 'held' ? null : written;
  }
  return transaction(services.db, async (tx) => {
    await ensureSandboxOpening(tx, services, input.applicationId, input.environment, input.currency);
    const written = await writeFundedPayOut(tx, services, input, key, false);
    if (written === 'stale') throw new Error('ledger: the spent accounts kept changing under their own lock');
    return written === 'held' ? null : written;
  });
}
