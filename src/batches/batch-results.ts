/**
 * The results file of a batch: one CSV line per item (UTF-8 with BOM, comma separated, CRLF,
 * a header line), amounts in base units, each item's status and pay-out reference.
 */
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/client.ts';
import { batchItemViews } from './batch-view.ts';

/** The columns of the results file, in order. */
export const BATCH_RESULT_COLUMNS = [
  'rowNumber',
  'merchantReference',
  'beneficiaryAccount',
  'beneficiaryName',
  'paymentMethod',
  'amount',
  'feeAmount',
  'currency',
  'status',
  'reference',
  'failureReason',
] as const;

/** The results file of batch `batchId` (already scoped by the caller) in `currency`. */
export async function batchResultsCsv(db: Db, batchId: string, currency: string): Promise<Buffer> {
  const items = await batchItemViews(db, batchId);
  const text = stringify(
    items.map((i) => [i.rowNumber, i.merchantReference ?? '', i.beneficiaryAccount, i.beneficiaryName, i.paymentMethod, i.amount, i.feeAmount, currency, i.status, i.reference ?? '', i.failureReason ?? '']),
    { header: true, columns: [...BATCH_RESULT_COLUMNS], bom: true, record_delimiter: 'windows' },
  );
  return Buffer.from(text, 'utf8');
}
