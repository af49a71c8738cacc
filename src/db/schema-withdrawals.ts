/**
 * Withdrawals: the merchant's own accounts money is withdrawn to, and the configuration of
 * automatic withdrawals per currency. At most one default account per merchant (partial unique
 * index).
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid, index } from 'drizzle-orm/pg-core';
import { accounts } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A withdrawal account: a rail and a normalised MSISDN of the merchant's. */
export const withdrawalAccounts = pgTable(
  'withdrawal_accounts',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    providerCode: text('provider_code').notNull(),
    accountNumber: text('account_number').notNull(),
    accountName: text('account_name').notNull(),
    isDefault: boolean('is_default').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('withdrawal_accounts_merchant_idx').on(t.merchantId),
    uniqueIndex('withdrawal_accounts_one_default').on(t.merchantId).where(sql`${t.isDefault}`),
  ],
);

/**
 * Automatic withdrawals of a merchant in one currency: `mode` MANUAL, INSTANT (every run of the
 * jobs), THRESHOLD (when an application's available balance reaches `threshold_amount`) or
 * PERIODIC (`period` DAILY, WEEKLY or MONTHLY, UTC). `last_period_key` is claimed by
 * compare-and-set, so a period triggers once whatever the number of instances.
 */
export const withdrawalConfigs = pgTable(
  'withdrawal_configs',
  {
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    currency: text('currency').notNull(),
    environment: text('environment').notNull(),
    mode: text('mode').notNull(),
    accountId: uuid('account_id').references(() => withdrawalAccounts.id, { onDelete: 'set null' }),
    thresholdAmount: bigint('threshold_amount', { mode: 'number' }),
    period: text('period'),
    lastPeriodKey: text('last_period_key'),
    lastTriggeredAt: ts('last_triggered_at'),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.currency] })],
);
