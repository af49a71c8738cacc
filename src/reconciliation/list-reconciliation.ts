/**
 * Reading reconciliation for staff: runs (newest first), cases filtered by kind, status and rail
 * (oldest open first), and one case with its evidence.
 */
import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { reconciliationCases, reconciliationRuns } from '../db/schema-reconciliation.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import type { CaseRow } from './resolve-case.ts';

/** A run row. */
export type RunRow = typeof reconciliationRuns.$inferSelect;

/** A page of runs, newest first, optionally of one rail. */
export async function pageRuns(db: Db, query: { railCode?: string | undefined; page: number; size: number }): Promise<{ rows: RunRow[]; total: number }> {
  const where = query.railCode ? eq(reconciliationRuns.railCode, query.railCode) : undefined;
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(reconciliationRuns).where(where);
  const rows = await db.select().from(reconciliationRuns).where(where).orderBy(desc(reconciliationRuns.createdAt), asc(reconciliationRuns.id)).limit(query.size).offset(query.page * query.size);
  return { rows, total };
}

/** A page of cases, oldest first, filtered by kind, status and rail when given. */
export async function pageCases(
  db: Db,
  query: { kind?: string | undefined; status?: string | undefined; railCode?: string | undefined; page: number; size: number },
): Promise<{ rows: CaseRow[]; total: number }> {
  const filters: SQL[] = [];
  if (query.kind) filters.push(eq(reconciliationCases.kind, query.kind));
  if (query.status) filters.push(eq(reconciliationCases.status, query.status));
  if (query.railCode) filters.push(eq(reconciliationCases.railCode, query.railCode));
  const where = filters.length > 0 ? and(...filters) : undefined;
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(reconciliationCases).where(where);
  const rows = await db.select().from(reconciliationCases).where(where).orderBy(asc(reconciliationCases.createdAt), asc(reconciliationCases.caseKey)).limit(query.size).offset(query.page * query.size);
  return { rows, total };
}

/** Case `id`. Throws ApiError RECONCILIATION_CASE_NOT_FOUND. */
export async function getCase(db: Db, id: string): Promise<CaseRow> {
  if (!isUuid(id)) throw new ApiError('RECONCILIATION_CASE_NOT_FOUND');
  const [row] = await db.select().from(reconciliationCases).where(eq(reconciliationCases.id, id));
  if (!row) throw new ApiError('RECONCILIATION_CASE_NOT_FOUND');
  return row;
}

/** True when transaction `transactionId` has an open case (its status answer and webhooks then say so). */
export async function hasOpenCase(db: Db, transactionId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: reconciliationCases.id })
    .from(reconciliationCases)
    .where(and(eq(reconciliationCases.transactionId, transactionId), eq(reconciliationCases.status, 'OPEN')))
    .limit(1);
  return row !== undefined;
}
