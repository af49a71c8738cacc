/**
 * The merchant API's list of transactions: the key's application and environment (the tenant
 * rule of the status reads, db/queries/transactions.ts `inCallerScope`), newest first, paged by
 * an opaque cursor. Each item is the status read's view (pay-in or pay-out) with `direction`,
 * `merchantReference`, `createdAt` and `updatedAt`.
 */
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import { listTransactionPage, type TransactionPosition } from '../db/queries/transaction-pages.ts';
import { UUID_PATTERN } from '../domain/ids.ts';
import type { TransactionStatus } from '../domain/transaction-state.ts';
import type { DashboardTransactionType } from '../dashboard/transactions.ts';
import type { Services } from '../services.ts';
import { payInStatusView, payOutStatusView, type TransactionRow } from './transaction-view.ts';

/** Page size bounds of the list. */
export const TRANSACTION_PAGE_MAX = 100;
export const TRANSACTION_PAGE_DEFAULT = 50;

/** The cursor's decoded form: creation time in microseconds since the epoch (at most 16 digits: year 2286), and id. */
const POSITION_TEXT = /^(\d{1,16}):([0-9a-f-]{36})$/;

/** The opaque cursor of a position: base64url of `<micros>:<id>`. */
export function encodeTransactionCursor(position: TransactionPosition): string {
  return Buffer.from(`${position.createdAtMicros}:${position.id}`).toString('base64url');
}

/** The position of a cursor made by `encodeTransactionCursor`, or null when `cursor` is not one. */
export function decodeTransactionCursor(cursor: string): TransactionPosition | null {
  const match = POSITION_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match || !UUID_PATTERN.test(match[2]!)) return null;
  const position = { createdAtMicros: match[1]!, id: match[2]! };
  // One spelling per cursor: base64url decoding skips characters outside its alphabet.
  return encodeTransactionCursor(position) === cursor ? position : null;
}

/** The filters and paging of the list, validated (http/schemas/merchant-reads.ts). */
export interface TransactionListQuery {
  status?: TransactionStatus | undefined;
  type?: DashboardTransactionType | undefined;
  /** Inclusive lower bound of `createdAt`. */
  from?: Date | undefined;
  /** Exclusive upper bound of `createdAt`. */
  to?: Date | undefined;
  /** 1..TRANSACTION_PAGE_MAX. */
  limit: number;
  cursor?: TransactionPosition | undefined;
}

/** An item: the status view of the row's direction (as `statusView` picks it) and the list's fields. */
function listItem(row: TransactionRow, publicBaseUrl: string) {
  const listed = { merchantReference: row.merchantReference, createdAt: row.createdAt, updatedAt: row.updatedAt };
  return row.direction === 'PAY_IN'
    ? { ...payInStatusView(row, publicBaseUrl), direction: 'PAY_IN' as const, ...listed }
    : { ...payOutStatusView(row), direction: 'PAY_OUT' as const, ...listed };
}

/**
 * One page of `auth`'s transactions (its application, its environment) matching `query`, newest
 * first, and the cursor of the next page (null when this one is the last). One statement.
 */
export async function listTransactions(services: Pick<Services, 'db' | 'config'>, auth: ApiKeyAuth, query: TransactionListQuery) {
  // One row more than the page tells whether there is a next page.
  const rows = await listTransactionPage(services.db, {
    applicationId: auth.applicationId,
    environment: auth.environment,
    status: query.status ?? null,
    type: query.type ?? null,
    from: query.from ?? null,
    to: query.to ?? null,
    after: query.cursor ?? null,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ row }) => listItem(row, services.config.publicBaseUrl)),
    nextCursor: rows.length > query.limit && last ? encodeTransactionCursor(last.position) : null,
  };
}
