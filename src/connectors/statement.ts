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
 * The header names a statement column is accepted under: its name as Kolo documents it first,
 * then its aliases. Names are compared without case, accents, spaces, `_`, `-`, `.` or `/`
 * (`External Transaction Id`, `external_transaction_id` and `EXTERNAL TRANSACTION ID` are one).
 */
export type StatementColumns = Record<string, readonly string[]>;

/** `name` reduced for comparison: no case, accents, spaces, `_`, `-`, `.` or `/`. */
export function headerKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_\-./]+/g, '');
}

/**
 * The rows of a statement CSV as objects keyed by the documented name of each column of
 * `columns` found in the header (under its name or an alias; other columns are ignored), each
 * with its 1-based line number (csv-parse). Throws `StatementFormatError` (French) when the text
 * is not CSV, when a column of `required` is missing from the header (listing each missing
 * column with the names it is accepted under, and the columns found), or when there are more
 * than `STATEMENT_ROWS_MAX` rows.
 */
export function parseStatementCsv(
  csv: string,
  options: { delimiter: string; columns: StatementColumns; required: readonly string[] },
): { line: number; row: Record<string, string> }[] {
  const text = csv.replace(/^\uFEFF/, '');
  const header = firstLineColumns(text, options.delimiter);
  // Documented name of each header position, when it names a known column (first one wins).
  const byKey = new Map<string, string>();
  for (const [name, aliases] of Object.entries(options.columns)) for (const alias of [name, ...aliases]) byKey.set(headerKey(alias), name);
  const found = new Set(header.map((h) => byKey.get(headerKey(h))).filter((n): n is string => n !== undefined));
  const missing = options.required.filter((c) => !found.has(c));
  if (missing.length > 0) {
    const accepted = missing.map((c) => {
      const aliases = options.columns[c] ?? [];
      return aliases.length > 0 ? `« ${c} » (ou ${aliases.map((a) => `« ${a} »`).join(', ')})` : `« ${c} »`;
    });
    throw new StatementFormatError(
      `présentation inconnue : colonne(s) manquante(s) ${accepted.join(', ')} ; colonnes de la ligne d'en-tête : ${header.filter((h) => h !== '').map((h) => `« ${h} »`).join(', ') || 'aucune'}`,
    );
  }
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: options.delimiter,
      columns: (names: string[]) => {
        const seen = new Set<string>();
        return names.map((h) => {
          const name = byKey.get(headerKey(h));
          // An unknown column, or a second one naming a known column, is ignored.
          if (!name || seen.has(name)) return false;
          seen.add(name);
          return name;
        });
      },
      skip_empty_lines: true,
      trim: true,
      info: true,
      to: STATEMENT_ROWS_MAX + 1,
    }) as { record: Record<string, string>; info: { lines: number } }[];
  } catch (e) {
    throw new StatementFormatError(`ce n'est pas un fichier CSV lisible (${(e as Error).message})`);
  }
  if (records.length > STATEMENT_ROWS_MAX) throw new StatementFormatError(`plus de ${STATEMENT_ROWS_MAX} lignes`);
  return records.map((r) => ({ line: r.info.lines, row: r.record }));
}

/** The header's column names (trimmed, unquoted), for the missing-column check even when there is no data row. */
function firstLineColumns(csv: string, delimiter: string): string[] {
  const first = csv.split(/\r?\n/, 1)[0] ?? '';
  return first.split(delimiter).map((c) => c.trim().replace(/^"|"$/g, '').trim());
}

/** `value` as a signed integer of base units from a decimal string of major units (`decimals` digits), or null. */
export function baseUnitsOf(value: string, decimals: number): number | null {
  const clean = value.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  const m = /^(-?)(\d{1,15})(?:\.(\d{1,2}))?$/.exec(clean);
  if (!m || (m[3] && m[3].length > decimals)) return null;
  const units = Number(m[2]) * 10 ** decimals + Number((m[3] ?? '').padEnd(decimals, '0') || '0');
  return m[1] ? -units : units;
}
