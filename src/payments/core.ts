/**
 * The lower entry module of payments: what the capabilities the payments flows themselves use
 * (`late-success/`, `refunds/`, `webhooks/`, `metrics/`, the dashboard's transaction view) take
 * from payments. None of its modules imports those capabilities, so they can import it without a
 * runtime import cycle; everything else reaches payments through `index.ts`, which offers this too.
 *
 * - transaction rows and their status views (`transaction-view.ts`), rails (`rails.ts`), fees
 *   (`fees.ts`);
 * - the one writer of statuses (`apply-transition.ts`) and the postings of status changes
 *   (`transaction-postings.ts`);
 * - creating a transaction once (`idempotency.ts`, `insert-transaction.ts`,
 *   `insert-funded-pay-out.ts`), reading one (`get-transaction.ts`), and initiating it at its rail
 *   (`initiate-transaction.ts`, timing in `initiation-window.ts`, `poll-schedule.ts`,
 *   `late-watch.ts`, float in `float-queue.ts`).
 */
export { applyTransition, applyTransitions, applyTransitionsIn, creditRefund, type StatusChangeListener } from './apply-transition.ts';
export type { CheckoutAttemptRow } from './checkout-attempt-records.ts';
export { computeFee, railTermsFor, type FeeRule } from './fees.ts';
export { sendableFloat } from './float-queue.ts';
export { getTransaction, readTransactionStatus } from './get-transaction.ts';
export { createOnce, findReplay, hashRequest, idempotencyScope } from './idempotency.ts';
export { callbackUrlFor, initiateTransaction, withTimeout } from './initiate-transaction.ts';
export { conclusiveStatus, initiationStateOf } from './initiation-window.ts';
export { createFundedPayOut, insertFundedPayOut } from './insert-funded-pay-out.ts';
export { insertTransaction } from './insert-transaction.ts';
export { HELD_PAY_OUT_ASK_MS } from './late-watch.ts';
export { nextAskAt, watchDelayMs } from './poll-schedule.ts';
export { refundedPaymentOf } from './refunded-payment.ts';
export { activeRailsForCurrency, findActiveRail, findRail, offeredRails, resolveRailFor, type RailRow } from './rails.ts';
export { creditPayIn, ensureSandboxOpening, fundSandbox, postPayOutPaidAfterRelease, postPayOutResolution, releaseDueSettlements, reservePayOut } from './transaction-postings.ts';
export { heldAmountOf, payInStatusView, payOutStatusView, statusView, type TransactionRow } from './transaction-view.ts';
