/**
 * Writes a funded pay-out: the PENDING transaction (with its fee and reservation) and the
 * reservation of amount + fee from the merchant's available balance (transaction-postings.ts),
 * which throws 400 INSUFFICIENT_BALANCE when the balance does not cover it. Two ways, one row and
 * one posting rule:
 * - `insertFundedPayOut`, inside the caller's database transaction (batches, withdrawals, an
 *   idempotent transfer): the available balance stays locked until that transaction ends;
 * - `createFundedPayOut`, on its own: the row, its event and its reservation in one statement, so
 *   the available balance is locked only while that statement runs (a transfer without a key).
 * The operator is called after commit (or by the poller's backstop).
 */
import { transaction, type Db } from '../db/client.ts';
import { insertTransactionWithPosting } from '../db/queries/transactions.ts';
import { preparePostings } from '../ledger/post-entry.ts';
import type { Services } from '../services.ts';
import { insertTransaction, type NewTransaction } from './insert-transaction.ts';
import { insufficientBalance, isSandboxOpeningKnown, reservationPosting, reservePayOut, type ReservedPayOut } from './transaction-postings.ts';
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

/**
 * Creates the pay-out outside any database transaction: its row, CREATED event and reservation
 * in one statement (`insertTransactionWithPosting`), run again when the balance changed while it
 * waited for the lock (each run writes all or nothing). Falls back to `insertFundedPayOut` in a
 * database transaction when a TEST application's opening balance has not been written yet, or
 * when concurrent spends changed the balance under `STATEMENT_RUNS` runs in a row. Returns the
 * row; throws 400 INSUFFICIENT_BALANCE.
 */
export async function createFundedPayOut(services: FundedServices, input: FundedPayOut): Promise<TransactionRow> {
  if (isSandboxOpeningKnown(services, input)) {
    const now = services.clock.now();
    const values = fundedPayOutValues(services, input, now);
    const posting = await preparePostings(services.db, [reservationPosting(values, now)]);
    for (let run = 0; run < STATEMENT_RUNS; run++) {
      const { row, outcome } = await insertTransactionWithPosting(services.db, values, posting, now);
      if (outcome.stale) continue;
      if (outcome.refused.length > 0) throw insufficientBalance(row);
      return row;
    }
  }
  return transaction(services.db, (tx) => insertFundedPayOut(tx, services, input));
}
