/**
 * Writes a funded pay-out inside the caller's database transaction: the PENDING transaction
 * (with its fee and reservation) and the reservation of amount + fee from the merchant's
 * available balance (transaction-postings.ts), which throws 400 INSUFFICIENT_BALANCE when the
 * balance does not cover it. Transfers and withdrawals share it; the operator is called after
 * commit (or by the poller's backstop).
 */
import type { Db } from '../db/client.ts';
import type { Services } from '../services.ts';
import { insertTransaction } from './insert-transaction.ts';
import { reservePayOut } from './transaction-postings.ts';
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

/** Inserts and reserves the pay-out; returns its row. */
export async function insertFundedPayOut(tx: Db, services: Pick<Services, 'ids' | 'clock' | 'config' | 'db'>, input: FundedPayOut): Promise<TransactionRow> {
  const now = services.clock.now();
  const row = await insertTransaction(
    tx,
    {
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
    },
    now,
  );
  await reservePayOut(tx, services, row);
  return row;
}
