/**
 * Fund collections: a public page `/collect/{slug}` where anyone pays into an application, a fixed
 * or a free amount. `status` stored here is ACTIVE, CLOSED or DELETED; EXPIRED is never stored: an
 * ACTIVE collection whose `expires_at` has passed reads EXPIRED (see `fund-collections.ts`), so
 * expiry needs no job and follows the injected clock. Each payment is a pay-in transaction of type
 * FUND_COLLECTION whose merchant reference is the collection's slug.
 */
import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { applications } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const money = (name: string) => bigint(name, { mode: 'number' });

/** A fund collection of an application. */
export const fundCollections = pgTable(
  'fund_collections',
  {
    id: uuid('id').primaryKey(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    /** Public identifier in the page's URL: a slug of the title plus 8 random hex characters; never changes. */
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    coverImageUrl: text('cover_image_url'),
    currency: text('currency').notNull(),
    /** TEST (sandbox rail, no real money) or LIVE: the environment of every payment taken. */
    environment: text('environment').notNull(),
    isAmountFixed: boolean('is_amount_fixed').notNull(),
    /** Base units: the amount to pay when fixed, else the amount suggested on the page (null: none). */
    amount: money('amount'),
    collectCustomerInfo: boolean('collect_customer_info').notNull().default(false),
    thankYouMessage: text('thank_you_message'),
    /** ACTIVE, CLOSED or DELETED (EXPIRED is derived from `expires_at`). */
    status: text('status').notNull(),
    expiresAt: ts('expires_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('fund_collections_slug_key').on(t.slug), index('fund_collections_app_created_idx').on(t.applicationId, t.createdAt)],
);
