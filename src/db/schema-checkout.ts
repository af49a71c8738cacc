/**
 * Hosted checkout attempts: each time a customer picks a rail and a phone number on the page,
 * one row here (and one event on the transaction's history). A declined attempt does not end
 * the checkout; the customer may try again until the session ends.
 *
 * Two invariants are enforced by the database, not by code that reads before it writes:
 * - at most one attempt in flight per checkout (`checkout_attempts_one_pending`), so two
 *   concurrent form posts can never push two debits to the customer's phones at once;
 * - at most one attempt succeeds per checkout (`checkout_attempts_one_success`).
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { transactions } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One payment attempt of a checkout. `status` is PENDING, SUCCEEDED or FAILED. */
export const checkoutAttempts = pgTable(
  'checkout_attempts',
  {
    id: uuid('id').primaryKey(),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => transactions.id),
    /** 1, 2, …: the order of attempts within the checkout. */
    attemptNumber: integer('attempt_number').notNull(),
    railCode: text('rail_code').notNull(),
    msisdn: text('msisdn').notNull(),
    status: text('status').notNull(),
    /** What the operator is given as our correlation key: `<reference>-<attemptNumber>`. */
    correlationId: text('correlation_id').notNull(),
    /** The operator's id of this attempt's initiation, stored before the call. */
    operatorReference: text('operator_reference'),
    /** Unguessable token of this attempt's operator callback URL, stored before the call. */
    callbackToken: text('callback_token'),
    /** How the initiation call ended: ACCEPTED or UNKNOWN; null before it returned. */
    initiationOutcome: text('initiation_outcome'),
    /** Redirect rails (Wave): the operator's page where the customer pays this attempt. */
    redirectUrl: text('redirect_url'),
    /** The instant sent to the connector with the initiation (the sandbox keys its outcome on it). */
    initiatedAt: ts('initiated_at').notNull(),
    /** Until when a request of this attempt's initiation may still reach the operator (see `transactions.inFlightUntil`). */
    inFlightUntil: ts('in_flight_until'),
    /** The rail's deadline: an unresolved attempt fails (TIMEOUT) past it. */
    deadlineAt: ts('deadline_at').notNull(),
    /** When the attempt's status is next asked; pushed ahead while a reader asks (a lease). */
    nextPollAt: ts('next_poll_at'),
    pollCount: integer('poll_count').notNull().default(0),
    failureCode: text('failure_code'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    completedAt: ts('completed_at'),
    /** The operator's own id of the money movement (see `transactions.operatorTransactionId`). */
    operatorTransactionId: text('operator_transaction_id'),
    /**
     * Attempt failed at its deadline without a definitive answer: the operator is still asked, at
     * `next_poll_at`, until this time, whatever its checkout ended as. Null: not watched.
     */
    lateWatchUntil: ts('late_watch_until'),
    /** True once the operator reported this attempt's money moved after it had failed (recorded once). */
    isLateSuccess: boolean('is_late_success').notNull().default(false),
  },
  (t) => [
    uniqueIndex('checkout_attempts_number_key').on(t.transactionId, t.attemptNumber),
    uniqueIndex('checkout_attempts_one_pending').on(t.transactionId).where(sql`${t.status} = 'PENDING'`),
    uniqueIndex('checkout_attempts_one_success').on(t.transactionId).where(sql`${t.status} = 'SUCCEEDED'`),
    uniqueIndex('checkout_attempts_callback_token_key').on(t.callbackToken),
    index('checkout_attempts_tx_idx').on(t.transactionId, t.createdAt),
    // Rail availability reads the last minutes' attempts (rails/availability.ts).
    index('checkout_attempts_created_idx').on(t.createdAt),
    // The poller's claim of due attempts in flight (status-poller.ts): cost independent of history.
    index('checkout_attempts_pending_poll_idx').on(t.nextPollAt).where(sql`${t.status} = 'PENDING'`),
    index('checkout_attempts_late_watch_idx').on(t.nextPollAt).where(sql`${t.lateWatchUntil} is not null`),
    index('checkout_attempts_operator_txn_idx').on(t.operatorTransactionId).where(sql`${t.operatorTransactionId} is not null`),
  ],
);
