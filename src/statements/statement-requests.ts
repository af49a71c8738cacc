/**
 * Statements a merchant asks for: a range of at most `STATEMENT_SYNC_MAX_DAYS` days is answered
 * at once (`statementNow`); any range may be prepared in the background (`requestStatement`):
 * stored PENDING, built by `prepareDueStatements` (the statement job, and at once after the
 * request), then READY with its CSV for download. Every read is scoped to the merchant.
 */
import { and, asc, desc, eq, lt, or } from 'drizzle-orm';
import { statements } from '../db/schema-float.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { buildStatement, statementDays, type Statement } from './build-statement.ts';
import { statementCsv } from './statement-csv.ts';

/** Longest range a statement may cover, in days (ten years: a bound, not a product rule). */
export const STATEMENT_MAX_DAYS = 3660;
/** At most this many statements prepared per pass of the job. */
const PREPARE_BATCH = 5;
/** A statement still PREPARING this long after its request is taken again (its preparer died). */
const PREPARE_LEASE_MS = 10 * 60_000;

/** A background statement as the API lists it (no CSV). */
export interface StatementRequestView {
  id: string;
  from: string;
  to: string;
  status: 'PENDING' | 'PREPARING' | 'READY' | 'FAILED';
  createdAt: string;
  readyAt: string | null;
}

/** Checks a range of UTC days (YYYY-MM-DD): from ≤ to, at most STATEMENT_MAX_DAYS; throws VALIDATION_ERROR. */
export function checkRange(from: string, to: string): number {
  const days = statementDays(from, to);
  if (!Number.isFinite(days) || days < 1) throw validationError({ to: 'doit être le même jour que from ou après' });
  if (days > STATEMENT_MAX_DAYS) throw validationError({ to: `la période ne peut pas dépasser ${STATEMENT_MAX_DAYS} jours` });
  return days;
}

/**
 * The statement of `merchantId` for `from`..`to`, built now; throws VALIDATION_ERROR when the range
 * is invalid or longer than `STATEMENT_SYNC_MAX_DAYS` (then ask for it in the background).
 */
export async function statementNow(services: Pick<Services, 'db' | 'config'>, merchantId: string, from: string, to: string): Promise<Statement> {
  const days = checkRange(from, to);
  if (days > services.config.statementSyncMaxDays) {
    throw validationError({
      to: `une période de plus de ${services.config.statementSyncMaxDays} jours se prépare en arrière-plan (POST /api/v1/merchants/statements)`,
    });
  }
  return buildStatement(services.db, merchantId, from, to);
}

function viewOf(row: typeof statements.$inferSelect): StatementRequestView {
  return {
    id: row.id,
    from: row.fromDate,
    to: row.toDate,
    status: row.status as StatementRequestView['status'],
    createdAt: row.createdAt.toISOString(),
    readyAt: row.readyAt?.toISOString() ?? null,
  };
}

/** Stores a statement request of `merchantId` (PENDING) and starts preparing it; returns it. */
export async function requestStatement(services: Services, merchantId: string, from: string, to: string): Promise<StatementRequestView> {
  checkRange(from, to);
  const [row] = await services.db
    .insert(statements)
    .values({ id: services.ids.uuid(), merchantId, fromDate: from, toDate: to, status: 'PENDING', createdAt: services.clock.now() })
    .returning();
  // Prepared after the answer; the statement job takes it should this instance stop first.
  setImmediate(() => {
    prepareDueStatements(services).catch((error: unknown) => services.log.error({ err: error }, 'statements: preparation failed'));
  });
  return viewOf(row!);
}

/** The merchant's background statements, newest first (at most 50). */
export async function listStatements(services: Pick<Services, 'db'>, merchantId: string): Promise<StatementRequestView[]> {
  const rows = await services.db.select().from(statements).where(eq(statements.merchantId, merchantId)).orderBy(desc(statements.createdAt)).limit(50);
  return rows.map(viewOf);
}

/** The CSV of the merchant's READY statement `id`; throws RESOURCE_NOT_FOUND (not theirs) or STATEMENT_NOT_READY. */
export async function statementFile(services: Pick<Services, 'db'>, merchantId: string, id: string): Promise<{ csv: string; from: string; to: string }> {
  const [row] = await services.db.select().from(statements).where(and(eq(statements.id, id), eq(statements.merchantId, merchantId)));
  if (!row) throw new ApiError('RESOURCE_NOT_FOUND');
  if (row.status !== 'READY' || row.csv === null) throw new ApiError('STATEMENT_NOT_READY');
  return { csv: row.csv, from: row.fromDate, to: row.toDate };
}

/**
 * Prepares due statement requests (PENDING, or PREPARING past its lease), oldest first, at most
 * PREPARE_BATCH: each is claimed by compare-and-set, built, and stored READY with its CSV (FAILED
 * with the error when building throws). Returns how many were prepared.
 */
export async function prepareDueStatements(services: Pick<Services, 'db' | 'clock' | 'log'>): Promise<number> {
  const now = services.clock.now();
  const stale = new Date(now.getTime() - PREPARE_LEASE_MS);
  const due = await services.db
    .select({ id: statements.id, status: statements.status, createdAt: statements.createdAt })
    .from(statements)
    .where(or(eq(statements.status, 'PENDING'), and(eq(statements.status, 'PREPARING'), lt(statements.createdAt, stale))))
    .orderBy(asc(statements.createdAt))
    .limit(PREPARE_BATCH);
  let prepared = 0;
  for (const candidate of due) {
    const [claimed] = await services.db
      .update(statements)
      .set({ status: 'PREPARING' })
      .where(and(eq(statements.id, candidate.id), eq(statements.status, candidate.status)))
      .returning();
    if (!claimed) continue;
    try {
      const statement = await buildStatement(services.db, claimed.merchantId, claimed.fromDate, claimed.toDate);
      await services.db.update(statements).set({ status: 'READY', csv: statementCsv(statement), readyAt: services.clock.now() }).where(eq(statements.id, claimed.id));
      prepared++;
    } catch (error) {
      services.log.error({ err: error, statement: claimed.id }, 'statements: build failed');
      await services.db.update(statements).set({ status: 'FAILED', error: String(error).slice(0, 500) }).where(eq(statements.id, claimed.id));
    }
  }
  return prepared;
}
