/**
 * Team tables: the members of a merchant account and the invitations that make them. The merchant
 * account itself (the `accounts` row of role MERCHANT that owns the applications) is its owner; a
 * member signs in with an `accounts` row of its own, of role MEMBER, and acts for one merchant
 * with the role of its `merchant_members` row. Invitation tokens are stored only as SHA-256 digests.
 */
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One member of one merchant account: its login account and its role (dashboard/team-roles.ts). */
export const merchantMembers = pgTable(
  'merchant_members',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    /** The member's own login account (role MEMBER); one membership per login account. */
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id),
    role: text('role').notNull(),
    invitedBy: uuid('invited_by'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('merchant_members_account_key').on(t.accountId), index('merchant_members_merchant_idx').on(t.merchantId)],
);

/** An invitation e-mailed to a future member: single use, valid until `expiresAt`. */
export const memberInvitations = pgTable(
  'member_invitations',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    email: text('email').notNull(),
    role: text('role').notNull(),
    /** SHA-256 hex digest of the token sent in the e-mail. */
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by'),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    revokedAt: ts('revoked_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('member_invitations_token_key').on(t.tokenHash), index('member_invitations_merchant_idx').on(t.merchantId)],
);
