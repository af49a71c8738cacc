/**
 * What a batch pay-out looks like to the merchant API and the dashboard: its totals, status and
 * progress, and its items with the pay-out each became. Reads scoped to one application.
 */
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { batchItems, batches } from '../db/schema-batches.ts';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';

/** A batch row. */
export type BatchRow = typeof batches.$inferSelect;

/** Where a batch's items are: not yet sent, sent and awaiting the operator, paid, failed. */
export interface BatchProgress {
  waiting: number;
  pending: number;
  succeeded: number;
  failed: number;
}

/** A batch as the API shows it; amounts in base units of `currency`. */
export interface BatchView {
  id: string;
  status: string;
  environment: string;
  currency: string;
  itemCount: number;
  totalAmount: number;
  feeAmount: number;
  /** totalAmount + feeAmount: what approval reserves. */
  reservedAmount: number;
  progress: BatchProgress;
  createdBy: string | null;
  approvedBy: string | null;
  createdAt: string;
  expiresAt: string;
  approvedAt: string | null;
  closedAt: string | null;
}

/** One item as the API shows it, with the reference and status of its pay-out once sent. */
export interface BatchItemView {
  rowNumber: number;
  amount: number;
  feeAmount: number;
  paymentMethod: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  merchantReference: string | null;
  status: 'WAITING' | 'PENDING' | 'SUCCESS' | 'FAILED';
  reference: string | null;
  failureReason: string | null;
}

/** The batch `batchId` of `applicationId`; 404 BATCH_NOT_FOUND otherwise (another application's included). */
export async function findBatch(db: Db, applicationId: string, batchId: string): Promise<BatchRow> {
  const [row] = await db.select().from(batches).where(and(eq(batches.id, batchId), eq(batches.applicationId, applicationId)));
  if (!row) throw new ApiError('BATCH_NOT_FOUND');
  return row;
}

/** The items of a batch in row order, each with its pay-out's reference and status once sent. */
export async function batchItemViews(db: Db, batchId: string): Promise<BatchItemView[]> {
  const rows = await db
    .select({
      item: batchItems,
      reference: transactions.reference,
      txStatus: transactions.status,
      failureReason: transactions.failureReason,
    })
    .from(batchItems)
    .leftJoin(transactions, eq(transactions.id, batchItems.transactionId))
    .where(eq(batchItems.batchId, batchId))
    .orderBy(asc(batchItems.rowNumber));
  return rows.map(({ item, reference, txStatus, failureReason }) => ({
    rowNumber: item.rowNumber,
    amount: item.amount,
    feeAmount: item.feeAmount,
    paymentMethod: item.paymentMethod,
    beneficiaryAccount: item.beneficiaryAccount,
    beneficiaryName: item.beneficiaryName,
    merchantReference: item.merchantReference,
    status: itemStatus(item.status, txStatus),
    reference: reference ?? null,
    failureReason: item.failureReason ?? failureReason ?? null,
  }));
}

function itemStatus(itemStatus: string, txStatus: string | null): BatchItemView['status'] {
  if (itemStatus === 'FAILED') return 'FAILED';
  if (itemStatus === 'WAITING' || txStatus === null) return 'WAITING';
  if (txStatus === 'SUCCESS') return 'SUCCESS';
  if (txStatus === 'PENDING') return 'PENDING';
  return 'FAILED';
}

/** The progress of a batch: one grouped query over its items and their pay-outs. */
export async function batchProgress(db: Db, batchId: string): Promise<BatchProgress> {
  const rows = await db
    .select({ itemStatus: batchItems.status, txStatus: transactions.status, n: sql<number>`count(*)::int`.mapWith(Number) })
    .from(batchItems)
    .leftJoin(transactions, eq(transactions.id, batchItems.transactionId))
    .where(eq(batchItems.batchId, batchId))
    .groupBy(batchItems.status, transactions.status);
  const progress: BatchProgress = { waiting: 0, pending: 0, succeeded: 0, failed: 0 };
  for (const r of rows) {
    const s = itemStatus(r.itemStatus, r.txStatus);
    if (s === 'WAITING') progress.waiting += r.n;
    else if (s === 'PENDING') progress.pending += r.n;
    else if (s === 'SUCCESS') progress.succeeded += r.n;
    else progress.failed += r.n;
  }
  return progress;
}

/** The view of a batch row with its progress. */
export async function batchView(db: Db, row: BatchRow): Promise<BatchView> {
  return {
    id: row.id,
    status: row.status,
    environment: row.environment,
    currency: row.currency,
    itemCount: row.itemCount,
    totalAmount: row.totalAmount,
    feeAmount: row.feeAmount,
    reservedAmount: row.totalAmount + row.feeAmount,
    progress: await batchProgress(db, row.id),
    createdBy: row.createdBy,
    approvedBy: row.approvedBy,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    approvedAt: row.approvedAt?.toISOString() ?? null,
    closedAt: row.closedAt?.toISOString() ?? null,
  };
}

/** A batch in a list: its view and the application it belongs to. */
export interface BatchListItem extends BatchView {
  applicationId: string;
}

/**
 * Page `page` (from 0) of `size` batches of `applicationIds` in `environment`, newest first, and
 * how many there are in all. Each with its progress (one grouped query per batch of the page).
 */
export async function listBatches(
  db: Db,
  applicationIds: string[],
  environment: string,
  page: number,
  size: number,
): Promise<{ content: BatchListItem[]; total: number }> {
  if (applicationIds.length === 0) return { content: [], total: 0 };
  const where = and(inArray(batches.applicationId, applicationIds), eq(batches.environment, environment));
  const [count] = await db.select({ n: sql<number>`count(*)::int`.mapWith(Number) }).from(batches).where(where);
  const rows = await db
    .select()
    .from(batches)
    .where(where)
    .orderBy(desc(batches.createdAt), desc(batches.id))
    .limit(size)
    .offset(page * size);
  const content: BatchListItem[] = [];
  for (const row of rows) content.push({ ...(await batchView(db, row)), applicationId: row.applicationId });
  return { content, total: count?.n ?? 0 };
}
