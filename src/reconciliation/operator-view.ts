/**
 * The operator's view of a rail for a period: by the operator's API where it offers a transaction
 * list (Wave's `GET /v1/transactions`; Daraja's Pull Transactions, C2B only, with the connectors'
 * shared token), else from its statement export
 * imported as a CSV file (MTN's partner portal, Orange's portal), one importer per documented
 * format. A file is accepted for any rail whose operator has an importer.
 */
import type { Config } from '../config.ts';
import { ApiError } from '../domain/errors.ts';
import type { FetchFn } from '../connectors/operator-http.ts';
import { StatementFormatError, type OperatorRecord, type RecordPeriod } from '../connectors/statement.ts';
import { importMtnStatement } from '../connectors/mtn-momo/mtn-statement-csv.ts';
import { importOrangeStatement } from '../connectors/orange-money/orange-statement-csv.ts';
import { fetchMpesaRecords } from '../connectors/mpesa/mpesa-statement.ts';
import type { SharedState } from '../connectors/shared-state.ts';
import { fetchWaveRecords } from '../connectors/wave/wave-statement.ts';

/** Where the records came from. */
export type RecordSource = 'API' | 'FILE';

/** An operator's statement importer: CSV text → records (throws `StatementFormatError`). */
type Importer = (csv: string) => OperatorRecord[];

/** Importers by rail-code prefix. */
const IMPORTERS: { prefix: string; importer: Importer }[] = [
  { prefix: 'MTN_MOMO_', importer: importMtnStatement },
  { prefix: 'ORANGE_MONEY_', importer: importOrangeStatement },
];

/** The importer of a rail's statement export, or null when its operator has none. */
function importerFor(railCode: string): Importer | null {
  return IMPORTERS.find((i) => railCode.startsWith(i.prefix))?.importer ?? null;
}

/** True when the operator of `railCode` lists its transactions by API (no statement file needed). */
export function hasOperatorApi(railCode: string): boolean {
  return railCode.startsWith('WAVE_') || railCode.startsWith('MPESA_');
}

/** The directions a source lists: Daraja's pull has C2B payments only, not B2C pay-outs. */
export type Covered = readonly ('PAY_IN' | 'PAY_OUT')[];
const BOTH: Covered = ['PAY_IN', 'PAY_OUT'];

/**
 * The records of `railCode` in `period`: from `file` (a statement export's CSV text) when given,
 * else from the operator's API. Records outside the period are dropped. Throws
 * `ApiError` STATEMENT_FILE_INVALID (the file is unreadable: nothing is used), STATEMENT_FILE_REQUIRED
 * (no API and no file), PROVIDER_NOT_FOUND (the rail is not configured) or
 * OPERATOR_RECORDS_UNAVAILABLE (the operator could not be read).
 */
export async function operatorRecordsFor(
  deps: { config: Config; fetch: FetchFn; sharedState: SharedState; now: () => Date },
  railCode: string,
  period: RecordPeriod,
  file?: string,
): Promise<{ source: RecordSource; records: OperatorRecord[]; covers: Covered }> {
  if (file !== undefined) {
    const importer = importerFor(railCode);
    if (!importer) throw new ApiError('STATEMENT_FILE_INVALID', { message: `Aucun format de relevé connu pour ${railCode}.` });
    let records: OperatorRecord[];
    try {
      records = importer(file);
    } catch (e) {
      if (e instanceof StatementFormatError) throw new ApiError('STATEMENT_FILE_INVALID', { message: `Relevé illisible, rien n'a été importé : ${e.message}` });
      throw e;
    }
    return { source: 'FILE', records: records.filter((r) => r.at >= period.from && r.at < period.to), covers: BOTH };
  }
  const timeoutMs = deps.config.connectorTimeoutMs;
  try {
    if (railCode.startsWith('WAVE_')) {
      const wave = deps.config.wave;
      const wallet = wave?.wallets.find((w) => `WAVE_${w.country}` === railCode);
      if (!wave || !wallet) throw new ApiError('PROVIDER_NOT_FOUND');
      return { source: 'API', records: await fetchWaveRecords({ baseUrl: wave.baseUrl, wallet, fetch: deps.fetch, timeoutMs }, period), covers: BOTH };
    }
    if (railCode === 'MPESA_KE') {
      const mpesa = deps.config.mpesa;
      if (!mpesa) throw new ApiError('PROVIDER_NOT_FOUND');
      const records = await fetchMpesaRecords({ config: mpesa, fetch: deps.fetch, timeoutMs, state: deps.sharedState, now: deps.now }, period);
      return { source: 'API', records, covers: ['PAY_IN'] };
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError('OPERATOR_RECORDS_UNAVAILABLE', { message: `Les opérations de l'opérateur n'ont pas pu être obtenues : ${(e as Error).message}` });
  }
  throw new ApiError('STATEMENT_FILE_REQUIRED');
}
