/**
 * A statement as CSV (RFC 4180 through csv-stringify: comma, CRLF, UTF-8 with a BOM, formulas
 * escaped as the transactions export does). One row per line of the statement: `line` is OPENING
 * (the balance at the start of the range), MOVEMENT, or CLOSING (at its end), so that for each
 * (environment, currency, balance) OPENING + Σ MOVEMENT amounts = CLOSING. Amounts in base units.
 */
import { stringify } from 'csv-stringify/sync';
import type { Statement } from './build-statement.ts';

/** The header line's column names, in order. */
export const STATEMENT_CSV_COLUMNS = ['line', 'postedAt', 'environment', 'currency', 'balance', 'application', 'entryKind', 'reference', 'amount', 'balanceAfter'];

/** The CSV text of `statement`. */
export function statementCsv(statement: Statement): string {
  const startAt = `${statement.from}T00:00:00.000Z`;
  const endAt = new Date(Date.parse(`${statement.to}T00:00:00Z`) + 86_400_000).toISOString();
  const rows: (string | number)[][] = [];
  for (const t of statement.totals) rows.push(['OPENING', startAt, t.environment, t.currency, t.balance, '', '', '', t.opening, t.opening]);
  for (const m of statement.movements) {
    rows.push(['MOVEMENT', m.postedAt, m.environment, m.currency, m.balance, m.applicationName, m.entryKind, m.reference ?? '', m.amount, m.balanceAfter]);
  }
  for (const t of statement.totals) rows.push(['CLOSING', endAt, t.environment, t.currency, t.balance, '', '', '', t.closing, t.closing]);
  return stringify(rows, { header: true, columns: STATEMENT_CSV_COLUMNS, bom: true, record_delimiter: 'windows', escape_formulas: true });
}
