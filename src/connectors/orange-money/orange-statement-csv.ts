/**
 * Orange Money's statement export (the merchant portal's transaction history, CSV; Orange offers
 * no transaction list by API), as the Cameroon portal writes it: semicolon-separated, French
 * column names [I: names and values as exports are reported; other names accepted for each in
 * `ORANGE_STATEMENT_ALIASES`; extra columns are ignored].
 * `Date` `JJ/MM/AAAA` and `Heure` `HH:mm:ss` in Cameroon time (UTC+1, no daylight saving),
 * `Référence` Orange's `txnid`, `Type` « Paiement marchand » (a payment, into the wallet),
 * « Cash in » (a cash-in, out of it), « Annulation » (a reversal) or « Ajustement » (a balance
 * adjustment), `Statut` « Succès » or « Échec », `Montant` signed francs CFA (negative: out of
 * the wallet; spaces may group thousands), `Devise`, `Référence commande` our reference
 * (`orderId`).
 */
import { baseUnitsOf, parseStatementCsv, StatementFormatError, type OperatorRecord, type OperatorRecordKind, type StatementColumns } from '../statement.ts';

/** The columns Kolo reads, in the order the simulator writes them. */
export const ORANGE_STATEMENT_COLUMNS = ['Date', 'Heure', 'Référence', 'Type', 'Statut', 'Numéro', 'Montant', 'Devise', 'Référence commande'] as const;

/**
 * The columns read and the other header names each is accepted under (Orange publishes no format
 * for the export; the aliases cover English exports and the API's own field names). Compared
 * without case, accents or separators (`headerKey`).
 */
export const ORANGE_STATEMENT_ALIASES: StatementColumns = {
  Date: [],
  Heure: ['Time'],
  Référence: ['Txnid', 'ID transaction', 'Transaction ID'],
  Type: ['Type de transaction', 'Transaction type'],
  Statut: ['Status'],
  Montant: ['Amount'],
  Devise: ['Currency'],
  'Référence commande': ['Order Id', 'orderId', 'Référence marchand'],
};

const REQUIRED = ['Date', 'Heure', 'Référence', 'Type', 'Statut', 'Montant', 'Devise', 'Référence commande'] as const;
const KINDS: Record<string, OperatorRecordKind> = { 'Paiement marchand': 'PAYMENT', 'Cash in': 'PAYMENT', Annulation: 'REVERSAL', Ajustement: 'ADJUSTMENT' };
const STATUSES: Record<string, OperatorRecord['status']> = { 'Succès': 'SUCCEEDED', 'Échec': 'FAILED' };
const DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})$/;
/** Cameroon time is UTC+1 all year. */
const CAMEROON_OFFSET_MS = 3_600_000;

/** `at` as the export writes it: date and time in Cameroon time. */
export function orangeStatementTime(at: Date): { date: string; time: string } {
  const local = new Date(at.getTime() + CAMEROON_OFFSET_MS).toISOString();
  return { date: `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)}`, time: local.slice(11, 19) };
}

/**
 * The records of an Orange statement export (pure). Throws `StatementFormatError` (French)
 * listing the missing columns of an unknown layout, or naming the first bad line: nothing is
 * imported then.
 */
export function importOrangeStatement(csv: string): OperatorRecord[] {
  return parseStatementCsv(csv, { delimiter: ';', columns: ORANGE_STATEMENT_ALIASES, required: REQUIRED }).map(({ line, row }) => {
    const bad = (what: string) => new StatementFormatError(`ligne ${line} : ${what}`);
    const id = row['Référence'] ?? '';
    if (!id) throw bad('Référence vide');
    const kind = KINDS[row.Type ?? ''];
    if (!kind) throw bad(`Type inconnu « ${row.Type} » (attendu Paiement marchand, Cash in, Annulation ou Ajustement)`);
    const status = STATUSES[row.Statut ?? ''];
    if (!status) throw bad(`Statut inconnu « ${row.Statut} » (attendu Succès ou Échec)`);
    const currency = row.Devise ?? '';
    if (currency !== 'XAF' && currency !== 'XOF') throw bad(`Devise invalide « ${currency} » (attendu XAF ou XOF)`);
    const signed = baseUnitsOf(row.Montant ?? '', 0);
    if (signed === null || signed === 0) throw bad(`Montant invalide « ${row.Montant} »`);
    const d = DATE.exec(row.Date ?? '');
    const t = TIME.exec(row.Heure ?? '');
    const at = d && t ? new Date(Date.UTC(+d[3]!, +d[2]! - 1, +d[1]!, +t[1]!, +t[2]!, +t[3]!) - CAMEROON_OFFSET_MS) : null;
    if (!at || Number.isNaN(at.getTime())) throw bad(`Date/Heure invalides « ${row.Date} ${row.Heure} » (attendu JJ/MM/AAAA et HH:mm:ss)`);
    return {
      operatorTransactionId: id,
      reference: row['Référence commande'] || null,
      amount: Math.abs(signed),
      currency,
      direction: signed > 0 ? 'IN' : 'OUT',
      status,
      at,
      kind,
      reversalOf: null,
    };
  });
}
