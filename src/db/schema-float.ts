/**
 * Operator float (float/): each LIVE rail's readings of the operator's balance, the state it was
 * last notified in, and merchants' statements prepared in the background.
 */
import { bigint, bigserial, index, pgTable, text, timestamp, uuid, date } from 'drizzle-orm/pg-core';
import { accounts } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * One reading of a rail's operator balance: `amount` in base units of `currency`, or null with
 * `error` when the operator gave no usable answer (or offers no balance query).
 */
export const floatReadings = pgTable(
  'float_readings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    railCode: text('rail_code').notNull(),
    amount: bigint('amount', { mode: 'number' }),
    currency: text('currency'),
    error: text('error'),
    readAt: ts('read_at').notNull(),
  },
  (t) => [index('float_readings_rail_read_idx').on(t.railCode, t.readAt)],
);

/**
 * The state each LIVE rail's float was last notified in (OK, LOW, CRITICAL; UNKNOWN before any
 * reading), so that a crossing notifies once; `shortReportedAt`: when an operator last refused a
 * pay-out for want of Kolo's float (the rail counts as empty until a later reading).
 */
export const floatRails = pgTable('float_rails', {
  railCode: text('rail_code').primaryKey(),
  state: text('state').notNull(),
  stateChangedAt: ts('state_changed_at').notNull(),
  shortReportedAt: ts('short_reported_at'),
});

/**
 * A merchant's statement prepared in the background (a range too large to answer at once):
 * PENDING, then READY with its CSV, or FAILED. Dates are UTC days, both included.
 */
export const statements = pgTable(
  'statements',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    fromDate: date('from_date', { mode: 'string' }).notNull(),
    toDate: date('to_date', { mode: 'string' }).notNull(),
    status: text('status').notNull(),
    csv: text('csv'),
    error: text('error'),
    createdAt: ts('created_at').notNull(),
    readyAt: ts('ready_at'),
  },
  (t) => [index('statements_merchant_idx').on(t.merchantId, t.createdAt)],
);
