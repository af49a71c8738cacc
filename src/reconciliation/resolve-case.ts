/**
 * Resolving a reconciliation case: staff choose an action that does what it says, inside one
 * database transaction with the case's compare-and-set (OPEN → RESOLVED, so two resolutions
 * cannot both post) and the audit entry (actor, action, note):
 * - APPLY_OPERATOR_SUCCESS: the operator's success of a pay-in Kolo closed as failed, applied
 *   through the late-success path (postings from the rail's float, the application's late-success
 *   policy, `payment.late_success` event and webhook);
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
import { recordLateSuccess } from '../late-success/index.ts';
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

  // APPLY_OPERATOR_SUCCESS: a pay-in closed without money that the operator says was paid.
  if (row.kind !== 'STATUS_MISMATCH' || evidence.operator?.kind !== 'PAYMENT' || evidence.operator.status !== 'SUCCEEDED' || txRow.direction !== 'PAY_IN') throw notApplicable();
  const decision = await recordLateSuccess(tx, services, txRow.id, {
    railCode: row.railCode,
    msisdn: txRow.payerAccount ?? '',
    operatorReference: txRow.operatorReference,
    operatorTransactionId: evidence.operator.operatorTransactionId,
    origin: 'RECONCILIATION',
  });
  if (decision === null) throw notApplicable();
}
