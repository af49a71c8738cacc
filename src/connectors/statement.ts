/**
 * The operator's own view of the money it moved, in one shape whatever the operator: the rows of
 * its transaction list (Wave, M-Pesa) or of its statement export (MTN, Orange), as reconciliation
 * compares them with Kolo's ledger. Amounts are positive integers in the currency's base unit; the
 * direction says which way the money went for Kolo's wallet at the operator. Statement files are
 * read with csv-parse.
 */
import { parse } from 'csv-parse/sync';

/** What a row is: a payment (pay-in or pay-out), the reversal of one, or a balance adjustment no payment explains. */
export type OperatorRecordKind = 'PAYMENT' | 'REVERSAL' | 'ADJUSTMENT';

/** One movement as the operator records it. */
export interface OperatorRecord {
  /** The operator's id of the movement (MTN `financialTransactionId`, Orange `txnid`, M-Pesa receipt, Wave transaction id). */
  operatorTransactionId: string;
  /** Kolo's reference as the operator echoes it (Wave `client_reference`, MTN `externalId`, …); null when it carries none. */
  reference: string | null;
  /** Positive, base units. */
  amount: number;
  currency: string;
  /** IN: into Kolo's wallet (a pay-in, a pay-out reversed, a credit adjustment); OUT: out of it. */
  direction: 'IN' | 'OUT';
  /** SUCCEEDED: the money moved; FAILED: the operator lists the attempt as failed (no money moved). */
  status: 'SUCCEEDED' | 'FAILED';
  at: Date;
  kind: OperatorRecordKind;
  /** A reversal: the operator's id of the movement it reverses, when the operator names it. */
  reversalOf?: string | null;
}

/** A half-open period `[from, to)`. */
export interface RecordPeriod {
  from: Date;
  to: Date;
}

/** Thrown when a statement file cannot be read: names the line and what is wrong (nothing of the file is used then). */
export class StatementFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementFormatError';
  }
}

/** At most this many rows in one statement file. */
export const STATEMENT_ROWS_MAX = 100_000;

/**
 * The rows of a statement CSV as objects keyed by header, each with its 1-based line number
 * (csv-parse). Throws `StatementFormatError` when the text is not CSV, when a column of
 * `required` is missing from the header, or when there are more than `STATEMENT_ROWS_MAX` rows.
 */
export function parseStatementCsv(csv: string, options: { delimiter: string; required: readonly string[] }): { line: number; row: Record<string, string> }[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(csv.replace(/^\uFEFF/, ''), {
      delimiter: options.delimiter,
      columns: (header: string[]) => header.map((h) => h.trim()),
      skip_empty_lines: true,
      trim: true,
      info: true,
      to: STATEMENT_ROWS_MAX + 1,
    }) as { record: Record<string, string>; info: { lines: number } }[];
  } catch (e) {
    throw new StatementFormatError(`not a CSV file (${(e as Error).message})`);
  }
  if (records.length > STATEMENT_ROWS_MAX) throw new StatementFormatError(`more than ${STATEMENT_ROWS_MAX} rows`);
  const header = firstLineColumns(csv, options.delimiter);
  const missing = options.required.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new StatementFormatError(`missing column(s) ${missing.join(', ')} in the header line`);
  return records.map((r) => ({ line: r.info.lines, row: r.record }));
}

/** The header's column names (trimmed), for the missing-column check even when there is no data row. */
function firstLineColumns(csv: string, delimiter: string): string[] {
  const first = csv.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return first.split(delimiter).map((c) => c.trim().replace(/^"|"$/g, ''));
}

/** `value` as a signed integer of base units from a decimal string of major units (`decimals` digits), or null. */
export function baseUnitsOf(value: string, decimals: number): number | null {
  const clean = value.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  const m = /^(-?)(\d{1,15})(?:\.(\d{1,2}))?$/.exec(clean);
  if (!m || (m[3] && m[3].length > decimals)) return null;
  const units = Number(m[2]) * 10 ** decimals + Number((m[3] ?? '').padEnd(decimals, '0') || '0');
  return m[1] ? -units : units;
}
