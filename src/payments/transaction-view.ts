/**
 * What merchants see of a transaction: the status responses of spec 4.3 (pay-in) and 4.5
 * (pay-out). Every listed field is present, null where inapplicable; `paymentUrl` only while a
 * checkout is PENDING; `failureCode`/`failureReason` only once FAILED.
 */
import type { transactions } from '../db/schema.ts';
import type { TransactionStatus } from '../domain/transaction-state.ts';

/** A transaction row. */
export type TransactionRow = typeof transactions.$inferSelect;

/** The public URL of a checkout session (compatibility.md: `<public base>/checkout/<token>`). */
export function checkoutUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/checkout/${token}`;
}

function failure(row: TransactionRow) {
  return row.status === 'FAILED'
    ? { failureCode: row.failureCode, failureReason: row.failureReason }
    : { failureCode: null, failureReason: null };
}

/** Pay-in status `data` (spec 4.3). */
export function payInStatusView(row: TransactionRow, publicBaseUrl: string) {
  return {
    reference: row.reference,
    type: (row.type ?? 'CHARGE') as 'CHECKOUT' | 'CHARGE',
    status: row.status as TransactionStatus,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    paymentMethod: row.paymentMethod,
    payerAccount: row.payerAccount,
    payerName: row.payerName,
    payerEmail: row.payerEmail,
    paymentUrl:
      row.type === 'CHECKOUT' && row.status === 'PENDING' && row.checkoutToken ? checkoutUrl(publicBaseUrl, row.checkoutToken) : null,
    ...failure(row),
  };
}

/** Pay-out status `data` (spec 4.5: pay-in's shape with beneficiary fields, without `type`). */
export function payOutStatusView(row: TransactionRow) {
  return {
    reference: row.reference,
    status: row.status as TransactionStatus,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    paymentMethod: row.paymentMethod,
    beneficiaryAccount: row.beneficiaryAccount,
    beneficiaryName: row.beneficiaryName,
    beneficiaryEmail: row.beneficiaryEmail,
    ...failure(row),
  };
}

/** The status view matching the transaction's direction. */
export function statusView(row: TransactionRow, publicBaseUrl: string) {
  return row.direction === 'PAY_IN' ? payInStatusView(row, publicBaseUrl) : payOutStatusView(row);
}
