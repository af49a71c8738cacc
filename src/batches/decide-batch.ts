/**
 * Deciding a batch pay-out before any of it is sent: approval, rejection, cancellation, expiry.
 * Every change is a compare-and-set on the batch's status, so two decisions cannot both win.
 *
 * Approval needs a person other than the batch's creator (403 BATCH_SELF_APPROVAL; the dashboard
 * guard has already checked the APPROVE permission and a fresh second factor), or is automatic
 * (create-batch.ts). In the approving database transaction, one ledger entry (BATCH_RESERVE)
 * moves Σ amounts + Σ fees from the application's AVAILABLE balance to its BATCH_RESERVED
 * account; without enough, 400 INSUFFICIENT_BALANCE and the batch stays AWAITING_APPROVAL with
 * nothing reserved. The dispatcher (dispatch-batches.ts) then moves each item's share to that
 * item's pay-out.
 */
import { and, eq, inArray, lte } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { batches } from '../db/schema-batches.ts';
import { ApiError } from '../domain/errors.ts';
import { merchantAccount } from '../ledger/accounts.ts';
import { InsufficientFundsError, postEntry } from '../ledger/post-entry.ts';
import { ensureSandboxOpening } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { batchView, findBatch, type BatchRow, type BatchView } from './batch-view.ts';

/** Who decides: the dashboard person's account id, or null for an automatic decision. */
export interface BatchDecider {
  personId: string | null;
}

/** Moves the batch from AWAITING_APPROVAL to `status` inside `tx`; false when it was no longer awaiting approval. */
async function leaveAwaiting(tx: Db, batch: BatchRow, set: Partial<typeof batches.$inferInsert>): Promise<boolean> {
  const moved = await tx
    .update(batches)
    .set(set)
    .where(and(eq(batches.id, batch.id), eq(batches.status, 'AWAITING_APPROVAL')))
    .returning({ id: batches.id });
  return moved.length === 1;
}

function notAwaiting(batch: BatchRow): ApiError {
  return new ApiError('BATCH_NOT_AWAITING_APPROVAL', { message: `Ce lot n'attend pas d'approbation (statut ${batch.status}).` });
}

/**
 * Approves the batch `batchId` of `applicationId` and reserves it (see the file comment).
 * Throws 404 BATCH_NOT_FOUND, 403 BATCH_SELF_APPROVAL (its creator), 409
 * BATCH_NOT_AWAITING_APPROVAL (already decided, or expired), 400 INSUFFICIENT_BALANCE.
 */
export async function approveBatch(services: Services, applicationId: string, batchId: string, decider: BatchDecider): Promise<BatchView> {
  const batch = await findBatch(services.db, applicationId, batchId);
  if (decider.personId !== null && batch.createdBy === decider.personId) throw new ApiError('BATCH_SELF_APPROVAL');
  const now = services.clock.now();
  if (batch.status === 'AWAITING_APPROVAL' && batch.expiresAt <= now) {
    await expireBatches(services);
    throw notAwaiting({ ...batch, status: 'EXPIRED' });
  }
  const reserved = batch.totalAmount + batch.feeAmount;
  await transaction(services.db, async (tx) => {
    if (!(await leaveAwaiting(tx, batch, { status: 'APPROVED', approvedBy: decider.personId, approvedAt: now, updatedAt: now }))) throw notAwaiting(batch);
    await ensureSandboxOpening(tx, services, applicationId, batch.environment, batch.currency);
    try {
      await postEntry(tx, {
        kind: 'BATCH_RESERVE',
        transactionId: null,
        currency: batch.currency,
        description: `Lot ${batch.id}`,
        createdAt: now,
        lines: [
          { account: merchantAccount(applicationId, batch.environment, batch.currency, 'AVAILABLE'), amount: reserved },
          { account: merchantAccount(applicationId, batch.environment, batch.currency, 'BATCH_RESERVED'), amount: -reserved },
        ],
      });
    } catch (error) {
      if (error instanceof InsufficientFundsError) {
        throw new ApiError('INSUFFICIENT_BALANCE', {
          message: `Solde disponible insuffisant : ce lot demande ${reserved} ${batch.currency} (montants et frais compris).`,
        });
      }
      throw error;
    }
  });
  return batchView(services.db, await findBatch(services.db, applicationId, batchId));
}

/**
 * Rejects (an approver) or cancels (finance) a batch still awaiting approval; nothing was
 * reserved or sent. Throws 404 BATCH_NOT_FOUND, 409 BATCH_NOT_AWAITING_APPROVAL.
 */
export async function closeBatch(
  services: Services,
  applicationId: string,
  batchId: string,
  decider: BatchDecider,
  status: 'REJECTED' | 'CANCELLED',
): Promise<BatchView> {
  const batch = await findBatch(services.db, applicationId, batchId);
  const now = services.clock.now();
  const moved = await transaction(services.db, (tx) => leaveAwaiting(tx, batch, { status, closedBy: decider.personId, closedAt: now, updatedAt: now }));
  if (!moved) throw notAwaiting(batch);
  return batchView(services.db, await findBatch(services.db, applicationId, batchId));
}

/** Expires every batch awaiting approval past its `expiresAt` (at most `limit` per call); returns how many. */
export async function expireBatches(services: Pick<Services, 'db' | 'clock'>, limit = 500): Promise<number> {
  const now = services.clock.now();
  const due = await services.db
    .select({ id: batches.id })
    .from(batches)
    .where(and(eq(batches.status, 'AWAITING_APPROVAL'), lte(batches.expiresAt, now)))
    .limit(limit);
  if (due.length === 0) return 0;
  const expired = await services.db
    .update(batches)
    .set({ status: 'EXPIRED', closedAt: now, updatedAt: now })
    .where(and(inArray(batches.id, due.map((d) => d.id)), eq(batches.status, 'AWAITING_APPROVAL')))
    .returning({ id: batches.id });
  return expired.length;
}
