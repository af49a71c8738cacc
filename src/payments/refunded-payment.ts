/**
 * The pay-in a refund pays back, as its operator knows it (`RefundedPayment`), for the
 * connectors whose refund API names the original payment (Airtel).
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import type { RefundedPayment } from '../connectors/connector.ts';
import type { TransactionRow } from './transaction-view.ts';

/**
 * The pay-in `row` refunds, when `row` is a merchant-funded refund (`type` REFUND, funded by the
 * MERCHANT, `refundOf` set); undefined for any other row, and for a refund of a late success
 * (SUSPENSE: it returns another payment's money, paid out as a transfer).
 */
export async function refundedPaymentOf(
  db: Db,
  row: Partial<Pick<TransactionRow, 'type' | 'fundingSource' | 'refundOf'>>,
): Promise<RefundedPayment | undefined> {
  if (row.type !== 'REFUND' || row.fundingSource !== 'MERCHANT' || !row.refundOf) return undefined;
  const [payment] = await db
    .select({ reference: transactions.reference, operatorReference: transactions.operatorReference, operatorTransactionId: transactions.operatorTransactionId, amount: transactions.amount })
    .from(transactions)
    .where(eq(transactions.id, row.refundOf));
  return payment;
}
