/**
 * Checking the items of a batch pay-out before anything is written: each item gets the checks a
 * transfer gets (fields, currency, rail, limits, MSISDN) and the fee a transfer would take
 * (payments/fees.ts). Every failing item is reported with its row, in one 400 VALIDATION_ERROR
 * whose `data` maps `items[<index>].<field>` to a French message that starts with the row.
 */
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { ApiError, validationError } from '../domain/errors.ts';
import { normalizeMsisdn } from '../domain/msisdn.ts';
import type { Environment } from '../connectors/registry.ts';
import { computeFee, railTermsFor, resolveRailFor } from '../payments/index.ts';
import type { Services } from '../services.ts';

/** At most this many items per batch (the anchors' bound: MoneyHash bulk pay-outs). */
export const BATCH_ITEMS_MAX = 1000;

/** One item as sent (JSON or a CSV line), before its checks. */
export interface BatchItemInput {
  amount: number;
  currency: string;
  paymentMethod: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  merchantReference?: string | undefined;
}

/** A checked item: its row, the normalised MSISDN, the rail and the fee (base units). */
export interface CheckedItem {
  rowNumber: number;
  amount: number;
  feeAmount: number;
  currency: string;
  paymentMethod: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  merchantReference: string | null;
}

const itemSchema = z.object({
  amount: z.number({ error: 'doit être un nombre entier positif (unités de base)' }).int('doit être un nombre entier').positive('doit être positif').max(Number.MAX_SAFE_INTEGER),
  currency: z.string({ error: 'est obligatoire' }).regex(/^[A-Z]{3}$/, 'doit être un code de devise ISO 4217 (ex. XAF)'),
  paymentMethod: z.string({ error: 'est obligatoire' }).min(1, 'est obligatoire').max(50, 'doit contenir au plus 50 caractères'),
  beneficiaryAccount: z.string({ error: 'est obligatoire' }).min(1, 'est obligatoire').max(100, 'doit contenir au plus 100 caractères'),
  beneficiaryName: z.string({ error: 'est obligatoire' }).trim().min(1, 'est obligatoire').max(255, 'doit contenir au plus 255 caractères'),
  merchantReference: z.string().max(255, 'doit contenir au plus 255 caractères').optional().nullable(),
});

/**
 * Checks every item of a batch for the application `auth` (its currency and environment);
 * `rowOf(index)` gives the row an item is reported under (index + 1 for JSON, the file line for
 * CSV). Returns the checked items with their fees, or throws one 400 VALIDATION_ERROR naming
 * every failing item's row and field (and for an empty list or more than `BATCH_ITEMS_MAX`).
 */
export async function checkBatchItems(
  services: Pick<Services, 'db' | 'connectors'>,
  auth: { applicationId: string; currency: string; environment: Environment },
  items: readonly unknown[],
  rowOf: (index: number) => number,
): Promise<CheckedItem[]> {
  if (items.length === 0) throw validationError({ items: 'doit contenir au moins un élément' });
  if (items.length > BATCH_ITEMS_MAX) throw validationError({ items: `doit contenir au plus ${BATCH_ITEMS_MAX} éléments` });
  const errors: Record<string, string> = {};
  const checked: CheckedItem[] = [];
  // One rail lookup and one fee rule per (rail, amount): a batch of a thousand salaries costs a few queries.
  const priced = new Map<string, Promise<{ country: string; code: string; feeAmount: number }>>();
  for (const [index, raw] of items.entries()) {
    const row = rowOf(index);
    const fail = (field: string, message: string) => {
      errors[`items[${index}]${field ? `.${field}` : ''}`] = `ligne ${row} : ${field ? `${field} ` : ''}${message}`;
    };
    const parsed = itemSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) fail(issue.path.join('.'), issue.message);
      continue;
    }
    const item = parsed.data;
    const key = `${item.paymentMethod}\n${item.currency}\n${item.amount}`;
    let price = priced.get(key);
    if (!price) {
      price = (async () => {
        const { rail } = await resolveRailFor(services, {
          paymentMethod: item.paymentMethod,
          currency: item.currency,
          amount: item.amount,
          applicationCurrency: auth.currency,
          environment: auth.environment,
        });
        const terms = await railTermsFor(services.db, rail.code, 'PAY_OUT', auth.applicationId);
        return { country: rail.country, code: rail.code, feeAmount: computeFee(item.amount, terms.rule, 'PAY_OUT') };
      })();
      priced.set(key, price);
    }
    let rail: { country: string; code: string; feeAmount: number };
    try {
      rail = await price;
    } catch (error) {
      if (error instanceof ApiError) {
        fail(error.code === 'CURRENCY_MISMATCH' ? 'currency' : error.code.startsWith('AMOUNT_') ? 'amount' : 'paymentMethod', `: ${error.message}`);
        continue;
      }
      throw error;
    }
    const msisdn = normalizeMsisdn(item.beneficiaryAccount, rail.country);
    if (!msisdn) {
      fail('beneficiaryAccount', `n'est pas un numéro de téléphone valide (${rail.country})`);
      continue;
    }
    checked.push({
      rowNumber: row,
      amount: item.amount,
      feeAmount: rail.feeAmount,
      currency: item.currency,
      paymentMethod: rail.code,
      beneficiaryAccount: msisdn,
      beneficiaryName: item.beneficiaryName,
      merchantReference: item.merchantReference ?? null,
    });
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return checked;
}

/** The columns of a batch CSV file, in its header line (any order; `merchantReference` may be absent). */
export const BATCH_CSV_COLUMNS = ['amount', 'currency', 'paymentMethod', 'beneficiaryAccount', 'beneficiaryName', 'merchantReference'] as const;

/**
 * Reads a batch CSV file (UTF-8, comma or semicolon separated, a header line naming
 * `BATCH_CSV_COLUMNS`) into items; an item's row is its line in the file (the header is line 1).
 * `amount` is an integer of base units. Throws 400 VALIDATION_ERROR for a file that cannot be
 * read (`csv`) or whose header lacks a required column; the items' own checks are
 * `checkBatchItems`'s.
 */
export function parseBatchCsv(text: string): { items: unknown[]; rowOf: (index: number) => number } {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, delimiter, bom: true, trim: true, skip_empty_lines: true, relax_column_count: false, info: false });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw validationError({ csv: `fichier CSV illisible${line ? ` (ligne ${line})` : ''}` });
  }
  const header = firstLine.split(delimiter).map((c) => c.trim().replace(/^\uFEFF/, ''));
  const missing = BATCH_CSV_COLUMNS.filter((c) => c !== 'merchantReference' && !header.includes(c));
  if (missing.length > 0) throw validationError({ csv: `colonnes manquantes dans la ligne d'en-tête : ${missing.join(', ')}` });
  const items = records.map((r) => ({
    amount: /^\d+$/.test(r.amount ?? '') ? Number(r.amount) : r.amount,
    currency: r.currency,
    paymentMethod: r.paymentMethod,
    beneficiaryAccount: r.beneficiaryAccount,
    beneficiaryName: r.beneficiaryName,
    merchantReference: r.merchantReference ? r.merchantReference : undefined,
  }));
  // Empty lines are skipped, so a line number is counted from the parser's record positions.
  const lines = lineNumbers(text, records.length);
  return { items, rowOf: (index) => lines[index] ?? index + 2 };
}

/** The file line of each record after the header (non-empty lines, in order). Quoted line breaks are rare in pay-out files; a record containing one is counted on its first line. */
function lineNumbers(text: string, count: number): number[] {
  const result: number[] = [];
  const all = text.split(/\r?\n/);
  let inQuotes = false;
  for (let i = 0; i < all.length && result.length <= count; i++) {
    const line = all[i]!;
    const startsRecord = !inQuotes && line.trim() !== '';
    if (startsRecord) result.push(i + 1);
    for (const ch of line) if (ch === '"') inQuotes = !inQuotes;
  }
  return result.slice(1); // the header
}
