/**
 * The only way a transaction's status changes: read the row, ask the pure state machine
 * (`domain/transaction-state.ts`), plan what the change writes — its event, the ledger entries it
 * causes (transaction-postings.ts: a pay-in's fee is fixed here, at SUCCESS, from its rail's
 * terms) and its webhook events (the status listeners) — then write the status with all of it in
 * one statement, a compare-and-set on the status and the version the row was read at (so a
 * concurrent writer can never move a terminal state, and nothing is written from a stale read):
 * no status change ever commits without its side records.
 */
import { eq, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { connectionOf, keptBy } from '../db/handle.ts';
import { transactions } from '../db/schema.ts';
import { pendingSettlements } from '../db/schema-ledger.ts';
import { forgetAccounts } from '../db/queries/ledger.ts';
import { transactionsForTransition, writeStatusChanges, type RowForTransition, type StatusSettlement } from '../db/queries/transactions.ts';
import type { NewEventWithDelivery } from '../db/queries/webhooks.ts';
import { preparePostings } from '../ledger/post-entry.ts';
import type { StoredFeeTerms } from '../db/queries/rails.ts';
import { kindOf, nextStatus, type TransactionStatus, type TransitionEvent } from '../domain/transaction-state.ts';
import type { FailureCode } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import type { TransactionRow } from './transaction-view.ts';
import { computeFee, railTermsFrom } from './fees.ts';
import { ensureSandboxOpening, isSandboxOpeningKnown, planStatusChange, type PostingPlan } from './transaction-postings.ts';
import { LATE_WATCH_FIRST_ASK_MS, payOutWatchEnd } from './late-watch.ts';
import { FLOAT_SHORT_FAILURE, requeueShortPayOutsIn } from './float-queue.ts';

/** One applied status change: the updated row and the status it left. */
export interface StatusChange {
  row: TransactionRow;
  previous: TransactionStatus;
}

/**
 * What happens beside every status change (`Services.statusListeners`), in one of two ways:
 * - `events`: the webhook events (with their deliveries) that `changes` announce; the status
 *   change writes them in its own statement, so they commit with it or not at all.
 * - `written`: called with every change once written, inside the change's database transaction
 *   `tx`, so that what it writes commits with the change, and an error it throws rolls the change
 *   back. With `writesNothing` (a counter), it writes nothing in the database: it then asks for no
 *   database transaction, is called once the change is written, with the database handle as `tx`,
 *   and must not throw.
 */
export interface StatusChangeListener {
  events?: (changes: StatusChange[]) => NewEventWithDelivery[];
  written?: (tx: Db, changes: StatusChange[]) => Promise<void>;
  writesNothing?: boolean;
}

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
  /**
   * The row as the caller just read it for a status change (an operator's callback, the poller's
   * claim): the change is planned from it without reading the row again; if the row moved since,
   * it is read again.
   */
  readAs?: RowForTransition;
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
 * callback and answer whose bytes arrived in it) are applied together, by one read and one
 * statement (`applyTransitions`), at most `GROUP_MAX` at a time; two transitions of the same
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

type TransitionServices = Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>;

/**
 * Applies transitions; the only implementation (`applyTransition` is a batch of one, the poller
 * sends many). Each round: one read of the rows (none in the first round for the rows their
 * callers read, `TransitionInput.readAs`), then one statement writing every planned change
 * with its event, ledger entries and webhook events (`writeStatusChanges`) — inside a database
 * transaction only when the changes write more (`needsTransaction`). A planned change whose row
 * moved since it was read (another writer) is read and planned again, at most `ROUNDS_MAX` rounds.
 * Returns the rows that changed, in the order asked (a transition that no longer applies is
 * skipped). Throws what a round throws — that round wrote nothing, earlier rounds stay written
 * (the poller then applies them one by one) — or an Error when rows kept moving.
 */
export async function applyTransitions(services: TransitionServices, inputs: TransitionInput[]): Promise<TransactionRow[]> {
  return applyTransitionsIn(services.db, services, inputs);
}

/** Most rounds of `applyTransitions` (a row that moved between its read and its write is read again). */
const ROUNDS_MAX = 5;

/**
 * The only writer of a transaction's status, in `db`: the caller's database transaction, or the
 * database handle (`applyTransitions`). For each input: read the row, ask the state machine, fix
 * the fee (`moneyTermsOf`) and what watching follows (`watchAfter`), plan its ledger entries
 * (`planStatusChange`) and webhook events (the listeners' `events`), then write them all
 * with the status (`writeTransitions`), run the other listeners and count a paid refund against
 * its pay-in (`creditRefund`, which moves a pay-in refunded in full to REFUNDED through this same
 * function). Two round trips a round whatever the batch size, unless the changes write more.
 */
export async function applyTransitionsIn(tx: Db, services: TransitionServices, inputs: TransitionInput[]): Promise<TransactionRow[]> {
  const applied = new Map<string, TransactionRow>();
  let asked = inputs;
  for (let round = 1; asked.length > 0; round++) {
    if (round > ROUNDS_MAX) {
      throw new Error(`status change: transactions ${asked.map((i) => i.transactionId).join(', ')} changed at each of ${ROUNDS_MAX} reads`);
    }
    // The first round plans from the rows the callers read, when they did; later rounds read again.
    const given = new Map(round === 1 ? asked.flatMap((i) => (i.readAs?.row.id === i.transactionId ? [[i.transactionId, i.readAs]] : [])) : []);
    const unread = [...new Set(asked.map((i) => i.transactionId))].filter((id) => !given.has(id));
    const reads = [...given.values(), ...(unread.length > 0 ? await transactionsForTransition(tx, unread) : [])];
    const plan = planTransitions(reads, asked, services);
    const written =
      needsTransaction(services, plan) && !connectionOf(tx).inTransaction
        ? await transaction(tx, (inner) => writeTransitions(inner, services, plan))
        : await writeTransitions(tx, services, plan);
    for (const change of written) applied.set(change.row.id, change.row);
    // Planned but not written: the row moved since it was read. Read again: the state machine decides.
    asked = [...plan.changes.filter((c) => !applied.has(c.row.id)).map((c) => c.input), ...plan.later];
  }
  return inputs.flatMap((i) => {
    const row = applied.get(i.transactionId);
    applied.delete(i.transactionId);
    return row ? [row] : [];
  });
}

/** A planned change: the row as it will be written, the status it leaves, its posting plan. */
interface PlannedChange extends StatusChange {
  input: TransitionInput;
  settlement: StatusSettlement;
  posting: PostingPlan;
}

/** What one round of `applyTransitionsIn` writes. */
interface TransitionPlan {
  changes: PlannedChange[];
  /** LIVE pay-outs the operator refused for want of its own float: queued again (float-queue.ts). */
  shortOfFloat: { row: TransactionRow; failureReason: string | null }[];
  /** Second transitions of a transaction already planned this round: asked in the next one. */
  later: TransitionInput[];
  now: Date;
}

/** Plans the transitions `inputs` on the rows `reads` (pure but for the clock). */
function planTransitions(reads: RowForTransition[], inputs: TransitionInput[], services: TransitionServices): TransitionPlan {
  const byId = new Map(reads.map((r) => [r.row.id, r]));
  const now = services.clock.now();
  const plan: TransitionPlan = { changes: [], shortOfFloat: [], later: [], now };
  const planned = new Set<string>();
  for (const input of inputs) {
    const read = byId.get(input.transactionId);
    if (!read) continue;
    if (planned.has(input.transactionId)) {
      plan.later.push(input);
      continue;
    }
    const current = read.row;
    const result = nextStatus(current.status as TransactionStatus, input.event, kindOf(current));
    if (!result.ok) continue;
    planned.add(input.transactionId);
    if (isFloatShortRefusal(current, input)) {
      // The operator's own wallet is short: nothing moved, and nothing is wrong on the
      // merchant's side. The pay-out waits for float (float-queue.ts) instead of failing.
      plan.shortOfFloat.push({ row: current, failureReason: input.failureReason ?? null });
      continue;
    }
    const isFailed = result.to === 'FAILED';
    const { feeAmount, settlementDelaySeconds } = moneyTermsOf(current, read.payInTerms, result.to);
    const settlement: StatusSettlement = {
      id: current.id,
      expectedStatus: result.from,
      expectedVersion: read.version,
      status: result.to,
      failureCode: isFailed ? (input.failureCode ?? 'PROVIDER_ERROR') : null,
      failureReason: isFailed ? (input.failureReason ?? null) : null,
      operatorReference: input.operatorReference ?? current.operatorReference,
      operatorTransactionId: input.operatorTransactionId ?? current.operatorTransactionId,
      feeAmount,
      ...watchAfter(current, input.event, services.config, now),
      cause: input.cause,
      detail: input.detail ?? (isFailed ? { failureReason: input.failureReason ?? null } : null),
    };
    const row = settledRow(current, settlement, now);
    plan.changes.push({ input, settlement, row, previous: result.from, posting: planStatusChange(row, { settlementDelaySeconds }, now) });
  }
  return plan;
}

/**
 * The row as `settlement` writes it (the statement's SET list, `writeStatusChanges`): the read
 * row is the row written over, since the write applies only at the version read.
 */
function settledRow(current: TransactionRow, settlement: StatusSettlement, now: Date): TransactionRow {
  return {
    ...current,
    status: settlement.status,
    failureCode: settlement.failureCode,
    failureReason: settlement.failureReason,
    operatorReference: settlement.operatorReference,
    operatorTransactionId: settlement.operatorTransactionId,
    feeAmount: settlement.feeAmount,
    nextPollAt: settlement.nextPollAt,
    lateWatchUntil: settlement.lateWatchUntil,
    isReservationHeld: settlement.isReservationHeld,
    updatedAt: now,
    completedAt: settlement.status === 'REFUNDED' ? current.completedAt : now,
  };
}

/**
 * True when `plan` writes more than its one statement can: a pay-out queued for float, a TEST
 * application's first sandbox opening, a pay-in's held settlement, a paid refund to count, or a
 * listener that writes in the database. Its round then runs in one database transaction.
 */
function needsTransaction(services: TransitionServices, plan: TransitionPlan): boolean {
  if (plan.shortOfFloat.length > 0) return true;
  if (services.statusListeners.some((l) => l.written && !l.writesNothing)) return true;
  return plan.changes.some(
    ({ row, posting }) =>
      posting.settlement !== null ||
      (posting.sandboxOpening !== null && !isSandboxOpeningKnown(services, posting.sandboxOpening)) ||
      isCountedRefund(row),
  );
}

/** True for a paid refund counted against its pay-in (`creditRefund`). */
function isCountedRefund(row: TransactionRow): boolean {
  return row.refundOf !== null && row.status === 'SUCCESS' && row.fundingSource !== 'SUSPENSE';
}

/**
 * Writes one round's `plan` in `db` (a database transaction when `needsTransaction`): the float
 * queue's requeues, the sandbox openings, then every change with its event, entries and webhook
 * events in one statement; then, for the changes written, the held settlements, the listeners'
 * `written` and the refunds' counts. Returns the changes written (each row as `settledRow` made it:
 * written at the version it was read at, it is stored so).
 */
async function writeTransitions(db: Db, services: TransitionServices, plan: TransitionPlan): Promise<StatusChange[]> {
  if (plan.shortOfFloat.length > 0) await requeueShortPayOutsIn(db, services, plan.shortOfFloat);
  if (plan.changes.length === 0) return [];
  for (const { posting } of plan.changes) {
    const o = posting.sandboxOpening;
    if (o) await ensureSandboxOpening(db, services, o.applicationId, o.environment, o.currency);
  }
  const postings = plan.changes.flatMap((c) => c.posting.postings);
  const prepared = await preparePostings(db, postings);
  if (prepared.spends.length > 0) throw new Error('status change: a posting rule spends from an account that must not go negative');
  const events = services.statusListeners.flatMap((l) => l.events?.(plan.changes) ?? []);
  let changed: Set<string>;
  try {
    changed = await writeStatusChanges(db, { settlements: plan.changes.map((c) => c.settlement), entries: prepared.entries, lines: prepared.lines, events, now: plan.now });
  } catch (error) {
    forgetAccounts(db, prepared.accountKeys);
    throw error;
  }
  const written = plan.changes.filter((c) => changed.has(c.row.id));
  const settlements = written.flatMap((c) => (c.posting.settlement ? [c.posting.settlement] : []));
  if (settlements.length > 0) await db.insert(pendingSettlements).values(settlements);
  const changes = written.map((c) => ({ row: c.row, previous: c.previous }));
  for (const listener of services.statusListeners) if (listener.written) await listener.written(db, changes);
  for (const { row } of changes) if (isCountedRefund(row)) await creditRefund(db, services, row);
  return changes;
}

/**
 * Counts the paid refund pay-out `refund` against its pay-in, inside `tx`, whatever the refund's
 * own status says (also a refund paid after it failed at its deadline: late-success/): its
 * amount is added to the pay-in's `refundedAmount`, and a SUCCESS pay-in refunded in full moves
 * to REFUNDED (FULLY_REFUNDED, cause REFUND) through `applyTransitionsIn`, with its event and
 * `payment.refunded`. A refund of a late success (funded from SUSPENSE) returned another
 * payment and counts nothing. Refunds are created by refunds/
 */
export async function creditRefund(tx: Db, services: TransitionServices, refund: TransactionRow): Promise<void> {
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
