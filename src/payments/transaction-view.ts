/**
 * What merchants see of a transaction: the responses of the pay-in status read
 * (`GET /api/v1/pay-in/check_status/{reference}`) and the pay-out status read
 * (`GET /api/v1/pay-out/check_status/{reference}`). Every listed field is present, null where
 * inapplicable; `paymentUrl` only while a checkout is PENDING; `failureCode`/`failureReason` only
 * once FAILED.
 */
import type { transactions } from '../db/schema.ts';
import type { StatusViewRow } from '../db/queries/status-view.ts';
import type { TransactionStatus } from '../domain/transaction-state.ts';

/** A transaction row. */
export type TransactionRow = typeof transactions.$inferSelect;

/** The public URL of a checkout session: `<public base>/checkout/<token>`, as integrations expect. */
export function checkoutUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/checkout/${token}`;
}

function failure(row: StatusViewRow) {
  return row.status === 'FAILED'
    ? { failureCode: row.failureCode, failureReason: row.failureReason }
    : { failureCode: null, failureReason: null };
}

/**
 * The money fields: `feeAmount` (null until known: a pay-in's fee is fixed at SUCCESS) and
 * `netAmount` — for a pay-in what the merchant is credited (amount − fee), for a pay-out what the
 * merchant's balance is debited (amount + fee).
 */
function money(row: StatusViewRow) {
  const fee = row.feeAmount;
  if (fee === null) return { feeAmount: null, netAmount: null };
  return { feeAmount: fee, netAmount: row.direction === 'PAY_IN' ? row.amount - fee : row.amount + fee };
}

/**
 * Extension fields of both directions: `operatorTransactionId`, the operator's own id of the
 * money movement (as on the customer's SMS; null until the operator names it), and
 * `lateSuccess`, true once the operator reported money moved after Kolo had closed the
 * transaction (the status itself never changes: see late-success/); and, only while a
 * reconciliation case about it is open, `reconciliation: "IN_REVIEW"` (the status unchanged).
 */
function operatorFields(row: StatusViewRow) {
  return {
    operatorTransactionId: row.operatorTransactionId,
    lateSuccess: row.isLateSuccess,
    ...(row.isInReconciliation ? { reconciliation: 'IN_REVIEW' as const } : {}),
  };
}

/**
 * A pay-out's `heldAmount`: amount + fee still reserved from the balance while the operator has
 * not answered definitively — the whole reservation while PENDING, and after a FAILED `TIMEOUT`
 * whose outcome is still unknown; 0 once paid or released.
 */
export function heldAmountOf(row: Pick<StatusViewRow, 'status' | 'isReservationHeld' | 'reservedAmount'>): number {
  const isHeld = row.status === 'PENDING' || (row.status === 'FAILED' && row.isReservationHeld);
  return isHeld ? (row.reservedAmount ?? 0) : 0;
}

/** The `data` of the pay-in status read, with the money fields and `refundedAmount`. */
export function payInStatusView(row: StatusViewRow, publicBaseUrl: string) {
  return {
    reference: row.reference,
    type: (row.type ?? 'CHARGE') as 'CHECKOUT' | 'CHARGE' | 'FUND_COLLECTION',
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
    ...money(row),
    refundedAmount: row.refundedAmount,
    ...operatorFields(row),
  };
}

/** What a pay-out's creation answer and its status read both show of it after its reference and status. */
export function payOutFields(
  row: Pick<StatusViewRow, 'amount' | 'currency' | 'description' | 'paymentMethod' | 'beneficiaryAccount' | 'beneficiaryName' | 'beneficiaryEmail'>,
) {
  return {
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    paymentMethod: row.paymentMethod,
    beneficiaryAccount: row.beneficiaryAccount,
    beneficiaryName: row.beneficiaryName,
    beneficiaryEmail: row.beneficiaryEmail,
  };
}

/**
 * The `data` of the pay-out status read (the pay-in's shape with beneficiary fields, without
 * `type`), with the money fields and `queuedForFloat` (extension: PENDING and waiting for the
 * rail's float, not yet sent to the operator; float/).
 */
export function payOutStatusView(row: StatusViewRow) {
  return {
    reference: row.reference,
    status: row.status as TransactionStatus,
    ...payOutFields(row),
    ...failure(row),
    ...money(row),
    ...operatorFields(row),
    heldAmount: heldAmountOf(row),
    queuedForFloat: row.status === 'PENDING' && row.floatQueuedAt !== null,
  };
}

/** The status view matching the transaction's direction. */
export function statusView(row: StatusViewRow, publicBaseUrl: string) {
  return row.direction === 'PAY_IN' ? payInStatusView(row, publicBaseUrl) : payOutStatusView(row);
}
