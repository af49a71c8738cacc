/**
 * Merchant statements: every movement of a merchant's balances over a range of days, with
 * opening and closing balances per environment, currency and balance, from the ledger's journal;
 * as JSON or CSV at once for a short range, prepared in the background for any range.
 */
export { buildStatement, statementDays, STATEMENT_BALANCES, type Statement, type StatementMovement, type StatementTotal } from './build-statement.ts';
export { statementCsv, STATEMENT_CSV_COLUMNS } from './statement-csv.ts';
export { listStatements, prepareDueStatements, requestStatement, statementFile, statementNow, type StatementRequestView } from './statement-requests.ts';
