/**
 * A merchant's transactions as SharePay's dashboard reads them: a filtered page (newest first), its
 * stats, the detail of one transaction with its event history, and the rows behind the CSV export.
 *
 * Scoping: every query is limited to the applications of ONE merchant (`merchantId`), deleted
 * applications included (their history stays readable). A MERCHANT's scope is themself; staff
 * (ADMIN, SUPPORT) name a merchant through the admin routes. Anything outside the scope answers
 * like an unknown row (404), so ids of others cannot be probed.
 */
import { and, asc, desc, eq, gte, ilike, inArray, isNull, like, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications, transactionEvents, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { heldAmountOf } from '../payments/core.ts';
import { refundability, type Refundability } from '../refunds/index.ts';
import type { Services } from '../services.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';

/** A transaction row. */
type TransactionRow = typeof transactions.$inferSelect;

/** Transaction types as the dashboard shows them: pay-ins CHECKOUT, CHARGE, FUND_COLLECTION; pay-outs PAYOUT (transfer), WITHDRAWAL, REFUND. */
export const DASHBOARD_TRANSACTION_TYPES = ['CHECKOUT', 'CHARGE', 'FUND_COLLECTION', 'PAYOUT', 'WITHDRAWAL', 'REFUND'] as const;
export type DashboardTransactionType = (typeof DASHBOARD_TRANSACTION_TYPES)[number];

/** Direction of money: PAY_IN (towards the merchant) or PAY_OUT. */
export type Direction = 'PAY_IN' | 'PAY_OUT';

/** A transaction as the dashboard lists it; amounts in base units. */
export interface DashboardTransaction {
  id: string;
  reference: string;
  merchantReference: string | null;
  type: string;
  direction: Direction;
  environment: 'LIVE' | 'TEST';
  amount: number;
  /** Kolo's fee: null until known (a pay-in's is fixed at SUCCESS). */
  feeAmount: number | null;
  /** Pay-in: amount − fee (credited); pay-out: amount + fee (debited); null while the fee is unknown. */
  netAmount: number | null;
  currency: string;
  status: string;
  description: string | null;
  /** Provider code (rail), e.g. MTN_MOMO_CM. */
  provider: string | null;
  /** Pay-in: the payer; pay-out: the beneficiary. */
  payerAccount: string | null;
  payerName: string | null;
  payerEmail: string | null;
  applicationId: string;
  appName: string;
  failureCode: string | null;
  failureReason: string | null;
  isLateSuccess: boolean;
  /** True while a reconciliation case about it is open (shown "En rapprochement"). */
  isInReconciliation: boolean;
  /** The operator's own id of the money movement (as on the customer's SMS); null until named. */
  operatorTransactionId: string | null;
  /** Pay-out: amount + fee still reserved while the operator has not answered definitively (0 for pay-ins). */
  heldAmount: number;
  /** Pay-out: PENDING and waiting for its rail's float, not yet sent (float/); false otherwise. */
  queuedForFloat: boolean;
  refundedAmount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** The dashboard view of a row; `appName` comes from its application. */
export function dashboardTransactionView(row: TransactionRow, appName: string): DashboardTransaction {
  const isPayIn = row.direction === 'PAY_IN';
  return {
    id: row.id,
    reference: row.reference,
    merchantReference: row.merchantReference,
    // Stored types: pay-ins CHECKOUT, CHARGE, FUND_COLLECTION; pay-outs null (a transfer), WITHDRAWAL or REFUND.
    type: isPayIn ? (row.type ?? 'CHARGE') : (row.type ?? 'PAYOUT'),
    direction: row.direction as Direction,
    environment: row.environment as 'LIVE' | 'TEST',
    amount: row.amount,
    feeAmount: row.feeAmount,
    netAmount: row.feeAmount === null ? null : isPayIn ? row.amount - row.feeAmount : row.amount + row.feeAmount,
    currency: row.currency,
    status: row.status,
    description: row.description,
    provider: row.paymentMethod,
    payerAccount: isPayIn ? row.payerAccount : row.beneficiaryAccount,
    payerName: isPayIn ? row.payerName : row.beneficiaryName,
    payerEmail: isPayIn ? row.payerEmail : row.beneficiaryEmail,
    applicationId: row.applicationId,
    appName,
    failureCode: row.status === 'FAILED' ? row.failureCode : null,
    failureReason: row.status === 'FAILED' ? row.failureReason : null,
    isLateSuccess: row.isLateSuccess,
    isInReconciliation: row.isInReconciliation,
    operatorTransactionId: row.operatorTransactionId,
    heldAmount: isPayIn ? 0 : heldAmountOf(row),
    queuedForFloat: !isPayIn && row.status === 'PENDING' && row.floatQueuedAt !== null,
    refundedAmount: row.refundedAmount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt,
  };
}

/** Filters of the list, stats, chart and export (all optional; combined with AND). */
export interface TransactionFilter {
  direction?: Direction | undefined;
  status?: string | undefined;
  type?: DashboardTransactionType | undefined;
  applicationId?: string | undefined;
  environment?: 'LIVE' | 'TEST' | undefined;
  /** Inclusive lower bound of `createdAt`. */
  from?: Date | undefined;
  /** Exclusive upper bound of `createdAt`. */
  to?: Date | undefined;
  /** Provider code (rail). */
  provider?: string | undefined;
  /** ISO 4217 code: transactions in that currency only. */
  currency?: string | undefined;
  /**
   * Case-insensitive part of our reference or of the merchant's reference; exactly the
   * operator's transaction id (as on the customer's SMS) of the transaction or of one of its
   * checkout attempts; or, when it reads as a phone number, part of the payer's or beneficiary's
   * MSISDN.
   */
  search?: string | undefined;
}

/** `%`, `_` and `\` are literal in a search: escaped for LIKE (PostgreSQL's default escape is `\`). */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A whole reference of ours (PI-, PO-, FC- + 12 hex), in any case. */
const WHOLE_REFERENCE = /^[A-Z]{2}-[0-9A-F]{12}$/i;

/** A phone number as people type it: digits, spaces, dots, dashes, an optional leading `+`. */
const PHONE_LIKE = /^\+?[0-9][0-9 .-]{3,}$/;

/**
 * The free-text search: a whole reference of ours is looked up exactly (the unique index on
 * `reference`, instant at any volume); anything else is a case-insensitive substring of our
 * reference or of the merchant's reference, which reads the merchant's rows in scope (narrow it
 * with `from`/`to` or `appId` on large accounts); exactly an operator's transaction id — the
 * transaction's own, or one of its checkout attempts' (a late success) — through their partial
 * indexes: support finds a payment from the id on the customer's SMS; and, when it reads as a
 * phone number, a substring of the payer's or beneficiary's MSISDN (stored as digits only).
 * Never the operator's request ids (`operatorReference`): some are secrets between the operator
 * and Kolo (Daraja's ConversationID vouches for its Results).
 */
function searchCondition(search: string): SQL | undefined {
  if (WHOLE_REFERENCE.test(search)) return eq(transactions.reference, search.toUpperCase());
  const pattern = likePattern(search);
  const digits = PHONE_LIKE.test(search) ? likePattern(search.replace(/\D/g, '')) : null;
  return or(
    ilike(transactions.reference, pattern),
    ilike(transactions.merchantReference, pattern),
    eq(transactions.operatorTransactionId, search),
    sql`${transactions.id} in (select ${checkoutAttempts.transactionId} from ${checkoutAttempts} where ${checkoutAttempts.operatorTransactionId} = ${search})`,
    digits ? like(transactions.payerAccount, digits) : undefined,
    digits ? like(transactions.beneficiaryAccount, digits) : undefined,
  );
}

function typeCondition(type: DashboardTransactionType): SQL | undefined {
  switch (type) {
    case 'CHARGE':
      return and(eq(transactions.direction, 'PAY_IN'), or(eq(transactions.type, 'CHARGE'), isNull(transactions.type)));
    case 'PAYOUT':
      return and(eq(transactions.direction, 'PAY_OUT'), or(eq(transactions.type, 'PAYOUT'), isNull(transactions.type)));
    case 'CHECKOUT':
    case 'FUND_COLLECTION':
      return and(eq(transactions.direction, 'PAY_IN'), eq(transactions.type, type));
    case 'WITHDRAWAL':
    case 'REFUND':
      return and(eq(transactions.direction, 'PAY_OUT'), eq(transactions.type, type));
  }
}

/** A merchant's filtered transactions, ready to query: the WHERE clause and the names of the applications it spans. */
export interface TransactionQuery {
  where: SQL;
  /** Application id → name, for `appName` (deleted applications included). */
  appNames: Map<string, string>;
}

/**
 * The WHERE clause of a merchant's filtered transactions. The merchant's applications (deleted
 * ones included: their history stays readable) are read first — a handful of rows — so the
 * clause is a plain `application_id = $1` or `= any($1)` on the transactions table alone, which
 * the (application_id, created_at desc, id desc) index serves in order: no join in the paged
 * or exported queries, so `ORDER BY … LIMIT` stops after one page instead of sorting every row.
 * When the filter names an application it must be one of the merchant's (404 APP_NOT_FOUND
 * otherwise, like an unknown one).
 */
export async function transactionWhere(db: Db, merchantId: string, filter: TransactionFilter): Promise<TransactionQuery> {
  const apps = await db
    .select({ id: applications.id, name: applications.name })
    .from(applications)
    .where(and(eq(applications.merchantId, merchantId), filter.applicationId ? eq(applications.id, filter.applicationId) : undefined));
  if (filter.applicationId && apps.length === 0) throw new ApiError('APP_NOT_FOUND');
  const appNames = new Map(apps.map((a) => [a.id, a.name]));
  const ids = [...appNames.keys()];
  const scope = ids.length === 0 ? sql`false` : ids.length === 1 ? eq(transactions.applicationId, ids[0]!) : inArray(transactions.applicationId, ids);
  const where = and(
    scope,
    filter.direction ? eq(transactions.direction, filter.direction) : undefined,
    filter.status ? eq(transactions.status, filter.status) : undefined,
    filter.type ? typeCondition(filter.type) : undefined,
    filter.environment ? eq(transactions.environment, filter.environment) : undefined,
    filter.from ? gte(transactions.createdAt, filter.from) : undefined,
    filter.to ? lt(transactions.createdAt, filter.to) : undefined,
    filter.provider ? eq(transactions.paymentMethod, filter.provider) : undefined,
    filter.currency ? eq(transactions.currency, filter.currency) : undefined,
    filter.search ? searchCondition(filter.search) : undefined,
  )!;
  return { where, appNames };
}

/** A page of a merchant's transactions, newest first (ties by id), and the total matching. */
export async function pageTransactions(
  db: Db,
  merchantId: string,
  filter: TransactionFilter,
  page: number,
  size: number,
): Promise<{ rows: DashboardTransaction[]; total: number }> {
  const { where, appNames } = await transactionWhere(db, merchantId, filter);
  const [counted] = await db.select({ total: sql<string>`count(*)::text` }).from(transactions).where(where);
  const rows = await db
    .select()
    .from(transactions)
    .where(where)
    .orderBy(desc(transactions.createdAt), desc(transactions.id))
    .limit(size)
    .offset(page * size);
  return { rows: rows.map((r) => dashboardTransactionView(r, appNames.get(r.applicationId) ?? '')), total: Number(counted?.total ?? 0) };
}

/** Counts of the filtered list by status (`…/transactions/stats`), and volumes in base units. */
export interface TransactionStats {
  total: number;
  successCount: number;
  pendingCount: number;
  failedCount: number;
  cancelledCount: number;
  refundedCount: number;
  /** Σ amount of every matching transaction, whatever its status. */
  totalVolume: number;
  /** Σ amount of the SUCCESS and REFUNDED ones (money that moved). */
  successVolume: number;
}

/** Stats of a merchant's filtered transactions: one aggregate query. */
export async function transactionStats(db: Db, merchantId: string, filter: TransactionFilter): Promise<TransactionStats> {
  const { where } = await transactionWhere(db, merchantId, filter);
  const n = (status: string) => sql<string>`(count(*) filter (where ${transactions.status} = ${status}))::text`;
  const [row] = await db
    .select({
      total: sql<string>`count(*)::text`,
      success: n('SUCCESS'),
      pending: n('PENDING'),
      failed: n('FAILED'),
      cancelled: n('CANCELLED'),
      refunded: n('REFUNDED'),
      totalVolume: sql<string>`coalesce(sum(${transactions.amount}), 0)::text`,
      successVolume: sql<string>`coalesce(sum(${transactions.amount}) filter (where ${transactions.status} in ('SUCCESS', 'REFUNDED')), 0)::text`,
    })
    .from(transactions)
    .where(where);
  return {
    total: Number(row?.total ?? 0),
    successCount: Number(row?.success ?? 0),
    pendingCount: Number(row?.pending ?? 0),
    failedCount: Number(row?.failed ?? 0),
    cancelledCount: Number(row?.cancelled ?? 0),
    refundedCount: Number(row?.refunded ?? 0),
    totalVolume: Number(row?.totalVolume ?? 0),
    successVolume: Number(row?.successVolume ?? 0),
  };
}

/** One entry of a transaction's history (transaction_events), oldest first. */
export interface TransactionEventView {
  id: number;
  fromStatus: string | null;
  toStatus: string;
  /** What caused it: CREATED, INITIATED, MONEY_MOVED, DECLINED, TIMED_OUT, REFUND… */
  cause: string;
  failureCode: string | null;
  /** Diagnostic detail (rail, operator error, refund reference); shown to staff only. */
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

/** Bound of the history returned with a detail (a transaction has a handful of events; polls do not add any). */
const EVENTS_MAX = 200;

/**
 * The condition that selects the merchant's transaction `idOrReference` (its UUID or its
 * reference) among rows joined with their application: another merchant's row never matches.
 */
export function merchantTransactionWhere(merchantId: string, idOrReference: string): SQL | undefined {
  return and(
    isUuid(idOrReference) ? eq(transactions.id, idOrReference) : eq(transactions.reference, idOrReference),
    eq(applications.merchantId, merchantId),
  );
}

/**
 * One of the merchant's transactions by id (UUID) or reference, with its history. 404
 * TRANSACTION_NOT_FOUND when it does not exist, is another merchant's, or is not of `direction`.
 * `withDetail`: include each event's diagnostic `detail` (staff).
 */
export async function transactionDetail(
  db: Db,
  merchantId: string,
  idOrReference: string,
  options: { direction?: Direction | undefined; withDetail: boolean },
): Promise<DashboardTransaction & { events: TransactionEventView[] }> {
  const [found] = await db
    .select({ row: transactions, appName: applications.name })
    .from(transactions)
    .innerJoin(applications, eq(applications.id, transactions.applicationId))
    .where(
      and(merchantTransactionWhere(merchantId, idOrReference), options.direction ? eq(transactions.direction, options.direction) : undefined),
    )
    .limit(1);
  if (!found) throw new ApiError('TRANSACTION_NOT_FOUND');
  const events = await db
    .select()
    .from(transactionEvents)
    .where(eq(transactionEvents.transactionId, found.row.id))
    .orderBy(asc(transactionEvents.id))
    .limit(EVENTS_MAX);
  return {
    ...dashboardTransactionView(found.row, found.appName),
    events: events.map((e) => ({
      id: e.id,
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      cause: e.cause,
      failureCode: e.failureCode,
      detail: options.withDetail ? ((e.detail as Record<string, unknown> | null) ?? null) : null,
      createdAt: e.createdAt,
    })),
  };
}

/**
 * Whether the merchant may refund transaction `t` now and how much of it remains refundable:
 * the refund's own rule (refund-payment.ts, `refundability`), so the dashboard shows a refund
 * action exactly when the refund route would take it.
 */
export function transactionRefundability(services: Pick<Services, 'db' | 'connectors'>, t: DashboardTransaction): Promise<Refundability> {
  // A pay-in's provider is its rail and its payerAccount the payer, as on the row.
  return refundability(services, { id: t.id, direction: t.direction, status: t.status, amount: t.amount, paymentMethod: t.provider, payerAccount: t.payerAccount, environment: t.environment });
}

/** Rows per query of the export: the most the export ever holds in memory at once. */
export const EXPORT_BATCH_ROWS = 500;

/**
 * The merchant's filtered transactions, newest first, as an async iterable read in keyset
 * batches of `EXPORT_BATCH_ROWS`: each query asks for the rows strictly older than the last one
 * seen on (created_at, id), so no OFFSET is ever scanned twice and a new row arriving during the
 * export cannot shift or repeat lines. Only one batch is held at a time, and the next query is
 * only sent when the consumer has taken the previous batch (a pull-based generator), so memory
 * stays constant whatever the number of rows. `query` comes from `transactionWhere` (built, and
 * its application checked, before the first byte is sent).
 */
export async function* iterateTransactions(db: Db, query: TransactionQuery): AsyncGenerator<DashboardTransaction> {
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? sql`(${transactions.createdAt}, ${transactions.id}) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
      : undefined;
    const batch: TransactionRow[] = await db
      .select()
      .from(transactions)
      .where(and(query.where, cursor))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(EXPORT_BATCH_ROWS);
    for (const row of batch) yield dashboardTransactionView(row, query.appNames.get(row.applicationId) ?? '');
    if (batch.length < EXPORT_BATCH_ROWS) return;
    const last: TransactionRow = batch[batch.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
