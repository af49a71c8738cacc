/**
 * The only way a transaction's status changes. In one database transaction: read the row, ask
 * the pure state machine (`domain/transaction-state.ts`), compare-and-set the status in SQL
 * (`where status = 'PENDING'`, so a concurrent writer can never move a terminal state), append
 * a transaction event, post the ledger entry the change causes (transaction-postings.ts: a
 * pay-in's fee is fixed here, at SUCCESS, from its rail's terms), and run the status listeners
 * (the webhook outbox) so that no status change ever commits without its side records.
 */
import { eq, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { connectionOf, keptBy } from '../db/handle.ts';
import { transactions } from '../db/schema.ts';
import { settleStatuses, transactionsForTransition, type StatusSettlement } from '../db/queries/transactions.ts';
import type { StoredFeeTerms } from '../db/queries/rails.ts';
import { kindOf, nextStatus, type TransactionStatus, type TransitionEvent } from '../domain/transaction-state.ts';
import type { FailureCode } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';
import { computeFee, railTermsFrom } from './fees.ts';
import { planStatusChange, postStatusChanges } from './transaction-postings.ts';
import { LATE_WATCH_FIRST_ASK_MS, payOutWatchEnd } from './late-watch.ts';
import { FLOAT_SHORT_FAILURE, requeueShortPayOutsIn } from './float-queue.ts';

/** One applied status change: the updated row and the status it left. */
export interface StatusChange {
  row: TransactionRow;
  previous: TransactionStatus;
}

/**
 * Called inside the status change's database transaction with the updated row. A listener may
 * also offer `batch`, called once with every change of the database transaction
 * (`applyTransitions`) instead of once per change (fewer round trips); without it, it is called
 * per change.
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
 * deadline is asked about again for `LATE_SUCCESS_WATCH_HOURS` (late-success/); a pay-out
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
 * True when `input` is an operator's definite refusal of the sent LIVE pay-out `current` for want
 * of the operator wallet's own balance (`FLOAT_SHORT_FAILURE`): queued again, never failed.
 */
function isFloatShortRefusal(current: TransactionRow, input: TransitionInput): boolean {
  return (
    current.status === 'PENDING' &&
    current.direction === 'PAY_OUT' &&
    current.environment === 'LIVE' &&
    current.initiatedAt !== null &&
    input.event === 'DECLINED' &&
    input.failureCode === FLOAT_SHORT_FAILURE
  );
}

/**
 * The fee and settlement delay a status change fixes: a pay-in's fee is fixed when the money
 * moves (SUCCESS), on the rail that moved it, with the merchant's override if any (`payInTerms`,
 * read with the row); otherwise the row's fee stays and nothing is held.
 */
function moneyTermsOf(
  current: TransactionRow,
  payInTerms: StoredFeeTerms,
  to: TransactionStatus,
): { feeAmount: number | null; settlementDelaySeconds: number } {
  if (to !== 'SUCCESS' || current.direction !== 'PAY_IN' || !current.paymentMethod) {
    return { feeAmount: current.feeAmount, settlementDelaySeconds: 0 };
  }
  const terms = railTermsFrom(payInTerms, 'PAY_IN');
  return { feeAmount: computeFee(current.amount, terms.rule, 'PAY_IN'), settlementDelaySeconds: terms.settlementDelaySeconds };
}

/**
 * Applies a transition: `applyTransitions` of one. Returns the updated row, or null when it does
 * not apply (already terminal, not allowed for this kind, or another writer won the race).
 * Throws what applying it alone throws.
 *
 * Group commit: the transitions asked of one database during one turn of the event loop (every
 * callback and answer whose bytes arrived in it) are applied together, in one database
 * transaction (`applyTransitions`), at most `GROUP_MAX` at a time; two transitions of the same
 * transaction never share a group (the second goes in another one). When a group fails as a
 * whole, each of its transitions is applied on its own, so that one failing transition fails its
 * own caller only. Inside a database transaction, the transition is applied there, alone.
 */
export async function applyTransition(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  input: TransitionInput,
): Promise<TransactionRow | null> {
  if (connectionOf(services.db).inTransaction) {
    const [updated] = await applyTransitions(services, [input]);
    return updated ?? null;
  }
  return keptBy(services.db, GROUP_COMMIT, () => new TransitionGroups(services)).add(input);
}

/** Most transitions of one group commit. */
const GROUP_MAX = 64;
const GROUP_COMMIT = Symbol('transition group commit');

interface Waiting {
  input: TransitionInput;
  resolve: (row: TransactionRow | null) => void;
  reject: (error: unknown) => void;
}

/** The transitions waiting for the next group commit of one database (see `applyTransition`). */
class TransitionGroups {
  readonly #services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>;
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>) {
    this.#services = services;
  }

  add(input: TransitionInput): Promise<TransactionRow | null> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      // After the I/O callbacks of this turn, so that every answer that arrived in it joins.
      setImmediate(() => {
        this.#scheduled = false;
        this.#flush();
      });
    });
  }

  /**
   * Splits what waits into groups of distinct transactions, committed concurrently: a second
   * transition of a transaction runs beside the first, as two callers' transactions would.
   */
  #flush(): void {
    let rest = this.#waiting.splice(0);
    while (rest.length > 0) {
      const group: Waiting[] = [];
      const later: Waiting[] = [];
      const ids = new Set<string>();
      for (const w of rest) {
        if (group.length < GROUP_MAX && !ids.has(w.input.transactionId)) {
          ids.add(w.input.transactionId);
          group.push(w);
        } else later.push(w);
      }
      void this.#commit(group);
      rest = later;
    }
  }

  async #commit(group: Waiting[]): Promise<void> {
    const services = this.#services;
    if (group.length > 1) {
      try {
        const applied = new Map((await applyTransitions(services, group.map((w) => w.input))).map((row) => [row.id, row]));
        for (const w of group) w.resolve(applied.get(w.input.transactionId) ?? null);
        return;
      } catch {
        // One of them may be the cause (or a deadlock with another writer): each on its own.
      }
    }
    for (const w of group) {
      try {
        const [updated] = await applyTransitions(services, [w.input]);
        w.resolve(updated ?? null);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}

/**
 * Applies transitions in ONE database transaction (`applyTransitionsIn`); the only
 * implementation (`applyTransition` is a batch of one, the poller sends many). Returns the rows
 * that changed, in the order asked (a transition that no longer applies is skipped). Any error
 * rolls the whole batch back and is thrown (the poller then applies them one by one).
 */
export async function applyTransitions(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  inputs: TransitionInput[],
): Promise<TransactionRow[]> {
  if (inputs.length === 0) return [];
  return transaction(services.db, (tx) => applyTransitionsIn(tx, services, inputs));
}

/**
 * The only writer of a transaction's status, inside the caller's database transaction `tx`. For
 * each input: read the row, ask the state machine, fix the fee (`moneyTermsOf`) and what watching
 * follows (`watchAfter`), compare-and-set the status on the status it was read with, append its
 * event, post its ledger entries, run the listeners and count a paid refund against its pay-in
 * (`creditRefund`, which moves a pay-in refunded in full to REFUNDED through this same function). A fixed number of round trips whatever the batch size: one read, one UPDATE … FROM
 * unnest, one insert of all events, the ledger statements (`postStatusChanges`), the listeners'
 * batch writes.
 */
export async function applyTransitionsIn(
  tx: Db,
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  inputs: TransitionInput[],
): Promise<TransactionRow[]> {
  if (inputs.length === 0) return [];
  const byId = new Map((await transactionsForTransition(tx, inputs.map((i) => i.transactionId))).map((r) => [r.row.id, r]));
  const now = services.clock.now();
  const planned: { input: TransitionInput; from: TransactionStatus; to: TransactionStatus; settlementDelaySeconds: number }[] = [];
  const settlements: StatusSettlement[] = [];
  const shortOfFloat: { row: TransactionRow; failureReason: string | null }[] = [];
  for (const input of inputs) {
    const read = byId.get(input.transactionId);
    if (!read) continue;
    const current = read.row;
    const result = nextStatus(current.status as TransactionStatus, input.event, kindOf(current));
    if (!result.ok) continue;
    if (isFloatShortRefusal(current, input)) {
      // The operator's own wallet is short: nothing moved, and nothing is wrong on the
      // merchant's side. The pay-out waits for float (float-queue.ts) instead of failing.
      shortOfFloat.push({ row: current, failureReason: input.failureReason ?? null });
      continue;
    }
    const isFailed = result.to === 'FAILED';
    const { feeAmount, settlementDelaySeconds } = moneyTermsOf(current, read.payInTerms, result.to);
    const watch = watchAfter(current, input.event, services.config, now);
    planned.push({ input, from: result.from, to: result.to, settlementDelaySeconds });
    settlements.push({
      id: current.id,
      expectedStatus: result.from,
      status: result.to,
      failureCode: isFailed ? (input.failureCode ?? 'PROVIDER_ERROR') : null,
      failureReason: isFailed ? (input.failureReason ?? null) : null,
      operatorReference: input.operatorReference ?? current.operatorReference,
      operatorTransactionId: input.operatorTransactionId ?? current.operatorTransactionId,
      feeAmount,
      ...watch,
      cause: input.cause,
      detail: input.detail ?? (isFailed ? { failureReason: input.failureReason ?? null } : null),
    });
  }
  if (shortOfFloat.length > 0) await requeueShortPayOutsIn(tx, services, shortOfFloat);
  if (planned.length === 0) return [];
  const changed = await settleStatuses(tx, { settlements, now });
  if (changed.length === 0) return [];
  const updatedById = new Map(changed.map((row) => [row.id, row]));
  const changes: (StatusChange & { input: TransitionInput; settlementDelaySeconds: number })[] = [];
  for (const p of planned) {
    const row = updatedById.get(p.input.transactionId);
    if (row) changes.push({ row, previous: p.from, input: p.input, settlementDelaySeconds: p.settlementDelaySeconds });
  }
  await postStatusChanges(
    tx,
    services,
    changes.map((c) => planStatusChange(c.row, { settlementDelaySeconds: c.settlementDelaySeconds }, now)),
  );
  for (const listener of services.statusListeners) {
    if (listener.batch) await listener.batch(tx, changes);
    else for (const c of changes) await listener(tx, c.row, c.previous);
  }
  for (const c of changes) if (c.row.refundOf && c.row.status === 'SUCCESS') await creditRefund(tx, services, c.row);
  return changes.map((c) => c.row);
}

/**
 * Counts the paid refund pay-out `refund` against its pay-in, inside `tx`, whatever the refund's
 * own status says (also a refund paid after it failed at its deadline: late-success/): its
 * amount is added to the pay-in's `refundedAmount`, and a SUCCESS pay-in refunded in full moves
 * to REFUNDED (FULLY_REFUNDED, cause REFUND) through `applyTransitionsIn`, with its event and
 * `payment.refunded`. A refund of a late success (funded from SUSPENSE) returned another
 * payment and counts nothing. Refunds are created by refunds/
 */
export async function creditRefund(
  tx: Db,
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  refund: TransactionRow,
): Promise<void> {
  if (!refund.refundOf || refund.fundingSource === 'SUSPENSE') return;
  const [payment] = await tx
    .update(transactions)
    .set({ refundedAmount: sql`${transactions.refundedAmount} + ${refund.amount}`, updatedAt: services.clock.now() })
    .where(eq(transactions.id, refund.refundOf))
    .returning();
  if (!payment || payment.status !== 'SUCCESS' || payment.refundedAmount < payment.amount) return;
  await applyTransitionsIn(tx, services, [
    {
      transactionId: payment.id,
      event: 'FULLY_REFUNDED',
      cause: 'REFUND',
      detail: { refund: refund.reference, refundedAmount: payment.refundedAmount },
    },
  ]);
}
