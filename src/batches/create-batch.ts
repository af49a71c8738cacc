/**
 * Creating a batch pay-out (`POST /api/v1/pay-out/batches`, and the dashboard's
 * `POST /api/v1/merchants/apps/{appId}/batches`): up to 1,000 items checked as transfers are
 * (batch-items.ts), with their totals. A dry run only checks and prices. Otherwise the batch and
 * its items are written AWAITING_APPROVAL in one database transaction; nothing is reserved and no
 * operator receives anything until it is approved (decide-batch.ts). Under an `Idempotency-Key`,
 * the same request again returns the same batch; the key with another request is 409
 * IDEMPOTENCY_KEY_REUSED. When the application approves batches automatically below an amount
 * (`batchAutoApproveBelow`) and amount + fees is below it, the batch is approved at once.
 */
import { and, eq } from 'drizzle-orm';
import { transaction } from '../db/client.ts';
import { batchItems, batches } from '../db/schema-batches.ts';
import { applications } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Environment } from '../connectors/registry.ts';
import { hashRequest } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { checkBatchItems } from './batch-items.ts';
import { batchView, type BatchView } from './batch-view.ts';
import { approveBatch } from './decide-batch.ts';

/** Who creates a batch: the application (an API key's, or one the dashboard person may use) and the person, if any. */
export interface BatchCreator {
  applicationId: string;
  currency: string;
  environment: Environment;
  /** The dashboard person's account id; null for an API key. */
  personId: string | null;
}

/** The totals of a checked batch (base units of `currency`). */
export interface BatchTotals {
  itemCount: number;
  totalAmount: number;
  feeAmount: number;
  /** totalAmount + feeAmount: what approval will reserve. */
  reservedAmount: number;
  currency: string;
}

/** What `createBatch` answers: the totals of a dry run, or the batch. */
export type CreateBatchResult = { dryRun: true; totals: BatchTotals } | { dryRun: false; batch: BatchView };

/**
 * Checks the items (`rowOf(index)`: the row each is reported under) and, unless `dryRun`, writes
 * the batch. Throws 400 VALIDATION_ERROR with every failing row, 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function createBatch(
  services: Services,
  creator: BatchCreator,
  input: { items: readonly unknown[]; dryRun: boolean; retryOf?: (index: number) => string },
  rowOf: (index: number) => number,
  idempotencyKey?: string,
): Promise<CreateBatchResult> {
  const requestHash = idempotencyKey ? hashRequest('batch', { items: input.items, environment: creator.environment }) : null;
  if (idempotencyKey && !input.dryRun) {
    const existing = await findByKey(services, creator.applicationId, idempotencyKey);
    if (existing) {
      if (existing.requestHash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      return { dryRun: false, batch: await batchView(services.db, existing) };
    }
  }
  const items = await checkBatchItems(services, creator, input.items, rowOf);
  const currencies = new Set(items.map((i) => i.currency));
  // checkBatchItems holds every item to the application's currency.
  if (currencies.size !== 1) throw new Error('a checked batch has one currency');
  const totals: BatchTotals = {
    itemCount: items.length,
    totalAmount: items.reduce((s, i) => s + i.amount, 0),
    feeAmount: items.reduce((s, i) => s + i.feeAmount, 0),
    reservedAmount: 0,
    currency: items[0]!.currency,
  };
  totals.reservedAmount = totals.totalAmount + totals.feeAmount;
  if (input.dryRun) return { dryRun: true, totals };

  const now = services.clock.now();
  const batchId = services.ids.uuid();
  const inserted = await transaction(services.db, async (tx) => {
    const [row] = await tx
      .insert(batches)
      .values({
        id: batchId,
        applicationId: creator.applicationId,
        environment: creator.environment,
        currency: totals.currency,
        status: 'AWAITING_APPROVAL',
        itemCount: totals.itemCount,
        totalAmount: totals.totalAmount,
        feeAmount: totals.feeAmount,
        createdBy: creator.personId,
        idempotencyKey: idempotencyKey ?? null,
        requestHash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + services.config.batchExpiryHours * 3_600_000),
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return null;
    // Bounded: at most BATCH_ITEMS_MAX rows, in chunks so no statement carries too many parameters.
    for (let i = 0; i < items.length; i += 200) {
      await tx.insert(batchItems).values(
        items.slice(i, i + 200).map((item, j) => ({
          id: services.ids.uuid(),
          batchId,
          rowNumber: item.rowNumber,
          amount: item.amount,
          feeAmount: item.feeAmount,
          paymentMethod: item.paymentMethod,
          beneficiaryAccount: item.beneficiaryAccount,
          beneficiaryName: item.beneficiaryName,
          merchantReference: item.merchantReference,
          status: 'WAITING',
          retryOf: input.retryOf?.(i + j) ?? null,
        })),
      );
    }
    return row;
  });
  if (!inserted) {
    // A concurrent request with the same key created it first.
    const existing = idempotencyKey ? await findByKey(services, creator.applicationId, idempotencyKey) : null;
    if (!existing) throw new ApiError('INTERNAL_SERVER_ERROR');
    if (existing.requestHash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    return { dryRun: false, batch: await batchView(services.db, existing) };
  }
  const [app] = await services.db.select({ below: applications.batchAutoApproveBelow }).from(applications).where(eq(applications.id, creator.applicationId));
  if (app && app.below > 0 && totals.reservedAmount < app.below) {
    try {
      return { dryRun: false, batch: await approveBatch(services, creator.applicationId, batchId, { personId: null }) };
    } catch (error) {
      // Not enough balance: the batch stays AWAITING_APPROVAL, for a person to approve once funded.
      if (!(error instanceof ApiError && error.code === 'INSUFFICIENT_BALANCE')) throw error;
    }
  }
  return { dryRun: false, batch: await batchView(services.db, inserted) };
}

async function findByKey(services: Pick<Services, 'db'>, applicationId: string, key: string) {
  const [row] = await services.db.select().from(batches).where(and(eq(batches.applicationId, applicationId), eq(batches.idempotencyKey, key)));
  return row ?? null;
}
