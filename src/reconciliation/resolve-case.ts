/**
 * Resolving a reconciliation case: staff choose an action that does what it says, inside one
 * database transaction with the case's compare-and-set (OPEN → RESOLVED, so two resolutions
 * cannot both post) and the audit entry (actor, action, note):
 * - APPLY_OPERATOR_SUCCESS: the operator's success of a payment Kolo counts as not moved. A
 *   pay-in closed as failed: the late-success path (postings from the rail's float, the
 *   application's late-success policy, `payment.late_success` event and webhook). A pay-out: its
 *   reservation settled as paid (`applyPayOutSuccess`: still PENDING through the state machine,
 *   else the late-success path of pay-outs), `payout.success` or `payout.late_success`;
 * - RECORD_REVERSAL: the operator reversed a payment Kolo counts as done: a RECON_REVERSAL entry
 *   takes it back from the merchant's available balance (a pay-in: net to the merchant and fee
 *   back out of fee revenue) or gives it back (a pay-out), against the rail's float;
 * - WRITE_OFF: the float is brought to what the operator's records say, the difference going to
 *   the platform LOSS account (RECON_WRITE_OFF; a gain is a credit of LOSS);
 * - ACCEPT: nothing is posted (Kolo's books are right, or the merchant was told since).
 */
import { and, eq, sql } from 'drizzle-orm';
import { transaction, type Db } from '../db/client.ts';
import { reconciliationCases } from '../db/schema-reconciliation.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { recordAudit, type AuditActor } from '../dashboard/audit.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import { merchantAccount, operatorFloatAccount, platformAccount } from '../ledger/accounts.ts';
import { InsufficientFundsError, postEntry, type PostingLine } from '../ledger/post-entry.ts';
import { recordLateSuccess, settleHeldPayOut } from '../late-success/index.ts';
import { applyTransitionsIn, creditRefund, postPayOutPaidAfterRelease, type TransactionRow } from '../payments/index.ts';
import type { Environment } from '../connectors/registry.ts';
import { insertEventWithDelivery, transactionEventData } from '../webhooks/webhook-events.ts';
import type { Services } from '../services.ts';
import type { CaseEvidence } from './match-records.ts';

/** The actions that resolve a case. */
export const RESOLUTION_ACTIONS = ['APPLY_OPERATOR_SUCCESS', 'RECORD_REVERSAL', 'ACCEPT', 'WRITE_OFF'] as const;

/** One resolution action. */
export type ResolutionAction = (typeof RESOLUTION_ACTIONS)[number];

/** A case row. */
export type CaseRow = typeof reconciliationCases.$inferSelect;

/** The operator's signed movement of a record, float side: + into Kolo's wallet. */
const signedOf = (o: NonNullable<CaseEvidence['operator']>) => (o.direction === 'IN' ? o.amount : -o.amount);

/**
 * Resolves case `caseId` with `action` and `note` (1–500 characters), as `actor`. Returns the
 * resolved case. Throws ApiError RECONCILIATION_CASE_NOT_FOUND, RECONCILIATION_CASE_CLOSED (already
 * resolved), RECONCILIATION_ACTION_NOT_APPLICABLE (the action does not fit the case: see the file
 * comment), INSUFFICIENT_BALANCE (a reversal the merchant's available balance cannot cover).
 */
export async function resolveCase(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'ids' | 'statusListeners' | 'requestId'>,
  actor: AuditActor,
  input: { caseId: string; action: ResolutionAction; note: string },
): Promise<CaseRow> {
  if (!isUuid(input.caseId)) throw new ApiError('RECONCILIATION_CASE_NOT_FOUND');
  try {
    return await transaction(services.db, async (tx) => {
      const now = services.clock.now();
      const [resolved] = await tx
        .update(reconciliationCases)
        .set({ status: 'RESOLVED', resolution: input.action, resolutionNote: input.note, resolvedBy: actor.actorId, resolvedAt: now })
        .where(and(eq(reconciliationCases.id, input.caseId), eq(reconciliationCases.status, 'OPEN')))
        .returning();
      if (!resolved) {
        const [exists] = await tx.select({ id: reconciliationCases.id }).from(reconciliationCases).where(eq(reconciliationCases.id, input.caseId));
        throw new ApiError(exists ? 'RECONCILIATION_CASE_CLOSED' : 'RECONCILIATION_CASE_NOT_FOUND');
      }
      if (resolved.transactionId) {
        // Out of review once its last open case is resolved (before the action: its webhook then says so).
        await tx
          .update(transactions)
          .set({
            isInReconciliation: sql`exists (select 1 from ${reconciliationCases} c where c.transaction_id = ${transactions.id} and c.status = 'OPEN')`,
          })
          .where(eq(transactions.id, resolved.transactionId));
      }
      await applyAction(tx, services, resolved, input.action);
      await recordAudit(
        { ...services, db: tx },
        actor,
        {
          action: `RECONCILIATION_${input.action}`,
          targetType: 'RECONCILIATION_CASE',
          targetId: resolved.id,
          before: { status: 'OPEN', kind: resolved.kind, amount: resolved.amount },
          after: { status: 'RESOLVED', resolution: input.action, note: input.note },
        },
      );
      return resolved;
    });
  } catch (e) {
    if (e instanceof InsufficientFundsError) throw new ApiError('INSUFFICIENT_BALANCE');
    throw e;
  }
}

/** Posts (or records) what `action` says for `row`, inside `tx`. */
async function applyAction(tx: Db, services: Parameters<typeof resolveCase>[0], row: CaseRow, action: ResolutionAction): Promise<void> {
  const evidence = row.evidence as CaseEvidence;
  const notApplicable = () => new ApiError('RECONCILIATION_ACTION_NOT_APPLICABLE');
  const now = services.clock.now();
  const float = operatorFloatAccount(row.railCode, row.environment, row.currency);
  if (action === 'ACCEPT') return;

  if (action === 'WRITE_OFF') {
    const operator = evidence.operator ? signedOf(evidence.operator) : 0;
    const ledger = evidence.kolo && (!evidence.operator || evidence.operator.kind === 'PAYMENT') ? evidence.kolo.floatNet : 0;
    const difference = operator - ledger;
    if (row.kind === 'MERCHANT_NOT_TOLD' || difference === 0) throw notApplicable();
    await postEntry(tx, {
      kind: 'RECON_WRITE_OFF',
      transactionId: null,
      currency: row.currency,
      description: `Rapprochement ${row.kind} : écart passé en perte (${row.id})`,
      createdAt: now,
      lines: [
        { account: float, amount: difference },
        { account: platformAccount('LOSS', row.environment, row.currency), amount: -difference },
      ],
    });
    return;
  }

  if (!row.transactionId) throw notApplicable();
  const [txRow] = await tx.select().from(transactions).where(eq(transactions.id, row.transactionId)).for('update');
  if (!txRow) throw notApplicable();

  if (action === 'RECORD_REVERSAL') {
    if (row.kind !== 'STATUS_MISMATCH' || evidence.operator?.kind !== 'REVERSAL' || evidence.kolo === null || evidence.kolo.floatNet === 0) throw notApplicable();
    const available = merchantAccount(txRow.applicationId, txRow.environment, txRow.currency, 'AVAILABLE');
    const fee = txRow.feeAmount ?? 0;
    const lines: PostingLine[] =
      txRow.direction === 'PAY_IN'
        ? [
            { account: float, amount: -txRow.amount },
            { account: available, amount: txRow.amount - fee },
            ...(fee > 0 ? [{ account: platformAccount('FEE_REVENUE', txRow.environment, txRow.currency), amount: fee }] : []),
          ]
        : [
            { account: float, amount: txRow.amount },
            { account: available, amount: -txRow.amount },
          ];
    await postEntry(tx, { kind: 'RECON_REVERSAL', transactionId: txRow.id, currency: txRow.currency, description: "Annulation par l'opérateur constatée au rapprochement", createdAt: now, lines });
    await tx.insert(transactionEvents).values({
      transactionId: txRow.id,
      fromStatus: txRow.status,
      toStatus: txRow.status,
      cause: 'OPERATOR_REVERSAL',
      detail: { caseId: row.id, operatorTransactionId: evidence.operator.operatorTransactionId, amount: evidence.operator.amount },
      createdAt: now,
    });
    return;
  }

  // APPLY_OPERATOR_SUCCESS: a payment Kolo counts as not moved that the operator says was paid.
  if (row.kind !== 'STATUS_MISMATCH' || evidence.operator?.kind !== 'PAYMENT' || evidence.operator.status !== 'SUCCEEDED') throw notApplicable();
  const operatorTransactionId = evidence.operator.operatorTransactionId;
  if (txRow.direction === 'PAY_OUT') {
    await applyPayOutSuccess(tx, services, row, txRow, operatorTransactionId);
    return;
  }
  const decision = await recordLateSuccess(tx, services, txRow.id, {
    railCode: row.railCode,
    msisdn: txRow.payerAccount ?? '',
    operatorReference: txRow.operatorReference,
    operatorTransactionId,
    origin: 'RECONCILIATION',
  });
  if (decision === null) throw notApplicable();
}

/**
 * The operator's success of pay-out `txRow`, which Kolo counts as not paid, applied in `tx`:
 * - still PENDING (sent, its answer not yet learnt): MONEY_MOVED through the state machine
 *   (`applyTransitionsIn`): SUCCESS, the reservation consumed (PAYOUT_SUCCESS), `payout.success`;
 * - FAILED with its reservation held (failed at its deadline without an answer): the late-success
 *   path of held pay-outs (`settleHeldPayOut`): consumed, `payout.late_success`;
 * - FAILED with its reservation released: reserved again from its funding source and consumed
 *   (`postPayOutPaidAfterRelease`), flagged `isLateSuccess`, a LATE_SUCCESS event and
 *   `payout.late_success`; the status stays FAILED (terminal). INSUFFICIENT_BALANCE when the
 *   merchant's available balance no longer covers it.
 * Anything else (a queued pay-out never sent, an unfunded one, one already found paid) does not fit.
 */
async function applyPayOutSuccess(tx: Db, services: Parameters<typeof resolveCase>[0], row: CaseRow, txRow: TransactionRow, operatorTransactionId: string): Promise<void> {
  const notApplicable = () => new ApiError('RECONCILIATION_ACTION_NOT_APPLICABLE');
  const origin = 'RECONCILIATION';
  if (txRow.reservedAmount === null || txRow.isLateSuccess) throw notApplicable();
  if (txRow.status === 'PENDING') {
    if (txRow.floatQueuedAt !== null && txRow.initiatedAt === null) throw notApplicable();
    const changed = await applyTransitionsIn(tx, services, [
      { transactionId: txRow.id, event: 'MONEY_MOVED', cause: 'RECONCILIATION', operatorTransactionId, detail: { caseId: row.id, origin, operatorTransactionId } },
    ]);
    if (changed.length === 0) throw notApplicable();
    return;
  }
  if (txRow.status !== 'FAILED') throw notApplicable();
  if (txRow.isReservationHeld) {
    const settled = await settleHeldPayOut(tx, services, txRow.id, { paid: true, operatorReference: null, operatorTransactionId, origin });
    if (!settled) throw notApplicable();
    return;
  }
  const now = services.clock.now();
  const [paid] = await tx
    .update(transactions)
    .set({ isLateSuccess: true, lateWatchUntil: null, nextPollAt: null, operatorTransactionId, updatedAt: now })
    .where(and(eq(transactions.id, txRow.id), eq(transactions.isLateSuccess, false), eq(transactions.isReservationHeld, false)))
    .returning();
  if (!paid) throw notApplicable();
  await postPayOutPaidAfterRelease(tx, services, paid);
  await creditRefund(tx, services, paid);
  await tx.insert(transactionEvents).values({
    transactionId: paid.id,
    fromStatus: paid.status,
    toStatus: paid.status,
    cause: 'LATE_SUCCESS',
    detail: { origin, caseId: row.id, operatorTransactionId, consumed: paid.reservedAmount },
    createdAt: now,
  });
  await insertEventWithDelivery(tx, services, {
    applicationId: paid.applicationId,
    environment: paid.environment as Environment,
    event: 'payout.late_success',
    data: { ...transactionEventData(paid, services.config.publicBaseUrl), reservation: { amount: paid.reservedAmount, outcome: 'CONSUMED' } },
    transactionId: paid.id,
  });
}
