/**
 * Pages of a caller's transactions (the merchant API's list), newest first, by keyset: a page
 * starts after a position (creation time in microseconds since the epoch, then id), so rows
 * inserted meanwhile never shift a page (a new row is newer than every position handed out). The
 * scope is the tenant rule of transactions.ts (`inCallerScope`): the key's application and
 * environment.
 */
import { mapRow } from '../batch.ts';
import type { Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';
import { inCallerScope } from './transactions.ts';

/** A position in the list: a row's creation time (microseconds since the epoch, decimal) and its id. */
export interface TransactionPosition {
  createdAtMicros: string;
  id: string;
}

/** What a page asks: the caller's scope, the filters (null: any), where it starts and how many rows. */
export interface TransactionPageQuery {
  applicationId: string;
  environment: string;
  /** One of TRANSACTION_STATUSES, or null. */
  status: string | null;
  /**
   * The type as the merchant reads it: CHECKOUT, CHARGE, FUND_COLLECTION (pay-ins; a pay-in stored
   * without a type is a CHARGE), PAYOUT, WITHDRAWAL, REFUND (pay-outs; one stored without a type
   * is a PAYOUT); or null.
   */
  type: string | null;
  /** Inclusive lower bound of the creation time, or null. */
  from: Date | null;
  /** Exclusive upper bound of the creation time, or null. */
  to: Date | null;
  /** Rows strictly older than this position (null: from the newest). */
  after: TransactionPosition | null;
  limit: number;
}

/** A row of a page, with its position. */
export interface TransactionPageRow {
  row: typeof transactions.$inferSelect;
  position: TransactionPosition;
}

// The (application_id, created_at, id) index, scanned backwards from the position, serves the
// scope and the order; the filters are checked on the rows it reads. A null parameter is "any".
const transactionPageSql = statement(
  'list_caller_transactions_v1',
  `select t.*, (extract(epoch from t.created_at) * 1000000)::bigint::text as position_micros
     from transactions t
    where ${inCallerScope('t', { applicationId: '$1::uuid', environment: '$2::text' })}
      and ($3::text is null or t.status = $3::text)
      and ($4::text is null
           or coalesce(t.type, case t.direction when 'PAY_IN' then 'CHARGE' else 'PAYOUT' end) = $4::text)
      and ($5::timestamptz is null or t.created_at >= $5::timestamptz)
      and ($6::timestamptz is null or t.created_at < $6::timestamptz)
      and ($7::bigint is null
           or (t.created_at, t.id) < ('epoch'::timestamptz + $7::bigint * interval '1 microsecond', $8::uuid))
    order by t.created_at desc, t.id desc
    limit $9`,
);

/**
 * At most `query.limit` transactions of the caller's scope matching the filters, newest first
 * (creation time, then id, both descending), after `query.after`. One statement; throws the
 * driver's error.
 */
export async function listTransactionPage(db: Db, query: TransactionPageQuery): Promise<TransactionPageRow[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, transactionPageSql, [
    query.applicationId,
    query.environment,
    query.status,
    query.type,
    query.from?.toISOString() ?? null,
    query.to?.toISOString() ?? null,
    query.after?.createdAtMicros ?? null,
    query.after?.id ?? null,
    query.limit,
  ]);
  return rows.map((raw) => {
    const row = mapRow(transactions, raw);
    return { row, position: { createdAtMicros: String(raw.position_micros), id: row.id } };
  });
}
