/**
 * Payments: pay-ins and pay-outs of the merchant API and the dashboard. Creating them (a charge, a
 * hosted checkout and its attempts, a transfer), refreshing them at their operator (the poller,
 * operator callbacks, signed or not), cancelling a checkout, and reading them back (a status, the
 * transaction and event lists, balances). Also everything `core.ts` offers: rows, views, rails,
 * fees, status changes, postings, creation and initiation.
 */
export * from './core.ts';
export { cancelCheckout } from './cancel-checkout.ts';
export { findLatestAttempt, findPendingAttempt } from './checkout-attempt-records.ts';
export { createCharge } from './create-charge.ts';
export { createCheckout } from './create-checkout.ts';
export { createTransfer, transferFee } from './create-transfer.ts';
export { handleOperatorCallback } from './handle-operator-callback.ts';
export { handleSignedCallback } from './handle-signed-callback.ts';
export { decodeEventCursor, EVENT_PAGE_DEFAULT, EVENT_PAGE_MAX, listEvents } from './list-events.ts';
export { decodeTransactionCursor, listTransactions, TRANSACTION_PAGE_DEFAULT, TRANSACTION_PAGE_MAX } from './list-transactions.ts';
export { merchantBalances, merchantDashboard } from './merchant-balances.ts';
export { readApplicationBalance } from './read-balance.ts';
export { refreshAttempt, refreshCheckout } from './refresh-checkout.ts';
export { decideRefresh, refreshTransaction, type RefreshDecision, type RefreshOutcome } from './refresh-transaction.ts';
export { startCheckoutAttempt } from './start-checkout-attempt.ts';
