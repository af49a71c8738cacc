/**
 * The batch dispatcher: sends the items of approved batches as ordinary pay-outs, and closes a
 * batch once every item has its outcome. One run (`dispatchBatches`, called by the jobs loop):
 * 1. expires batches awaiting approval past their time (decide-batch.ts);
 * 2. takes at most `BATCH_ITEMS_PER_RAIL_PER_RUN` WAITING items per rail, oldest approval first;
 *    each item in its own database transaction, which locks the item row (FOR UPDATE SKIP
 *    LOCKED: another dispatcher skips it), checks it is still WAITING, moves its share
 *    (amount + fee) out of the batch reservation (BATCH_RELEASE: BATCH_RESERVED → AVAILABLE) and
 *    into its own pay-out's reservation (insertFundedPayOut: AVAILABLE → RESERVED), and records
 *    the pay-out's id on the item. The three commit together, so the money is reserved exactly
 *    once at every commit and an item is sent at most once however many dispatchers run or
 *    restart. The operator is called after commit (initiateTransaction); a crash in between
 *    leaves a PENDING pay-out that the poller's backstop initiates, as for a transfer.
 *    An item whose rail can no longer take it (deactivated, limits changed) is FAILED with the
 *    reason, and only its share goes back to AVAILABLE.
 * 3. closes each PROCESSING batch whose items all have a final outcome: COMPLETED when all were
 *    paid, else PARTLY_FAILED, with its `batch.completed` / `batch.partly_failed` event and
 *    webhook written in the same database transaction (the webhook outbox).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { batchItems, batches } from '../db/schema-batches.ts';
import { transactions } from '../db/schema.ts';
import type { Environment } from '../connectors/registry.ts';
import { ApiError } from '../domain/errors.ts';
import { merchantAccount } from '../ledger/accounts.ts';
import { postEntry } from '../ledger/post-entry.ts';
import { initiateTransaction, insertFundedPayOut, resolveRailFor, type TransactionRow } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { insertEventWithDelivery } from '../webhooks/webhook-events.ts';
import { batchProgress, batchView, type BatchRow } from './batch-view.ts';
import { expireBatches } from './decide-batch.ts';

/** Candidates read per run, before the per-rail bound (a bound on the read itself). */
const CANDIDATES_MAX = 500;
/** Batches looked at for closing per run. */
const CLOSING_MAX = 100;

/** What one run did. */
export interface DispatchRun {
  expired: number;
  sent: number;
  failed: number;
  closed: number;
  /** Whether items were left for the next run (the per-rail bound was reached). */
  more: boolean;
}

/** One dispatcher run (see the file comment). Safe to run on any number of instances at once. */
export async function dispatchBatches(services: Services): Promise<DispatchRun> {
  const expired = await expireBatches(services);
  const candidates = await services.db
    .select({ id: batchItems.id, paymentMethod: batchItems.paymentMethod })
    .from(batchItems)
    .innerJoin(batches, eq(batches.id, batchItems.batchId))
    .where(and(eq(batchItems.status, 'WAITING'), inArray(batches.status, ['APPROVED', 'PROCESSING'])))
    .orderBy(asc(batches.approvedAt), asc(batchItems.batchId), asc(batchItems.rowNumber))
    .limit(CANDIDATES_MAX);
  const perRail = new Map<string, number>();
  const chosen: string[] = [];
  let more = false;
  for (const c of candidates) {
    const n = perRail.get(c.paymentMethod) ?? 0;
    if (n >= services.config.batchItemsPerRailPerRun) {
      more = true;
      continue;
    }
    perRail.set(c.paymentMethod, n + 1);
    chosen.push(c.id);
  }
  let sent = 0;
  let failed = 0;
  const initiations: Promise<void>[] = [];
  for (const itemId of chosen) {
    const outcome = await sendItem(services, itemId);
    if (outcome === null) continue;
    if (outcome.kind === 'FAILED') failed += 1;
    else {
      sent += 1;
      initiations.push(outcome.initiate());
    }
  }
  // The sends of one run go out together; each is bounded by the connector's timeout.
  await Promise.all(initiations);
  const closed = await closeFinishedBatches(services);
  return { expired, sent, failed, closed, more };
}

type SendOutcome = { kind: 'SENT'; initiate: () => Promise<void> } | { kind: 'FAILED' };

/** Sends one item (see the file comment); null when another dispatcher holds it or it was already handled. */
async function sendItem(services: Services, itemId: string): Promise<SendOutcome | null> {
  const [peek] = await services.db
    .select({ item: batchItems, batch: batches })
    .from(batchItems)
    .innerJoin(batches, eq(batches.id, batchItems.batchId))
    .where(eq(batchItems.id, itemId));
  if (!peek || peek.item.status !== 'WAITING') return null;
  const { batch } = peek;
  // The rail is resolved before the write (it reads only): an item its rail no longer takes fails alone.
  let resolved: Awaited<ReturnType<typeof resolveRailFor>> | null = null;
  let failure: string | null = null;
  try {
    resolved = await resolveRailFor(services, {
      paymentMethod: peek.item.paymentMethod,
      currency: batch.currency,
      amount: peek.item.amount,
      applicationCurrency: batch.currency,
      environment: batch.environment as Environment,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    failure = error.message;
  }
  const now = services.clock.now();
  const result = await transaction(services.db, async (tx) => {
    const [item] = await tx
      .select()
      .from(batchItems)
      .where(and(eq(batchItems.id, itemId), eq(batchItems.status, 'WAITING')))
      .for('update', { skipLocked: true });
    if (!item) return null;
    const share = item.amount + item.feeAmount;
    await postEntry(tx, {
      kind: 'BATCH_RELEASE',
      transactionId: null,
      currency: batch.currency,
      description: `Lot ${batch.id}, ligne ${item.rowNumber}`,
      createdAt: now,
      lines: [
        { account: merchantAccount(batch.applicationId, batch.environment, batch.currency, 'BATCH_RESERVED'), amount: share },
        { account: merchantAccount(batch.applicationId, batch.environment, batch.currency, 'AVAILABLE'), amount: -share },
      ],
    });
    await tx.update(batches).set({ status: 'PROCESSING', updatedAt: now }).where(and(eq(batches.id, batch.id), eq(batches.status, 'APPROVED')));
    if (!resolved) {
      await tx.update(batchItems).set({ status: 'FAILED', failureReason: failure }).where(eq(batchItems.id, item.id));
      return { row: null };
    }
    const row = await insertFundedPayOut(tx, services, {
      applicationId: batch.applicationId,
      environment: batch.environment,
      type: null,
      amount: item.amount,
      feeAmount: item.feeAmount,
      currency: batch.currency,
      railCode: resolved.rail.code,
      beneficiaryAccount: item.beneficiaryAccount,
      beneficiaryName: item.beneficiaryName,
      beneficiaryEmail: null,
      merchantReference: item.merchantReference,
      description: `Lot ${batch.id}, ligne ${item.rowNumber}`,
    });
    await tx.update(batchItems).set({ status: 'SENT', transactionId: row.id }).where(eq(batchItems.id, item.id));
    return { row };
  });
  if (result === null) return null;
  if (result.row === null || !resolved) return { kind: 'FAILED' };
  const row: TransactionRow = result.row;
  const { rail, connector } = resolved;
  return {
    kind: 'SENT',
    initiate: async () => {
      await initiateTransaction(services, row, rail, connector);
    },
  };
}

/** Closes the PROCESSING batches whose items all have a final outcome; returns how many. */
async function closeFinishedBatches(services: Services): Promise<number> {
  // A batch is open while an item waits or its pay-out is PENDING (a held reservation included).
  const open = sql`exists (select 1 from batch_items bi left join transactions t on t.id = bi.transaction_id
    where bi.batch_id = ${batches.id} and (bi.status = 'WAITING' or t.status = 'PENDING' or t.is_reservation_held))`;
  const finished = await services.db
    .select()
    .from(batches)
    .where(and(eq(batches.status, 'PROCESSING'), sql`not ${open}`))
    .limit(CLOSING_MAX);
  let closed = 0;
  for (const batch of finished) if (await closeBatchRun(services, batch)) closed += 1;
  return closed;
}

async function closeBatchRun(services: Services, batch: BatchRow): Promise<boolean> {
  const progress = await batchProgress(services.db, batch.id);
  const status = progress.failed === 0 ? 'COMPLETED' : 'PARTLY_FAILED';
  const now = services.clock.now();
  return transaction(services.db, async (tx: Db) => {
    const moved = await tx
      .update(batches)
      .set({ status, closedAt: now, updatedAt: now })
      .where(and(eq(batches.id, batch.id), eq(batches.status, 'PROCESSING')))
      .returning();
    if (moved.length === 0) return false;
    await insertEventWithDelivery(tx, services, {
      applicationId: batch.applicationId,
      environment: batch.environment as Environment,
      event: status === 'COMPLETED' ? 'batch.completed' : 'batch.partly_failed',
      data: await batchView(tx, moved[0]!),
    });
    return true;
  });
}

/** The pay-out transactions of a batch's items (for tests and the results file): item row → transaction. */
export async function batchTransactions(db: Db, batchId: string) {
  return db
    .select({ rowNumber: batchItems.rowNumber, transaction: transactions })
    .from(batchItems)
    .innerJoin(transactions, eq(transactions.id, batchItems.transactionId))
    .where(eq(batchItems.batchId, batchId))
    .orderBy(asc(batchItems.rowNumber));
}
