/**
 * CSV export of a merchant's filtered transactions, streamed.
 *
 * Constant memory by construction: rows come from `iterateTransactions` (keyset batches of
 * `EXPORT_BATCH_ROWS`, the next batch queried only when the previous one was consumed) through
 * csv-stringify's Transform stream into the HTTP response. Node streams apply backpressure at
 * each step: when the client reads slowly, the socket buffer fills, the stringifier stops
 * pulling, the generator stops querying. So a year of transactions never sits in memory; at most
 * one batch plus the streams' high-water marks (16 KiB/16 objects by default) do.
 *
 * Format: RFC 4180 (comma, CRLF, quotes doubled), UTF-8 with a BOM so spreadsheet programs read
 * accents right, a header line, amounts in base units, timestamps like the JSON API (server
 * local time, no zone). Cells starting with `=`, `+`, `-`, `@`, tab or CR are prefixed with `'`
 * (OWASP "CSV Injection"), since descriptions and names come from payers and merchants.
 */
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Db } from '../db/client.ts';
import { formatLocalTimestamp } from '../domain/clock.ts';
import { iterateTransactions, type DashboardTransaction, type TransactionQuery } from './transactions.ts';

/** Column header → value of a transaction, in file order. */
const COLUMNS: [string, (t: DashboardTransaction) => string | number | null][] = [
  ['id', (t) => t.id],
  ['reference', (t) => t.reference],
  ['merchantReference', (t) => t.merchantReference],
  ['type', (t) => t.type],
  ['direction', (t) => t.direction],
  ['environment', (t) => t.environment],
  ['status', (t) => t.status],
  ['amount', (t) => t.amount],
  ['feeAmount', (t) => t.feeAmount],
  ['netAmount', (t) => t.netAmount],
  ['refundedAmount', (t) => t.refundedAmount],
  ['currency', (t) => t.currency],
  ['provider', (t) => t.provider],
  ['payerAccount', (t) => t.payerAccount],
  ['payerName', (t) => t.payerName],
  ['payerEmail', (t) => t.payerEmail],
  ['description', (t) => t.description],
  ['appName', (t) => t.appName],
  ['failureCode', (t) => t.failureCode],
  ['createdAt', (t) => formatLocalTimestamp(t.createdAt)],
  ['updatedAt', (t) => formatLocalTimestamp(t.updatedAt)],
  ['completedAt', (t) => (t.completedAt ? formatLocalTimestamp(t.completedAt) : null)],
];

/** The header line's column names, in order. */
export const CSV_COLUMNS = COLUMNS.map(([name]) => name);

/**
 * A readable stream of the CSV file. A database error mid-way destroys the stream (the client
 * sees a truncated, failed download rather than a file that looks complete) and is passed to
 * `onError` for logging. `query`: from `transactionWhere`.
 */
export function transactionsCsv(db: Db, query: TransactionQuery, onError: (error: Error) => void): Readable {
  const rows = Readable.from(
    (async function* () {
      for await (const t of iterateTransactions(db, query)) yield COLUMNS.map(([, value]) => value(t) ?? '');
    })(),
  );
  const csv = stringify({ header: true, columns: CSV_COLUMNS, bom: true, record_delimiter: 'windows', escape_formulas: true });
  pipeline(rows, csv, (error) => {
    if (error) onError(error);
  });
  return csv;
}
