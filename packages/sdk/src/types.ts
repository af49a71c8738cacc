/**
 * Request and response shapes of Kolo's merchant API, written from the server's zod schemas.
 * Amounts are integers in the currency's base unit (XAF has none below the franc: 5000 is
 * 5 000 FCFA); currencies are ISO 4217 codes; dates are ISO 8601 strings as sent in JSON.
 */

/** A transaction status. */
export type TransactionStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'CANCELLED' | 'REFUNDED';

/** The kind of a pay-in. */
export type PayInType = 'CHECKOUT' | 'CHARGE' | 'FUND_COLLECTION';

/** `POST /api/v1/pay-in/checkout` body: a hosted payment page for `amount`. */
export interface CreateCheckoutParams {
  /** Integer ≥ 1, base units. */
  amount: number;
  /** ISO 4217, the application's currency. */
  currency: string;
  /** Your own reference, at most 255 characters. */
  merchantReference?: string | null;
  /** At most 255 characters, shown to the payer. */
  description?: string | null;
  /** Absolute http(s) URL the payer returns to after paying, at most 500 characters. */
  successUrl?: string | null;
  /** Absolute http(s) URL the payer returns to after cancelling, at most 500 characters. */
  cancelUrl?: string | null;
}

/** A created checkout session. Send the payer to `paymentUrl`. */
export interface Checkout {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentUrl: string;
}

/** `POST /api/v1/pay-in/charge` body: debit a mobile-money account directly. */
export interface CreateChargeParams {
  amount: number;
  currency: string;
  /** Payment method (rail) code, for example `MTN_MOMO_CM`. */
  paymentMethod: string;
  /** The payer's number (MSISDN): `237…`, `+237…`, `00237…` or national. */
  payerAccount: string;
  merchantReference?: string | null;
  description?: string | null;
  payerName?: string | null;
  payerEmail?: string | null;
}

/** A created charge; its outcome comes later (webhook, or `payIns.status`). */
export interface Charge {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentMethod: string | null;
  payerAccount: string | null;
  payerName: string | null;
  payerEmail: string | null;
  /** Only on redirect rails (Wave): open this address for the payer to pay. */
  redirectUrl?: string;
}

/** `POST /api/v1/pay-out/transfer` body: send money to a mobile-money account. */
export interface CreateTransferParams {
  amount: number;
  currency: string;
  paymentMethod: string;
  /** The beneficiary's number (MSISDN). */
  beneficiaryAccount: string;
  /** At most 255 characters. */
  beneficiaryName: string;
  beneficiaryEmail?: string | null;
  merchantReference?: string | null;
  description?: string | null;
}

/** A created transfer. */
export interface Transfer {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentMethod: string | null;
  beneficiaryAccount: string | null;
  beneficiaryName: string | null;
  beneficiaryEmail: string | null;
}

/** `POST /api/v1/pay-in/refund` body. */
export interface CreateRefundParams {
  /** Reference of the successful payment to refund (`PI-…`). */
  reference: string;
  /** Base units; by default everything not yet refunded. */
  amount?: number;
  /** At most 255 characters. */
  reason?: string | null;
}

/** A created refund: a pay-out (`PO-…`) to the payer, funded by the available balance. */
export interface Refund {
  reference: string;
  paymentReference: string;
  status: 'PENDING';
  amount: number;
  /** Transfer fee of the refund, paid by the merchant. */
  feeAmount: number;
  currency: string;
  reason: string | null;
}

/** Fields of both status reads. */
interface StatusFields {
  reference: string;
  status: TransactionStatus;
  amount: number;
  currency: string;
  description: string | null;
  paymentMethod: string | null;
  failureCode: string | null;
  failureReason: string | null;
  /** Kolo's fee in base units; null until it is fixed (a payment: on success). */
  feeAmount: number | null;
  /** Pay-in: amount credited (amount − fee). Pay-out: amount debited (amount + fee). */
  netAmount: number | null;
  /** The operator's id of the money movement (the one in the customer's SMS), or null. */
  operatorTransactionId: string | null;
  /** True when the operator moved the money after the transaction was closed. */
  lateSuccess: boolean;
  /** Present (`IN_REVIEW`) only while a reconciliation case with the operator is open on it; the status is unchanged. */
  reconciliation?: 'IN_REVIEW';
}

/** `GET /api/v1/pay-in/check_status/{reference}` data. */
export interface PayInStatus extends StatusFields {
  type: PayInType;
  payerAccount: string | null;
  payerName: string | null;
  payerEmail: string | null;
  paymentUrl: string | null;
  /** Sum of successful refunds, base units. */
  refundedAmount: number;
}

/** `GET /api/v1/pay-out/check_status/{reference}` data. */
export interface PayOutStatus extends StatusFields {
  beneficiaryAccount: string | null;
  beneficiaryName: string | null;
  beneficiaryEmail: string | null;
  /** Amount + fee still reserved on the balance while the operator has not answered for good; 0 after. */
  heldAmount: number;
  /** True while the PENDING pay-out waits for the rail's float, not yet sent (it may be cancelled). */
  queuedForFloat: boolean;
}

/** Webhook settings of the key's application (`GET`/`PATCH /api/v1/webhook`). */
export interface WebhookSettings {
  applicationId: string;
  applicationName: string;
  webhookUrl: string | null;
  /** The first 14 characters of the signing secret then `...`, or null when there is none. */
  webhookSecretPrefix: string | null;
  /** ISO 8601. */
  updatedAt: string;
}

/** Result of `POST /api/v1/webhook/test`. */
export interface WebhookTestResult {
  /** True when your endpoint answered 2xx. */
  delivered: boolean;
  webhookUrl: string;
  /** Your endpoint's HTTP status, or null when it did not answer. */
  httpStatus: number | null;
  /** ISO 8601. */
  sentAt: string;
}

/** `GET /api/v1/balance` data: the key's application in the key's environment, base units. */
export interface Balance {
  applicationId: string;
  environment: 'TEST' | 'LIVE';
  currency: string;
  /** Available for transfers and withdrawals. */
  availableAmount: number;
  /** Collected, not yet settled by the payment method. */
  pendingAmount: number;
  /** Reserved for transfers in progress. */
  reservedAmount: number;
}

/** What every listed transaction carries besides its status read. */
interface ListedFields {
  merchantReference: string | null;
  /** ISO 8601 in the server's local time, without zone (as the envelope's `timestamp`). */
  createdAt: string;
  /** ISO 8601 in the server's local time, without zone. */
  updatedAt: string;
}

/**
 * One item of `GET /api/v1/transactions`: the status read of its direction with the listed fields.
 * Narrow on `direction` to get the pay-in or pay-out fields.
 */
export type Transaction = PayInListItem | PayOutListItem;

/** A pay-in of the transaction list. */
export interface PayInListItem extends PayInStatus, ListedFields {
  direction: 'PAY_IN';
}

/** A pay-out of the transaction list. */
export interface PayOutListItem extends PayOutStatus, ListedFields {
  direction: 'PAY_OUT';
}

/** A transaction type of the list filter: pay-ins CHECKOUT, CHARGE, FUND_COLLECTION; pay-outs PAYOUT, WITHDRAWAL, REFUND. */
export type TransactionType = PayInType | 'PAYOUT' | 'WITHDRAWAL' | 'REFUND';

/**
 * Query of `GET /api/v1/transactions`. `from` and `to` are `YYYY-MM-DD` (a whole day) or an ISO
 * 8601 date-time; without a zone they are the server's local time, as its timestamps.
 */
export interface ListTransactionsParams {
  status?: TransactionStatus;
  type?: TransactionType;
  /** Created at or after (inclusive). */
  from?: string;
  /** Created before (exclusive); a date alone includes that whole day. */
  to?: string;
  /** Page size, 1 to 100 (Kolo's default 50). */
  limit?: number;
  /** `nextCursor` of the previous page; absent: the first page (newest). */
  cursor?: string;
}

/** One page of transactions, newest first. `nextCursor` is null on the last page. */
export interface TransactionPage {
  items: Transaction[];
  nextCursor: string | null;
}

/** Query of `GET /api/v1/events`. */
export interface ListEventsParams {
  /** Return the events after this cursor (an event's `cursor`, or a page's `nextCursor`). */
  after?: string;
  /** Page size, 1 to 100 (Kolo's default 50). */
  limit?: number;
}

/** Names of the events Kolo announces (as webhooks and in the events API). */
export type KoloEventName =
  | 'payment.success'
  | 'payment.failed'
  | 'payment.cancelled'
  | 'payout.success'
  | 'payout.failed'
  | 'payment.refunded'
  | 'refund.success'
  | 'refund.failed'
  | 'payment.late_success'
  | 'payout.late_success'
  | 'payout.reservation_released'
  | 'batch.completed'
  | 'batch.partly_failed'
  | 'webhook.test';

/** `data` of a pay-in event: the pay-in status read and your reference. */
export type PayInEventData = PayInStatus & { merchantReference: string | null };
/** `data` of a pay-out or refund event: the pay-out status read and your reference. */
export type PayOutEventData = PayOutStatus & { merchantReference: string | null };

/**
 * `data` of `payment.late_success`: the operator moved the money after Kolo closed the pay-in
 * (`lateSuccess` is true); `latePayment` says what Kolo did with it: refunds the payer (`REFUND`,
 * the refund's reference) or keeps the money (`KEEP`), as the application's policy says;
 * `attemptNumber` is the checkout attempt that was paid late (null for a charge).
 */
export type PayInLateSuccessData = PayInEventData & {
  latePayment: { decision: 'REFUND' | 'KEEP'; refundReference: string | null; attemptNumber: number | null; operatorTransactionId: string | null };
};

/**
 * `data` of `payout.late_success` and `payout.reservation_released`: the operator's late answer
 * about a pay-out failed at its deadline; the held reservation was consumed (paid) or released.
 */
export type PayOutReservationData = PayOutEventData & { reservation: { amount: number; outcome: 'CONSUMED' | 'RELEASED' } };

/**
 * `data` of `batch.completed` (every item paid) and `batch.partly_failed` (at least one failed):
 * the batch, its totals (base units) and how many of its items were paid or failed. Each item's
 * own `payout.success` / `payout.failed` is sent as for any pay-out.
 */
export interface BatchEventData {
  id: string;
  status: 'COMPLETED' | 'PARTLY_FAILED';
  environment: string;
  currency: string;
  itemCount: number;
  totalAmount: number;
  feeAmount: number;
  reservedAmount: number;
  progress: { waiting: number; pending: number; succeeded: number; failed: number };
  createdBy: string | null;
  approvedBy: string | null;
  createdAt: string;
  expiresAt: string;
  approvedAt: string | null;
  closedAt: string | null;
}

/** The `data` carried by each event name. */
export interface KoloEventDataMap {
  'payment.success': PayInEventData;
  'payment.failed': PayInEventData;
  'payment.cancelled': PayInEventData;
  'payment.refunded': PayInEventData;
  'payment.late_success': PayInLateSuccessData;
  'payout.success': PayOutEventData;
  'payout.failed': PayOutEventData;
  'refund.success': PayOutEventData;
  'refund.failed': PayOutEventData;
  'payout.late_success': PayOutReservationData;
  'payout.reservation_released': PayOutReservationData;
  'batch.completed': BatchEventData;
  'batch.partly_failed': BatchEventData;
  'webhook.test': { message: string };
}

/**
 * An event as a webhook body carries it (and as the events API's `payload`): `event`, `timestamp`
 * (Unix seconds of the event), `applicationId`, `data`, and `id` (`evt_…`, the same on every
 * retry: deduplicate on it). Narrow on `event` to get the typed `data`.
 */
export type KoloEvent = {
  [E in KoloEventName]: { event: E; timestamp: number; applicationId: string; data: KoloEventDataMap[E]; id: string };
}[KoloEventName];

/** One entry of the events API. */
export interface KoloEventEntry {
  /** Opaque position of this event; pass it as `after` to read what follows. */
  cursor: string;
  /** `evt_…`, the same as the payload's `id` and the delivery's `webhook-id`. */
  id: string;
  event: KoloEventName;
  /** ISO 8601 in the server's local time, without zone. */
  createdAt: string;
  /** The webhook body of this event, exactly as delivered. */
  payload: KoloEvent;
}

/** One page of events, in the order they were written. */
export interface EventPage {
  events: KoloEventEntry[];
  /** The last returned event's cursor, or the `after` given when none (null only with neither); store it to resume. */
  nextCursor: string | null;
  /** True when more events already follow this page: ask again at once. */
  hasMore: boolean;
}
