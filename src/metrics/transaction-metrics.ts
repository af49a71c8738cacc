/**
 * Transaction counters: `finishedTransactionsListener` counts every change to a final status
 * once it is written (inside the status change's database transaction when it has one: a
 * rollback after it is the one case where the count runs ahead of the database), and
 * `countCreated` every transaction created (idempotent replays excluded).
 */
import type { StatusChangeListener, TransactionRow } from '../payments/core.ts';
import type { Metrics } from './metrics.ts';

/** The rail label of a row: its rail code, or `CHECKOUT` for a checkout not yet paid. */
function railOf(row: Pick<TransactionRow, 'paymentMethod'>): string {
  return row.paymentMethod ?? 'CHECKOUT';
}

/** A status listener that counts final statuses in `kolo_transactions_finished_total`. */
export function finishedTransactionsListener(metrics: Metrics): StatusChangeListener {
  return {
    writesNothing: true,
    written: async (_db, changes) => {
      for (const { row } of changes) {
        metrics.transactionsFinished.inc({ rail: railOf(row), direction: row.direction, environment: row.environment, status: row.status });
      }
    },
  };
}

/** Counts a newly created transaction in `kolo_transactions_created_total`. */
export function countCreated(metrics: Metrics, row: Pick<TransactionRow, 'paymentMethod' | 'direction' | 'environment'>): void {
  metrics.transactionsCreated.inc({ rail: railOf(row), direction: row.direction, environment: row.environment });
}
