/**
 * Retrying the failed items of a finished batch: a NEW batch holding only those items (each
 * with its original row and `retryOf` naming the item it retries), which waits for approval
 * like any batch (or is approved automatically under the application's amount). The paid items
 * are never sent again. Retrying the same batch again, while that new batch is still alive
 * (awaiting approval, approved, processing or finished), returns it instead of creating another.
 */
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { batchItems, batches } from '../db/schema-batches.ts';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { findBatch, batchView, type BatchView } from './batch-view.ts';
import { createBatch, type BatchCreator } from './create-batch.ts';

/**
 * The new batch of the failed items of batch `batchId` (see the file comment). Throws 404
 * BATCH_NOT_FOUND, 409 BATCH_NOT_FINISHED (not COMPLETED or PARTLY_FAILED, or nothing failed).
 */
export async function retryFailedItems(services: Services, creator: BatchCreator, batchId: string): Promise<BatchView> {
  const batch = await findBatch(services.db, creator.applicationId, batchId);
  if (batch.status !== 'PARTLY_FAILED') {
    throw new ApiError('BATCH_NOT_FINISHED', { message: `Seul un lot terminé avec des échecs (PARTLY_FAILED) peut être relancé ; celui-ci est ${batch.status}.` });
  }
  // An item failed when it could not be sent, or its pay-out FAILED without a held reservation.
  const failed = await services.db
    .select({ item: batchItems })
    .from(batchItems)
    .leftJoin(transactions, eq(transactions.id, batchItems.transactionId))
    .where(
      and(
        eq(batchItems.batchId, batch.id),
        sql`(${batchItems.status} = 'FAILED' or (${transactions.status} in ('FAILED', 'CANCELLED') and not ${transactions.isReservationHeld}))`,
      ),
    )
    .orderBy(batchItems.rowNumber);
  if (failed.length === 0) throw new ApiError('BATCH_NOT_FINISHED', { message: "Ce lot n'a aucun élément en échec à relancer." });
  const [alive] = await services.db
    .select({ batch: batches })
    .from(batchItems)
    .innerJoin(batches, eq(batches.id, batchItems.batchId))
    .where(and(inArray(batchItems.retryOf, failed.map((f) => f.item.id)), notInArray(batches.status, ['REJECTED', 'CANCELLED', 'EXPIRED'])))
    .limit(1);
  if (alive) return batchView(services.db, alive.batch);
  const items = failed.map(({ item }) => ({
    amount: item.amount,
    currency: batch.currency,
    paymentMethod: item.paymentMethod,
    beneficiaryAccount: item.beneficiaryAccount,
    beneficiaryName: item.beneficiaryName,
    merchantReference: item.merchantReference ?? undefined,
  }));
  const result = await createBatch(
    services,
    { ...creator, environment: batch.environment as BatchCreator['environment'] },
    { items, dryRun: false, retryOf: (index) => failed[index]!.item.id },
    (index) => failed[index]!.item.rowNumber,
  );
  if (result.dryRun) throw new Error('a retry is never a dry run');
  return result.batch;
}
