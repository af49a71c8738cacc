/**
 * Reconciliation tables: runs (one comparison of a rail's operator records with the ledger and
 * with what merchants were told, over a period), cases (one per mismatch, opened once: `case_key`
 * is unique, so a rerun of the same period opens nothing new) and the merchants' reads of the
 * events feed (what they were told without a webhook).
 */
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { applications } from './schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * One reconciliation run of a rail over `[period_from, period_to)`. `source` API (the operator's
 * transaction list) or FILE (an imported statement export). `drift`: Σ of the amounts of the
 * rail's open cases when the run ended, base units. `status` DONE or FAILED (`error` says why).
 */
export const reconciliationRuns = pgTable(
  'reconciliation_runs',
  {
    id: uuid('id').primaryKey(),
    railCode: text('rail_code').notNull(),
    periodFrom: ts('period_from').notNull(),
    periodTo: ts('period_to').notNull(),
    source: text('source').notNull(),
    status: text('status').notNull(),
    operatorRecords: integer('operator_records').notNull().default(0),
    koloTransactions: integer('kolo_transactions').notNull().default(0),
    matched: integer('matched').notNull().default(0),
    casesOpened: integer('cases_opened').notNull().default(0),
    drift: bigint('drift', { mode: 'number' }).notNull().default(0),
    currency: text('currency'),
    /** The staff account that started it; null for the daily run and the CLI. */
    startedBy: uuid('started_by'),
    error: text('error'),
    createdAt: ts('created_at').notNull(),
    finishedAt: ts('finished_at'),
  },
  (t) => [index('reconciliation_runs_rail_created_idx').on(t.railCode, t.createdAt)],
);

/**
 * One mismatch. `kind`: OPERATOR_ONLY, KOLO_ONLY, STATUS_MISMATCH, AMOUNT_MISMATCH,
 * MERCHANT_NOT_TOLD, BALANCE_DRIFT. `amount`: the money in question, positive base units (0 for
 * MERCHANT_NOT_TOLD). `evidence`: the three sides as found (operator record, Kolo transaction and
 * its float postings, what the merchant was told). `status` OPEN or RESOLVED; a resolution names
 * its action, actor and note.
 */
export const reconciliationCases = pgTable(
  'reconciliation_cases',
  {
    id: uuid('id').primaryKey(),
    caseKey: text('case_key').notNull(),
    kind: text('kind').notNull(),
    status: text('status').notNull(),
    railCode: text('rail_code').notNull(),
    environment: text('environment').notNull(),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    transactionId: uuid('transaction_id'),
    applicationId: uuid('application_id'),
    operatorTransactionId: text('operator_transaction_id'),
    evidence: jsonb('evidence').notNull(),
    runId: uuid('run_id').notNull(),
    resolution: text('resolution'),
    resolutionNote: text('resolution_note'),
    resolvedBy: uuid('resolved_by'),
    resolvedAt: ts('resolved_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('reconciliation_cases_key').on(t.caseKey),
    index('reconciliation_cases_open_idx').on(t.railCode, t.kind).where(sql`${t.status} = 'OPEN'`),
    index('reconciliation_cases_tx_idx').on(t.transactionId).where(sql`${t.status} = 'OPEN'`),
  ],
);

/**
 * How far each application's events feed (`GET /api/v1/events`) has been read, per environment:
 * the position (`written_by`, `seq`) of the last event handed out. An event at or before it was
 * read by the merchant.
 */
export const eventFeedReads = pgTable(
  'event_feed_reads',
  {
    applicationId: uuid('application_id')
      .notNull()
      .references(() => applications.id),
    environment: text('environment').notNull(),
    writtenBy: text('written_by').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    readAt: ts('read_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.applicationId, t.environment] })],
);
