/**
 * The only way a transaction's status changes. In one database transaction: read the row, ask
 * the pure state machine (`domain/transaction-state.ts`), compare-and-set the status in SQL
 * (`where status = 'PENDING'`, so a concurrent writer can never move a terminal state), append
 * a transaction event, post the ledger entry the change causes (transaction-postings.ts: a
 * pay-in's fee is fixed here, at SUCCESS, from its rail's terms), and run the status listeners
 * (the webhook outbox) so that no status change ever commits without its side records.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { runStatement, statement } from '../db/statement.ts';
import { mapRow } from '../db/batch.ts';
import type { Db } from '../db/client.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { kindOf, nextStatus, type TransactionStatus, type TransitionEvent } from '../domain/transaction-state.ts';
import type { FailureCode } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';
import { computeFee, railTermsFor } from './fees.ts';
import { planStatusChange, postStatusChange, postStatusChanges } from './transaction-postings.ts';
import type { RailTerms } from './fees.ts';
import { settleRefund } from './refund-settlement.ts';
import { LATE_WATCH_FIRST_ASK_MS, payOutWatchEnd } from './late-watch.ts';

/** One applied status change: the updated row and the status it left. */
export interface StatusChange {
  row: TransactionRow;
  previous: TransactionStatus;
}

/**
 * Called inside the status change's database transaction with the updated row. A listener may
 * also offer `batch`, called once with every change of a batched transaction (`applyTransitions`)
 * instead of once per change (fewer round trips); without it, it is called per change.
 */
export type StatusChangeListener = ((tx: Db, transaction: TransactionRow, previous: TransactionStatus) => Promise<void>) & {
  batch?: (tx: Db, changes: StatusChange[]) => Promise<void>;
};

/** A requested transition. `cause` is recorded on the event (e.g. POLL, EXPIRY, DEADLINE). */
export interface TransitionInput {
  transactionId: string;
  event: TransitionEvent;
  cause: string;
  failureCode?: FailureCode;
  failureReason?: string;
  operatorReference?: string | null;
  /** The operator's own id of the money movement, when its answer carried it. */
  operatorTransactionId?: string | null;
  detail?: Record<string, unknown>;
}

/**
 * What a transition fixes about watching the transaction after it: a charge failed at its
 * deadline is asked about again for `LATE_SUCCESS_WATCH_HOURS` (late-success.ts); a pay-out
 * failed at its deadline after it may have reached the operator keeps its reservation and is
 * asked about until the operator answers (late-watch.ts). Checkouts are watched attempt by
 * attempt (checkout-attempt-records.ts), never here.
 */
export function watchAfter(
  current: Pick<TransactionRow, 'direction' | 'type' | 'initiatedAt' | 'reservedAmount'>,
  event: TransitionEvent,
  config: Pick<Services['config'], 'lateSuccessWatchHours'>,
  now: Date,
): { nextPollAt: Date | null; lateWatchUntil: Date | null; isReservationHeld: boolean } {
  const none = { nextPollAt: null, lateWatchUntil: null, isReservationHeld: false };
  if (event !== 'TIMED_OUT') return none;
  if (current.direction === 'PAY_OUT') {
    // Never sent (initiatedAt null) or unfunded: nothing can have left, the release is safe.
    if (current.initiatedAt === null || current.reservedAmount === null) return none;
    return { nextPollAt: new Date(now.getTime() + LATE_WATCH_FIRST_ASK_MS), lateWatchUntil: payOutWatchEnd(config, now), isReservationHeld: true };
  }
  if (current.type === 'CHECKOUT' || config.lateSuccessWatchHours <= 0) return none;
  return {
    nextPollAt: new Date(now.getTime() + LATE_WATCH_FIRST_ASK_MS),
    lateWatchUntil: new Date(now.getTime() + config.lateSuccessWatchHours * 3_600_000),
    isReservationHeld: false,
  };
}

/**
 * The fee and settlement delay a status change fixes: a pay-in's fee is fixed when the money
 * moves (SUCCESS), on the rail that moved it, with the merchant's override if any; otherwise
 * the row's fee stays and nothing is held. `terms` caches rail terms across a batch.
 */
async function moneyTermsOf(
  tx: Db,
  current: TransactionRow,
  to: TransactionStatus,
  terms?: Map<string, RailTerms>,
): Promise<{ feeAmount: number | null; settlementDelaySeconds: number }> {
  if (to !== 'SUCCESS' || current.direction !== 'PAY_IN' || !current.paymentMethod) {
    return { feeAmount: current.feeAmount, settlementDelaySeconds: 0 };
  }
  const key = `${current.paymentMethod}:${current.applicationId}`;
  let railTerms = terms?.get(key);
  if (!railTerms) {
    railTerms = await railTermsFor(tx, current.paymentMethod, 'PAY_IN', current.applicationId);
    terms?.set(key, railTerms);
  }
  return { feeAmount: computeFee(current.amount, railTerms.rule, 'PAY_IN'), settlementDelaySeconds: railTerms.settlementDelaySeconds };
}

/**
 * Applies a transition. Returns the updated row, or null when it does not apply (already
 * terminal, not allowed for this kind, or another writer won the race).
 */
export async function applyTransition(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  input: TransitionInput,
): Promise<TransactionRow | null> {
  return services.db.transaction(async (txHandle) => {
    const tx = txHandle as unknown as Db;
    const [current] = await tx.select().from(transactions).where(eq(transactions.id, input.transactionId));
    if (!current) return null;
    const result = nextStatus(current.status as TransactionStatus, input.event, kindOf(current));
    if (!result.ok) return null;
    const now = services.clock.now();
    const isFailed = result.to === 'FAILED';
    const { feeAmount, settlementDelaySeconds } = await moneyTermsOf(tx, current, result.to);
    const watch = watchAfter(current, input.event, services.config, now);
    const [updated] = await tx
      .update(transactions)
      .set({
        status: result.to,
        failureCode: isFailed ? (input.failureCode ?? 'PROVIDER_ERROR') : null,
        failureReason: isFailed ? (input.failureReason ?? null) : null,
        operatorReference: input.operatorReference ?? current.operatorReference,
        operatorTransactionId: input.operatorTransactionId ?? current.operatorTransactionId,
        feeAmount,
        nextPollAt: watch.nextPollAt,
        lateWatchUntil: watch.lateWatchUntil,
        isReservationHeld: watch.isReservationHeld,
        completedAt: now,
        updatedAt: now,
      })
      .where(and(eq(transactions.id, input.transactionId), eq(transactions.status, 'PENDING')))
      .returning();
    if (!updated) return null;
    await tx.insert(transactionEvents).values({
      transactionId: updated.id,
      fromStatus: result.from,
      toStatus: result.to,
      cause: input.cause,
      failureCode: isFailed ? updated.failureCode : null,
      detail: input.detail ?? (isFailed ? { failureReason: updated.failureReason } : null),
      createdAt: now,
    });
    await postStatusChange(tx, services, updated, { settlementDelaySeconds });
    for (const listener of services.statusListeners) await listener(tx, updated, result.from);
    // A successful refund may complete its pay-in's refund (SUCCESS → REFUNDED), announced after it.
    if (updated.refundOf) await settleRefund(tx, services, updated);
    return updated;
  });
}

// The batch's compare-and-set: every row still PENDING takes its new status (one statement).
// The rows are found by primary key (`t.id = any($1)`), and the expected status comes as a
// column of the batch rather than the literal 'PENDING': a literal matches the predicate of the
// partial index transactions_pending_poll_idx, and when the statistics are stale (a table that
// grew since its last ANALYZE) PostgreSQL then reads every PENDING row of that index to update
// a batch of twenty (seen at 9 ms a batch, growing with the table). The same pattern is in
// every batched update keyed by id (initiation records, next polls, webhook attempts).
const settleMany = statement(
  'settle_many_v3',
  `update transactions t
      set status = v.status, failure_code = v.failure_code, failure_reason = v.failure_reason,
          operator_reference = v.operator_reference, fee_amount = v.fee_amount, next_poll_at = v.next_poll_at,
          late_watch_until = v.late_watch_until, completed_at = $9::timestamptz, updated_at = $9::timestamptz,
          operator_transaction_id = v.operator_transaction_id, is_reservation_held = v.is_reservation_held
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::timestamptz[], $10::text[],
                 $11::text[], $12::boolean[])
       as v(id, status, failure_code, failure_reason, operator_reference, fee_amount, next_poll_at, late_watch_until, expected_status,
            operator_transaction_id, is_reservation_held)
    where t.id = any($1::uuid[]) and t.id = v.id and t.status = v.expected_status
   returning t.*`,
);

// The batch's status-change events (one statement).
const insertEvents = statement(
  'insert_status_events_v1',
  `insert into transaction_events (transaction_id, from_status, to_status, cause, failure_code, detail, created_at)
   select v.transaction_id, v.from_status, v.to_status, v.cause, v.failure_code, v.detail::jsonb, $7::timestamptz
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
       as v(transaction_id, from_status, to_status, cause, failure_code, detail)`,
);

/**
 * Applies many transitions in ONE database transaction — the poller's batch (issue 14): the
 * same rules and the same side records as `applyTransition` for each (compare-and-set on
 * PENDING, its event, its ledger entry, the listeners' records, a refund's completion), in a
 * fixed number of round trips whatever the batch size: one read, one UPDATE … FROM (VALUES …),
 * one insert of all events, two ledger statements (`postStatusChanges`), the listeners' batch
 * writes. Returns the rows that changed (a transition that no longer applies is skipped, as in
 * `applyTransition`). Any error rolls the whole batch back and is thrown: the caller then applies
 * them one by one. Not for checkouts (they change through their attempts).
 */
export async function applyTransitions(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  inputs: TransitionInput[],
): Promise<TransactionRow[]> {
  if (inputs.length === 0) return [];
  return services.db.transaction(async (txHandle) => {
    const tx = txHandle as unknown as Db;
    const currentRows = await tx.select().from(transactions).where(inArray(transactions.id, inputs.map((i) => i.transactionId)));
    const byId = new Map(currentRows.map((r) => [r.id, r]));
    const now = services.clock.now();
    const nowIso = now.toISOString();
    const terms = new Map<string, RailTerms>();
    const planned: { input: TransitionInput; from: TransactionStatus; to: TransactionStatus; settlementDelaySeconds: number }[] = [];
    const columns = {
      id: [] as string[],
      status: [] as string[],
      failureCode: [] as (string | null)[],
      failureReason: [] as (string | null)[],
      operatorReference: [] as (string | null)[],
      feeAmount: [] as (number | null)[],
      nextPollAt: [] as (string | null)[],
      lateWatchUntil: [] as (string | null)[],
      operatorTransactionId: [] as (string | null)[],
      isReservationHeld: [] as boolean[],
    };
    for (const input of inputs) {
      const current = byId.get(input.transactionId);
      if (!current) continue;
      if (current.type === 'CHECKOUT') throw new Error(`applyTransitions: ${current.reference} is a checkout`);
      const result = nextStatus(current.status as TransactionStatus, input.event, kindOf(current));
      if (!result.ok) continue;
      const isFailed = result.to === 'FAILED';
      const { feeAmount, settlementDelaySeconds } = await moneyTermsOf(tx, current, result.to, terms);
      const watch = watchAfter(current, input.event, services.config, now);
      planned.push({ input, from: result.from, to: result.to, settlementDelaySeconds });
      columns.id.push(current.id);
      columns.status.push(result.to);
      columns.failureCode.push(isFailed ? (input.failureCode ?? 'PROVIDER_ERROR') : null);
      columns.failureReason.push(isFailed ? (input.failureReason ?? null) : null);
      columns.operatorReference.push(input.operatorReference ?? current.operatorReference);
      columns.feeAmount.push(feeAmount);
      columns.nextPollAt.push(watch.nextPollAt?.toISOString() ?? null);
      columns.lateWatchUntil.push(watch.lateWatchUntil?.toISOString() ?? null);
      columns.operatorTransactionId.push(input.operatorTransactionId ?? current.operatorTransactionId);
      columns.isReservationHeld.push(watch.isReservationHeld);
    }
    if (planned.length === 0) return [];
    const { rows: changedRaw } = await runStatement<Record<string, unknown>>(tx, settleMany, [
      columns.id,
      columns.status,
      columns.failureCode,
      columns.failureReason,
      columns.operatorReference,
      columns.feeAmount,
      columns.nextPollAt,
      columns.lateWatchUntil,
      nowIso,
      columns.id.map(() => 'PENDING'),
      columns.operatorTransactionId,
      columns.isReservationHeld,
    ]);
    if (changedRaw.length === 0) return [];
    const updatedById = new Map(changedRaw.map((r) => [r.id as string, mapRow(transactions, r)]));
    const changes: (StatusChange & { input: TransitionInput; settlementDelaySeconds: number })[] = [];
    for (const p of planned) {
      const row = updatedById.get(p.input.transactionId);
      if (row) changes.push({ row, previous: p.from, input: p.input, settlementDelaySeconds: p.settlementDelaySeconds });
    }
    await runStatement(tx, insertEvents, [
      changes.map((c) => c.row.id),
      changes.map((c) => c.previous),
      changes.map((c) => c.row.status),
      changes.map((c) => c.input.cause),
      changes.map((c) => (c.row.status === 'FAILED' ? c.row.failureCode : null)),
      changes.map((c) => {
        const detail = c.input.detail ?? (c.row.status === 'FAILED' ? { failureReason: c.row.failureReason } : null);
        return detail === null ? null : JSON.stringify(detail);
      }),
      nowIso,
    ]);
    await postStatusChanges(
      tx,
      services,
      changes.map((c) => planStatusChange(c.row, { settlementDelaySeconds: c.settlementDelaySeconds }, now)),
    );
    for (const listener of services.statusListeners) {
      if (listener.batch) await listener.batch(tx, changes);
      else for (const c of changes) await listener(tx, c.row, c.previous);
    }
    for (const c of changes) if (c.row.refundOf) await settleRefund(tx, services, c.row);
    return changes.map((c) => c.row);
  });
}
