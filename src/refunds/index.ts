/**
 * Refunds: a SUCCESS pay-in refunded, fully or partly, by a pay-out to the number that paid
 * (the merchant API's `POST /api/v1/pay-in/refund`, the dashboard's refund), funded from the
 * merchant's available balance; and the refund of a late success, funded from SUSPENSE. What
 * remains refundable is one rule (`committedRefunds`), read under the pay-in's row lock.
 */
export {
  committedRefunds,
  insertRefund,
  refundability,
  refundableAmount,
  refundMerchantPayment,
  refundPayment,
  startRefund,
  type RefundCaller,
  type RefundData,
  type RefundInput,
  type Refundability,
  type StartRefundOptions,
} from './refund-payment.ts';
