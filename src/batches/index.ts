/**
 * Batch pay-outs: up to 1,000 pay-outs created as one batch (JSON or CSV), checked and priced
 * at once, approved by a person other than their creator (or automatically under the
 * application's amount), reserved in one ledger entry at approval, then sent one by one as
 * ordinary pay-outs by the dispatcher. See docs/batches.md.
 */
export { BATCH_CSV_COLUMNS, BATCH_ITEMS_MAX, parseBatchCsv, type BatchItemInput } from './batch-items.ts';
export { createBatch, type BatchCreator, type BatchTotals, type CreateBatchResult } from './create-batch.ts';
export { approveBatch, closeBatch, expireBatches, type BatchDecider } from './decide-batch.ts';
export { dispatchBatches, type DispatchRun } from './dispatch-batches.ts';
export { batchItemViews, batchView, findBatch, listBatches, type BatchItemView, type BatchListItem, type BatchProgress, type BatchView } from './batch-view.ts';
export { retryFailedItems } from './retry-batch.ts';
export { BATCH_RESULT_COLUMNS, batchResultsCsv } from './batch-results.ts';
