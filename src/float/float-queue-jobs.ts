/**
 * The pay-outs waiting for float (payments/float-queue.ts): sent first in first out when the
 * rail's float covers them, cancelled by their merchant, or failed once they waited longer than
 * `FLOAT_QUEUE_MAX_WAIT_MINUTES`. A cancelled or expired pay-out fails through the status writer
 * (`applyTransitionsIn`, event DECLINED): it was never sent, so the pay-out failure postings
 * release exactly its reservation, and its `payout.failed` webhook goes out.
 */
import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import { transaction } from '../db/client.ts';
import { applications, transactions } from '../db/schema.ts';
import { queuedPayOuts, unqueuePayOut } from '../db/queries/float.ts';
import { ApiError } from '../domain/errors.ts';
import type { FailureCode } from '../connectors/connector.ts';
import { resolveConnector } from '../connectors/registry.ts';
import { applyTransitionsIn, findRail, initiateTransaction, sendableFloat, type TransactionRow } from '../payments/index.ts';
import { isPayOutHeld } from '../rails/index.ts';
import type { Services } from '../services.ts';

/** At most this many queued pay-outs sent per rail and pass (the next pass sends more). */
const RELEASE_BATCH = 50;
/** At most this many expired pay-outs failed per pass. */
const EXPIRE_BATCH = 200;

/**
 * Sends `railCode`'s queued pay-outs, oldest first, while the sendable float covers the next one
 * and the rail is OPERATIONAL for pay-outs (nothing while it is DELAYED or CLOSED)
 * (strict FIFO: a large pay-out at the head holds back smaller ones behind it). With an unknown
 * float (no balance query, or no reading yet), one pay-out is sent per pass as a probe: the
 * operator then judges, and a refusal for want of float queues it again. Returns how many were
 * sent.
 */
export async function releaseQueuedPayOuts(services: Services, railCode: string): Promise<number> {
  const rail = await findRail(services.db, railCode);
  const connector = rail ? resolveConnector(services.connectors, railCode, 'LIVE') : null;
  if (!rail || !connector) return 0;
  // A rail DELAYED or CLOSED for pay-outs keeps its queue until it is OPERATIONAL again.
  if (await isPayOutHeld(services, railCode)) return 0;
  let sendable = await sendableFloat(services.db, railCode);
  let sent = 0;
  for (const row of await queuedPayOuts(services.db, railCode, RELEASE_BATCH)) {
    if (sendable !== null && row.amount > sendable) break;
    const now = services.clock.now();
    const taken = await unqueuePayOut(services.db, { id: row.id, now, backstopAt: new Date(now.getTime() + services.config.connectorTimeoutMs + 5000) });
    if (!taken) continue;
    await initiateTransaction(services, row, rail, connector, null, { isReleasedFromQueue: true });
    sent++;
    if (sendable === null) break;
    sendable -= row.amount;
  }
  if (sent > 0) services.log.info({ rail: railCode, sent }, 'float: queued pay-outs sent');
  return sent;
}

/**
 * Fails the queued pay-out `row` with `failureCode` in one database transaction: the row is
 * locked while still queued and never sent (so the float job cannot send it meanwhile), then
 * DECLINED through `applyTransitionsIn`. Returns the failed row, or null when it was no longer
 * queued (already sent, or ended).
 */
async function failQueued(services: Services, row: Pick<TransactionRow, 'id'>, failureCode: FailureCode, failureReason: string, cause: string): Promise<TransactionRow | null> {
  return transaction(services.db, async (tx) => {
    const locked = await tx
      .select({ id: transactions.id })
      .from(transactions)
      .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING'), isNotNull(transactions.floatQueuedAt), isNull(transactions.initiatedAt)))
      .for('update');
    if (locked.length === 0) return null;
    const [failed] = await applyTransitionsIn(tx, services, [{ transactionId: row.id, event: 'DECLINED', cause, failureCode, failureReason }]);
    return failed ?? null;
  });
}

/**
 * The merchant cancels its queued pay-out `reference` (scoped to its application and
 * environment): FAILED `PAYOUT_CANCELLED`, reservation released, webhook. Throws
 * TRANSACTION_NOT_FOUND (not theirs, or not a pay-out) and PAYOUT_NOT_CANCELLABLE (not queued:
 * already sent to the operator, or ended).
 */
export async function cancelQueuedPayOut(
  services: Services,
  scope: { applicationId: string; environment: string },
  reference: string,
): Promise<TransactionRow> {
  const [row] = await services.db
    .select()
    .from(transactions)
    .where(and(eq(transactions.reference, reference), eq(transactions.applicationId, scope.applicationId), eq(transactions.environment, scope.environment), eq(transactions.direction, 'PAY_OUT')));
  if (!row) throw new ApiError('TRANSACTION_NOT_FOUND');
  const failed = await failQueued(services, row, 'PAYOUT_CANCELLED', "Transfert annulé par le marchand pendant qu'il attendait le float de l'opérateur.", 'MERCHANT_CANCELLED');
  if (!failed) throw new ApiError('PAYOUT_NOT_CANCELLABLE');
  return failed;
}

/**
 * The dashboard's cancel: as `cancelQueuedPayOut`, for the queued pay-out `reference` of any of
 * merchant `merchantId`'s applications (either environment). Same errors.
 */
export async function cancelMerchantPayOut(services: Services, merchantId: string, reference: string): Promise<TransactionRow> {
  const [found] = await services.db
    .select({ applicationId: transactions.applicationId, environment: transactions.environment })
    .from(transactions)
    .innerJoin(applications, eq(applications.id, transactions.applicationId))
    .where(and(eq(transactions.reference, reference), eq(transactions.direction, 'PAY_OUT'), eq(applications.merchantId, merchantId)));
  if (!found) throw new ApiError('TRANSACTION_NOT_FOUND');
  return cancelQueuedPayOut(services, found, reference);
}

/**
 * Fails every pay-out queued longer than `FLOAT_QUEUE_MAX_WAIT_MINUTES` (at most EXPIRE_BATCH
 * per pass): FAILED `FLOAT_WAIT_EXPIRED`, reservation released, webhook. Returns how many.
 */
export async function expireQueuedPayOuts(services: Services): Promise<number> {
  const cutoff = new Date(services.clock.now().getTime() - services.config.floatQueueMaxWaitMinutes * 60_000);
  const due = await services.db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(isNotNull(transactions.floatQueuedAt), eq(transactions.status, 'PENDING'), lt(transactions.floatQueuedAt, cutoff)))
    .limit(EXPIRE_BATCH);
  let failed = 0;
  for (const row of due) {
    const done = await failQueued(services, row, 'FLOAT_WAIT_EXPIRED', "Le float de l'opérateur n'a pas permis d'envoyer ce transfert dans le délai maximal d'attente.", 'FLOAT_WAIT_EXPIRED');
    if (done) failed++;
  }
  return failed;
}
