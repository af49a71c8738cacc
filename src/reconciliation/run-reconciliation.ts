/**
 * One reconciliation run of a LIVE rail over a period: obtains the operator's records
 * (operator-view.ts), reads Kolo's side (the rail's transactions, their operator-float postings,
 * what their merchants were told), matches them (match-records.ts) and opens one case per
 * mismatch not already opened (the case key is unique: a rerun of the same period opens nothing
 * new). A MERCHANT_NOT_TOLD case of the rail whose merchant was told since (the final webhook
 * acknowledged with a 2xx, or the event read in the events feed) is closed by the next run
 * (`closeToldCases`). The run records its counts and the rail's drift: Σ of the amounts of its
 * open cases.
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { transaction, type Db } from '../db/client.ts';
import { createConnectorStateStore } from '../db/queries/connector-state.ts';
import { koloSideOf } from '../db/queries/reconciliation.ts';
import { reconciliationCases, reconciliationRuns } from '../db/schema-reconciliation.ts';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { operatorTransport, type FetchFn } from '../connectors/operator-http.ts';
import type { Services } from '../services.ts';
import { eventNameFor } from '../webhooks/webhook-events.ts';
import { matchRecords, type CaseKind } from './match-records.ts';
import { operatorRecordsFor, type RecordSource } from './operator-view.ts';

/** Reconciliation covers LIVE money only: TEST transactions never reach an operator. */
const ENVIRONMENT = 'LIVE';

/** The longest period one run covers, milliseconds (31 days: Wave lists a day at a time, statements are monthly). */
export const RUN_PERIOD_MAX_MS = 31 * 86_400_000;

/** What a run did. `drift`: Σ of the amounts of the rail's open cases after it, base units. */
export interface RunSummary {
  id: string;
  railCode: string;
  from: Date;
  to: Date;
  source: RecordSource;
  operatorRecords: number;
  koloTransactions: number;
  matched: number;
  casesOpened: number;
  openedByKind: Partial<Record<CaseKind, number>>;
  drift: number;
  currency: string | null;
}

/** Σ of the open cases' amounts of `railCode` (one currency per rail). */
export async function openDrift(db: Db, railCode: string): Promise<number> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${reconciliationCases.amount}), 0)::text` })
    .from(reconciliationCases)
    .where(and(eq(reconciliationCases.railCode, railCode), eq(reconciliationCases.status, 'OPEN')));
  return Number(row?.total ?? 0);
}

/**
 * Runs the reconciliation of `railCode` over `[from, to)`, with `file` (a statement export's CSV
 * text) as the operator's view when given. Throws ApiError: VALIDATION_ERROR (empty or too long
 * period), PROVIDER_NOT_FOUND, STATEMENT_FILE_INVALID, STATEMENT_FILE_REQUIRED,
 * OPERATOR_RECORDS_UNAVAILABLE; nothing is opened then.
 */
export async function runReconciliation(
  services: Pick<Services, 'db' | 'clock' | 'ids' | 'config' | 'log' | 'webhookSecretBox'> & { fetch?: FetchFn },
  input: { railCode: string; from: Date; to: Date; file?: string; startedBy?: string | null },
): Promise<RunSummary> {
  const { railCode, from, to } = input;
  if (!(from < to) || to.getTime() - from.getTime() > RUN_PERIOD_MAX_MS) {
    throw new ApiError('VALIDATION_ERROR', { data: { to: 'La période doit être non vide et durer au plus 31 jours.' } });
  }
  const fetch: FetchFn = services.fetch ?? operatorTransport();
  // Operator tokens are shared with the connectors (Daraja's: a new one invalidates the previous).
  const sharedState = createConnectorStateStore(services.db, services.webhookSecretBox, services.clock);
  const { source, records, covers } = await operatorRecordsFor({ config: services.config, fetch, sharedState, now: () => services.clock.now() }, railCode, { from, to }, input.file);
  const kolo = await koloSideOf(services.db, {
    railCode,
    environment: ENVIRONMENT,
    from,
    to,
    operatorIds: records.map((r) => r.operatorTransactionId),
    references: records.flatMap((r) => (r.reference ? [r.reference] : [])),
  });
  const now = services.clock.now();
  const { drafts, matched } = matchRecords({ railCode, period: { from, to }, records, kolo, now, covers });
  const runId = services.ids.uuid();
  const currency = records[0]?.currency ?? kolo[0]?.currency ?? null;
  return transaction(services.db, async (tx) => {
    await tx.insert(reconciliationRuns).values({
      id: runId,
      railCode,
      periodFrom: from,
      periodTo: to,
      source,
      status: 'DONE',
      operatorRecords: records.length,
      koloTransactions: kolo.length,
      matched,
      currency,
      startedBy: input.startedBy ?? null,
      createdAt: now,
    });
    const opened =
      drafts.length === 0
        ? []
        : await tx
            .insert(reconciliationCases)
            .values(
              drafts.map((d) => ({
                id: services.ids.uuid(),
                caseKey: d.caseKey,
                kind: d.kind,
                status: 'OPEN',
                railCode,
                environment: ENVIRONMENT,
                currency: d.currency,
                amount: d.amount,
                transactionId: d.transactionId,
                applicationId: d.applicationId,
                operatorTransactionId: d.operatorTransactionId,
                evidence: d.evidence,
                runId,
                createdAt: now,
              })),
            )
            .onConflictDoNothing({ target: reconciliationCases.caseKey })
            .returning({ kind: reconciliationCases.kind, transactionId: reconciliationCases.transactionId });
    // Their status answers and webhooks say `reconciliation: "IN_REVIEW"` while a case is open.
    const inReview = [...new Set(opened.flatMap((o) => (o.transactionId ? [o.transactionId] : [])))];
    if (inReview.length > 0) await tx.update(transactions).set({ isInReconciliation: true }).where(inArray(transactions.id, inReview));
    const closed = await closeToldCases(tx, railCode, now);
    const openedByKind: Partial<Record<CaseKind, number>> = {};
    for (const o of opened) openedByKind[o.kind as CaseKind] = (openedByKind[o.kind as CaseKind] ?? 0) + 1;
    const drift = await openDrift(tx, railCode);
    await tx.update(reconciliationRuns).set({ casesOpened: opened.length, drift, finishedAt: services.clock.now() }).where(eq(reconciliationRuns.id, runId));
    services.log.info({ runId, railCode, records: records.length, opened: opened.length, closedAsTold: closed, drift }, 'reconciliation run');
    return { id: runId, railCode, from, to, source, operatorRecords: records.length, koloTransactions: kolo.length, matched, casesOpened: opened.length, openedByKind, drift, currency };
  });
}

/** The note of a MERCHANT_NOT_TOLD case a run closed because the merchant was told since. */
export const TOLD_SINCE_NOTE = "Clos automatiquement : le marchand a été informé depuis (webhook final acquitté par un 2xx ou événement lu dans le flux d'événements).";

/**
 * Closes, in `tx`, the open MERCHANT_NOT_TOLD cases of `railCode` (whatever their period) whose
 * transaction's final event has since been delivered with a 2xx or read in the events feed: the
 * same test that opens them (`toldEvents` of `koloSideOf`). Each becomes RESOLVED, resolution
 * ACCEPT, no actor, `TOLD_SINCE_NOTE`; its transaction leaves review when no other case is open.
 * Returns how many were closed.
 */
async function closeToldCases(tx: Db, railCode: string, now: Date): Promise<number> {
  const open = await tx
    .select({ id: reconciliationCases.id, transactionId: reconciliationCases.transactionId, reference: transactions.reference })
    .from(reconciliationCases)
    .innerJoin(transactions, eq(transactions.id, reconciliationCases.transactionId))
    .where(
      and(
        eq(reconciliationCases.railCode, railCode),
        eq(reconciliationCases.kind, 'MERCHANT_NOT_TOLD'),
        eq(reconciliationCases.status, 'OPEN'),
        isNotNull(reconciliationCases.transactionId),
      ),
    );
  if (open.length === 0) return 0;
  // An empty period: only the transactions named by reference are read.
  const rows = await koloSideOf(tx, { railCode, environment: ENVIRONMENT, from: new Date(0), to: new Date(0), operatorIds: [], references: open.map((o) => o.reference) });
  const told = new Set(
    rows.filter((r) => {
      const expected = eventNameFor(r);
      return expected !== null && r.toldEvents.includes(expected);
    }).map((r) => r.id),
  );
  const caseIds = open.filter((o) => told.has(o.transactionId!)).map((o) => o.id);
  if (caseIds.length === 0) return 0;
  const closed = await tx
    .update(reconciliationCases)
    .set({ status: 'RESOLVED', resolution: 'ACCEPT', resolutionNote: TOLD_SINCE_NOTE, resolvedBy: null, resolvedAt: now })
    .where(and(inArray(reconciliationCases.id, caseIds), eq(reconciliationCases.status, 'OPEN')))
    .returning({ transactionId: reconciliationCases.transactionId });
  const ids = [...new Set(closed.flatMap((c) => (c.transactionId ? [c.transactionId] : [])))];
  if (ids.length > 0) {
    await tx
      .update(transactions)
      .set({ isInReconciliation: sql`exists (select 1 from ${reconciliationCases} c where c.transaction_id = ${transactions.id} and c.status = 'OPEN')` })
      .where(inArray(transactions.id, ids));
  }
  return closed.length;
}
