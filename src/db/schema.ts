/**
 * Drizzle schema: the one description of Kolo's tables, shared by PGlite and PostgreSQL.
 *
 * Money columns are `bigint` in the currency's base unit (XAF has no minor unit), read as JS
 * numbers: amounts are bounded by the rails' maxima, far below 2^53.
 * Every timestamp is `timestamptz`, written from the injected clock, never from `now()`, so tests
 * with a manual clock see the same time as the database.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const money = (name: string) => bigint(name, { mode: 'number' });

/** Merchant and staff accounts (dashboard logins). `role` is MERCHANT, ADMIN or SUPPORT. */
export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey(),
    fullName: text('full_name').notNull(),
    email: text('email').notNull(),
    phone: text('phone'),
    country: text('country'),
    avatarUrl: text('avatar_url'),
    role: text('role').notNull().default('MERCHANT'),
    status: text('status').notNull().default('ACTIVE'),
    kycLevel: text('kyc_level').notNull().default('NONE'),
    /** scrypt hash in PHC-like form; null for accounts created by the CLI without a password. */
    passwordHash: text('password_hash'),
    emailVerified: boolean('email_verified').notNull().default(false),
    phoneVerified: boolean('phone_verified').notNull().default(false),
    /** The dashboard's language chosen by the user (`fr` or `en`); null until they choose one. */
    language: text('language'),
    /**
     * A merchant account's choice that every member of its team must use a second factor (members
     * whose role moves money out must in any case: dashboard/second-factor.ts).
     */
    membersNeedSecondFactor: boolean('members_need_second_factor').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('accounts_email_key').on(sql`lower(${t.email})`)],
);

/** An application: owns API keys, a webhook URL and secret, a currency and default URLs. */
export const applications = pgTable(
  'applications',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').notNull().default('ACTIVE'),
    currency: text('currency').notNull(),
    themeColor: text('theme_color'),
    logoUrl: text('logo_url'),
    websiteUrl: text('website_url'),
    webhookUrl: text('webhook_url'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    /** What to do with a late success: REFUND the payer (default) or KEEP it (credited like a pay-in). */
    lateSuccessPolicy: text('late_success_policy').notNull().default('REFUND'),
    /** A batch pay-out whose amount + fees is below this (base units) is approved without a person; 0: never. */
    batchAutoApproveBelow: bigint('batch_auto_approve_below', { mode: 'number' }).notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    uniqueIndex('applications_merchant_name_key')
      .on(t.merchantId, sql`lower(${t.name})`)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * API keys. Only the SHA-256 digest (hex) of the full key is stored; `keyPrefix` is the
 * environment prefix plus the first 8 hex characters, as existing integrations display it.
 * The partial unique index enforces one active key per application.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    name: text('name').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    environment: text('environment').notNull(),
    active: boolean('active').notNull(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
    /**
     * What the key may do (`API_KEY_SCOPES` of accounts/api-keys.ts): COLLECT, PAYOUT, REFUND,
     * READ. Keys issued before scopes existed hold all four (the column's default).
     */
    scopes: text('scopes').array().notNull().default(sql`'{COLLECT,PAYOUT,REFUND,READ}'::text[]`),
    /** The client addresses the key is admitted from (CIDR blocks); null: any address. */
    allowedIps: text('allowed_ips').array(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('api_keys_hash_key').on(t.keyHash),
    uniqueIndex('api_keys_one_active_per_app').on(t.applicationId).where(sql`${t.active}`),
  ],
);

/**
 * Rails ("providers" in the dashboard API): one per operator and country, e.g. `MTN_MOMO_CM`.
 * `pendingTimeoutSeconds` is the per-rail deadline after which an unresolved PENDING
 * transaction on this rail is failed.
 */
export const providers = pgTable(
  'providers',
  {
    id: uuid('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    operator: text('operator').notNull(),
    type: text('type').notNull().default('MOBILE_MONEY'),
    country: text('country').notNull(),
    currency: text('currency').notNull(),
    minAmount: money('min_amount').notNull(),
    maxAmount: money('max_amount').notNull(),
    feePercentage: numeric('fee_percentage', { precision: 6, scale: 3 }).notNull().default('0'),
    feeFixed: money('fee_fixed').notNull().default(0),
    /** Pay-out fee: percentage (multiples of 0.01, i.e. whole basis points) and fixed part. `fee_*` above is the pay-in fee. */
    payOutFeePercentage: numeric('pay_out_fee_percentage', { precision: 6, scale: 3 }).notNull().default('0'),
    payOutFeeFixed: money('pay_out_fee_fixed').notNull().default(0),
    /** Seconds a pay-in's net amount stays pending before it becomes available (0: at once). */
    settlementDelaySeconds: integer('settlement_delay_seconds').notNull().default(0),
    ussdHint: text('ussd_hint'),
    /** What the customer does to approve a pay-in, in French and in English (null: `ussdHint` stands for both). */
    instructionsFr: text('instructions_fr'),
    instructionsEn: text('instructions_en'),
    pendingTimeoutSeconds: integer('pending_timeout_seconds').notNull().default(900),
    active: boolean('active').notNull().default(true),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('providers_code_key').on(t.code)],
);

/**
 * Staff's word on a rail's availability for one direction (PAY_IN or PAY_OUT): OPERATIONAL,
 * DELAYED or CLOSED, which replaces the status Kolo computes from its own traffic until it is
 * removed (`rails/availability.ts`). At most one per rail and direction.
 */
export const railAvailabilityOverrides = pgTable(
  'rail_availability_overrides',
  {
    providerCode: text('provider_code').notNull(),
    direction: text('direction').notNull(),
    status: text('status').notNull(),
    /** Why, in the staff member's words (shown to staff only). */
    reason: text('reason'),
    setBy: uuid('set_by').references(() => accounts.id),
    setAt: ts('set_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.providerCode, t.direction] }),
    check('rail_availability_overrides_status_check', sql`${t.status} in ('OPERATIONAL', 'DELAYED', 'CLOSED')`),
    check('rail_availability_overrides_direction_check', sql`${t.direction} in ('PAY_IN', 'PAY_OUT')`),
  ],
);

/**
 * Transactions, pay-in and pay-out. `direction` is PAY_IN or PAY_OUT; `type` is CHECKOUT or
 * CHARGE for pay-ins and null for pay-outs. `environment` (TEST or LIVE) is the key's: TEST
 * transactions only ever reach the sandbox rail.
 */
export const transactions = pgTable(
  'transactions',
  {
    id: uuid('id').primaryKey(),
    reference: text('reference').notNull(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    direction: text('direction').notNull(),
    type: text('type'),
    environment: text('environment').notNull(),
    status: text('status').notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    description: text('description'),
    paymentMethod: text('payment_method'),
    payerAccount: text('payer_account'),
    payerName: text('payer_name'),
    payerEmail: text('payer_email'),
    beneficiaryAccount: text('beneficiary_account'),
    beneficiaryName: text('beneficiary_name'),
    beneficiaryEmail: text('beneficiary_email'),
    merchantReference: text('merchant_reference'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    checkoutToken: text('checkout_token'),
    expiresAt: ts('expires_at'),
    failureCode: text('failure_code'),
    failureReason: text('failure_reason'),
    /** The operator's id of the initiation (MTN X-Reference-Id, Orange payToken), stored before the call. */
    operatorReference: text('operator_reference'),
    /** Unguessable token of this transaction's operator callback URL, stored before the call. */
    callbackToken: text('callback_token'),
    /** How the initiation call ended: ACCEPTED (acknowledged) or UNKNOWN (timeout, reset, 5xx); null before it returned. */
    initiationOutcome: text('initiation_outcome'),
    /** Redirect rails (Wave): the operator's page the customer opens to pay (a direct charge's `data.redirectUrl`). */
    redirectUrl: text('redirect_url'),
    initiatedAt: ts('initiated_at'),
    /**
     * Until when a request of the initiation may still reach the operator: the instant after which
     * Kolo sends nothing more of it (its send deadline, or when it gave up on an ambiguous answer)
     * plus `INITIATION_LANDING_MS`. Before it, the operator having no record of the initiation
     * proves nothing (initiation-window.ts). Null: no request of it can be on its way (never sent,
     * or acknowledged).
     */
    inFlightUntil: ts('in_flight_until'),
    deadlineAt: ts('deadline_at'),
    nextPollAt: ts('next_poll_at'),
    pollAttempts: integer('poll_attempts').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    completedAt: ts('completed_at'),
    /** Kolo's fee, base units: fixed at acceptance for a pay-out, at SUCCESS for a pay-in. */
    feeAmount: money('fee_amount'),
    /** Pay-out: amount + fee reserved from the merchant's available balance at acceptance (null: unfunded, before the ledger). */
    reservedAmount: money('reserved_amount'),
    /** Pay-out: where the reservation came from, MERCHANT (balance) or SUSPENSE (refund of a late success). */
    fundingSource: text('funding_source'),
    /** Pay-in: Σ of its successful refunds. */
    refundedAmount: money('refunded_amount').notNull().default(0),
    /** Refund pay-out: the pay-in it refunds. */
    refundOf: uuid('refund_of'),
    /** Pay-in: true once an operator reported money moved after Kolo had closed it (LATE_SUCCESS). */
    isLateSuccess: boolean('is_late_success').notNull().default(false),
    /**
     * Pay-in failed at its deadline (an ambiguous outcome): the operator is still asked, at
     * `next_poll_at`, until this time, so a late success is never dropped. Null: not watched.
     */
    lateWatchUntil: ts('late_watch_until'),
    /**
     * The operator's own id of the money movement, as on its statements and the customer's SMS
     * (MTN `financialTransactionId`, Orange `txnid`, M-Pesa receipt, Wave transaction id); null
     * until the operator names it.
     */
    operatorTransactionId: text('operator_transaction_id'),
    /**
     * Pay-out failed at its deadline without a definitive answer (TIMEOUT): its amount and fee
     * stay in RESERVED, and it stays watched, until the operator says paid (the reservation is
     * consumed) or not paid (released). False otherwise.
     */
    isReservationHeld: boolean('is_reservation_held').notNull().default(false),
    /**
     * The operator's id of the last asynchronous status query (Daraja Transaction Status
     * `ConversationID`): only a Result naming it is that query's answer. Never shown to merchants.
     */
    statusQueryReference: text('status_query_reference'),
    /**
     * True while a reconciliation case about it is open (reconciliation/): its status answer, its
     * webhooks and the dashboard then say `reconciliation: "IN_REVIEW"`; the status is unchanged.
     */
    isInReconciliation: boolean('is_in_reconciliation').notNull().default(false),
    /**
     * Pay-out: since when it waits for its rail's float (float/): PENDING with its reservation,
     * not sent, released first in first out when the float covers it. Null: not waiting.
     */
    floatQueuedAt: ts('float_queued_at'),
    /**
     * Pay-out: how many of its sends the operator refused for want of Kolo's own float (then
     * queued again): each new send is prepared under a new operator id where the operator
     * refuses a repeated one (Daraja's OriginatorConversationID).
     */
    floatResends: integer('float_resends').notNull().default(0),
  },
  (t) => [
    uniqueIndex('transactions_reference_key').on(t.reference),
    // The float queue of a rail, oldest first (float/).
    index('transactions_float_queue_idx').on(t.paymentMethod, t.floatQueuedAt, t.id).where(sql`${t.floatQueuedAt} is not null`),
    // Partial: only checkouts carry a session token, and every row version of a charge or a
    // transfer would otherwise add a NULL entry to this index (index upkeep is most of PostgreSQL's
    // work per payment).
    uniqueIndex('transactions_checkout_token_key').on(t.checkoutToken).where(sql`${t.checkoutToken} is not null`),
    uniqueIndex('transactions_callback_token_key').on(t.callbackToken),
    // Dashboard lists, stats, chart and export: one application's rows newest first, ties by id
    // (the export's keyset cursor). Ascending on purpose: scanned backward it yields exactly
    // `ORDER BY created_at DESC, id DESC` (DESC means NULLS FIRST, the mirror of ASC NULLS LAST),
    // whereas a `DESC NULLS LAST` index would not match that ORDER BY at all.
    index('transactions_app_created_id_idx').on(t.applicationId, t.createdAt, t.id),
    // Platform-wide periods (admin overview) and a large merchant's newest-first page across
    // several applications: walk the newest rows backward and stop after one page.
    index('transactions_created_idx').on(t.createdAt, t.id),
    // What a rail's float has committed to LIVE pay-outs (in flight, paid since a reading), read
    // before each LIVE pay-out is sent: only pay-outs' row versions enter it.
    index('transactions_live_pay_out_idx')
      .on(t.paymentMethod, t.status, t.completedAt)
      .where(sql`${t.direction} = 'PAY_OUT' and ${t.environment} = 'LIVE'`),
    index('transactions_pending_poll_idx').on(t.nextPollAt).where(sql`${t.status} = 'PENDING'`),
    index('transactions_refund_of_idx').on(t.refundOf).where(sql`${t.refundOf} is not null`),
    index('transactions_late_watch_idx').on(t.nextPollAt).where(sql`${t.lateWatchUntil} is not null`),
    // Support finds a payment from the id on the customer's SMS.
    index('transactions_operator_txn_idx').on(t.operatorTransactionId).where(sql`${t.operatorTransactionId} is not null`),
  ],
);

/** Append-only history of every transaction change: creation, attempts, status changes. */
export const transactionEvents = pgTable(
  'transaction_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => transactions.id),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    cause: text('cause').notNull(),
    failureCode: text('failure_code'),
    detail: jsonb('detail'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('transaction_events_tx_idx').on(t.transactionId, t.id), index('transaction_events_created_idx').on(t.createdAt)],
);

/**
 * Idempotency keys, scoped to the application. The primary key, not a check-then-insert, is
 * what makes a repeated key return the original result: the first insert wins, every other
 * request with the same key waits for it and then reads its stored response.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    key: text('key').notNull(),
    endpoint: text('endpoint').notNull(),
    requestHash: text('request_hash').notNull(),
    transactionId: uuid('transaction_id').references(() => transactions.id),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.applicationId, t.key] }),
    index('idempotency_keys_expires_idx').on(t.expiresAt),
  ],
);

/**
 * A merchant's own fee on a rail and direction (PAY_IN or PAY_OUT), replacing the rail's.
 * Percentage in multiples of 0.01 (whole basis points), fixed part in base units.
 */
export const merchantFeeOverrides = pgTable(
  'merchant_fee_overrides',
  {
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => accounts.id),
    providerCode: text('provider_code').notNull(),
    direction: text('direction').notNull(),
    feePercentage: numeric('fee_percentage', { precision: 6, scale: 3 }).notNull(),
    feeFixed: money('fee_fixed').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.providerCode, t.direction] })],
);
