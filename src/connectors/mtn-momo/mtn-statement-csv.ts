/**
 * MTN MoMo's statement export (the partner portal's transaction history, CSV; MTN offers no
 * transaction list by API): one row per movement of the wallet, comma-separated, with the
 * header columns below [I: column names as partner-portal exports are reported; other names
 * accepted for each in `MTN_STATEMENT_ALIASES`; extra columns are ignored]. `Id` is MTN's `financialTransactionId` (the id on its statements and the payer's
 * SMS), `External Transaction Id` our reference (`externalId`), `Date` `YYYY-MM-DD HH:mm:ss` in
 * UTC, `Status` SUCCESSFUL or FAILED, `Type` PAYMENT (a request-to-pay, into the wallet), TRANSFER
 * (a disbursement, out), REVERSAL or ADJUSTMENT, `Amount` signed major units (negative: out of
 * the wallet), `Currency` ISO 4217. `Reversal Of` names the `Id` a reversal undoes, when given.
 */
import { baseUnitDigits } from '../../domain/currency.ts';
import { baseUnitsOf, parseStatementCsv, StatementFormatError, type OperatorRecord, type OperatorRecordKind, type StatementColumns } from '../statement.ts';

/** The columns Kolo reads, in the order the simulator writes them. */
export const MTN_STATEMENT_COLUMNS = ['Id', 'External Transaction Id', 'Date', 'Status', 'Type', 'From', 'To', 'Amount', 'Currency', 'Reversal Of'] as const;

/**
 * The columns read and the other header names each is accepted under (MTN publishes no format for
 * the export; the aliases cover the names seen in partner-portal exports and the API's own field
 * names). Compared without case, accents or separators (`headerKey`).
 */
export const MTN_STATEMENT_ALIASES: StatementColumns = {
  Id: ['Transaction Id', 'Financial Transaction Id', 'financialTransactionId'],
  'External Transaction Id': ['External Id', 'externalId', 'External Reference'],
  Date: ['Transaction Date', 'Date Time'],
  Status: ['Transaction Status'],
  Type: ['Transaction Type'],
  Amount: [],
  Currency: [],
  'Reversal Of': ['Original Transaction Id'],
};

const REQUIRED = ['Id', 'External Transaction Id', 'Date', 'Status', 'Type', 'Amount', 'Currency'] as const;
const KINDS: Record<string, OperatorRecordKind> = { PAYMENT: 'PAYMENT', TRANSFER: 'PAYMENT', REVERSAL: 'REVERSAL', ADJUSTMENT: 'ADJUSTMENT' };
const DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The records of an MTN statement export (pure). Throws `StatementFormatError` (French) listing
 * the missing columns of an unknown layout, or naming the first bad line (unknown type or status,
 * bad date, amount or currency, empty id): nothing is imported.
 */
export function importMtnStatement(csv: string): OperatorRecord[] {
  return parseStatementCsv(csv, { delimiter: ',', columns: MTN_STATEMENT_ALIASES, required: REQUIRED }).map(({ line, row }) => {
    const bad = (what: string) => new StatementFormatError(`ligne ${line} : ${what}`);
    const id = row.Id ?? '';
    if (!id) throw bad('Id vide');
    const kind = KINDS[row.Type ?? ''];
    if (!kind) throw bad(`Type inconnu « ${row.Type} » (attendu PAYMENT, TRANSFER, REVERSAL ou ADJUSTMENT)`);
    if (row.Status !== 'SUCCESSFUL' && row.Status !== 'FAILED') throw bad(`Status inconnu « ${row.Status} » (attendu SUCCESSFUL ou FAILED)`);
    const currency = row.Currency ?? '';
    if (!/^[A-Z]{3}$/.test(currency)) throw bad(`Currency invalide « ${currency} »`);
    const signed = baseUnitsOf(row.Amount ?? '', baseUnitDigits(currency));
    if (signed === null || signed === 0) throw bad(`Amount invalide « ${row.Amount} »`);
    const d = DATE.exec(row.Date ?? '');
    const at = d ? new Date(Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!)) : null;
    if (!at || Number.isNaN(at.getTime())) throw bad(`Date invalide « ${row.Date} » (attendu AAAA-MM-JJ HH:mm:ss, UTC)`);
    return {
      operatorTransactionId: id,
      reference: row['External Transaction Id'] || null,
      amount: Math.abs(signed),
      currency,
      direction: signed > 0 ? 'IN' : 'OUT',
      status: row.Status === 'SUCCESSFUL' ? 'SUCCEEDED' : 'FAILED',
      at,
      kind,
      reversalOf: row['Reversal Of'] || null,
    };
  });
}
