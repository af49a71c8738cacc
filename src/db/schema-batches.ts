/**
 * Batch pay-outs: a batch of up to 1,000 items, each sent as an ordinary pay-out once the batch
 * is approved (src/batches). A batch is scoped to one application and environment, like its
 * pay-outs. `(application_id, idempotency_key)` is unique so the same batch posted again is the
 * same batch. An item records the pay-out it became (`transaction_id`) in the database
 * transaction that creates that pay-out, so it is sent at most once.
 */
import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { applications, transactions } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A batch. `status`: AWAITING_APPROVAL, APPROVED, PROCESSING, COMPLETED, PARTLY_FAILED, REJECTED,
 * CANCELLED, EXPIRED. Amounts are base units of `currency`; `fee_amount` is Σ of the items' fees
 * at creation, and `total_amount + fee_amount` is what approval reserves.
 */
export const batches = pgTable(
  'batches',
  {
    id: uuid('id').primaryKey(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    environment: text('environment').notNull(),
    currency: text('currency').notNull(),
    status: text('status').notNull(),
    itemCount: integer('item_count').notNull(),
    totalAmount: bigint('total_amount', { mode: 'number' }).notNull(),
    feeAmount: bigint('fee_amount', { mode: 'number' }).notNull(),
    /** The dashboard person who created it; null when created with an API key. */
    createdBy: uuid('created_by'),
    /** The person who approved it; null when approved automatically (under the application's threshold). */
    approvedBy: uuid('approved_by'),
    /** Who rejected or cancelled it. */
    closedBy: uuid('closed_by'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    approvedAt: ts('approved_at'),
    closedAt: ts('closed_at'),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('batches_idempotency_key').on(t.applicationId, t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`),
    index('batches_application_idx').on(t.applicationId, t.createdAt),
    index('batches_open_idx').on(t.status).where(sql`${t.status} in ('AWAITING_APPROVAL', 'APPROVED', 'PROCESSING')`),
  ],
);

/**
 * An item of a batch: one future pay-out. `status`: WAITING (not sent), SENT (its pay-out exists:
 * `transaction_id`), FAILED (could not be sent: `failure_reason`; its share released).
 * `row_number` is its position in the request (1-based) or its line in the CSV file.
 */
export const batchItems = pgTable(
  'batch_items',
  {
    id: uuid('id').primaryKey(),
    batchId: uuid('batch_id')
      .notNull()
      .references(() => batches.id),
    rowNumber: integer('row_number').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    feeAmount: bigint('fee_amount', { mode: 'number' }).notNull(),
    paymentMethod: text('payment_method').notNull(),
    beneficiaryAccount: text('beneficiary_account').notNull(),
    beneficiaryName: text('beneficiary_name').notNull(),
    merchantReference: text('merchant_reference'),
    status: text('status').notNull(),
    transactionId: uuid('transaction_id').references(() => transactions.id),
    failureReason: text('failure_reason'),
    /** The item this one retries (a failed item of an earlier batch), if any. */
    retryOf: uuid('retry_of'),
  },
  (t) => [
    uniqueIndex('batch_items_batch_row_key').on(t.batchId, t.rowNumber),
    index('batch_items_waiting_idx').on(t.batchId).where(sql`${t.status} = 'WAITING'`),
  ],
);
