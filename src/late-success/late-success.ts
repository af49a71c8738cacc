/**
 * Money that an operator moves after Kolo closed its transaction without a definitive answer.
 * An outcome left unknown at its deadline is never a failure of money: it is watched, and only
 * the operator's definitive answer moves money.
 *
 * Pay-ins (a charge failed at its deadline; each checkout attempt failed at its deadline, on its
 * own, whatever its checkout ended as) are watched for `LATE_SUCCESS_WATCH_HOURS`. A late success
 * is recorded once per charge or per attempt, in one database transaction:
 * - the transaction keeps its status (FAILED/CANCELLED never change, and a checkout paid by
 *   another attempt stays SUCCESS) but is flagged `isLateSuccess` and gets a LATE_SUCCESS event;
 * - the amount is posted from the rail's float to SUSPENSE;
 * - by the application's `lateSuccessPolicy`: REFUND (default) writes a refund pay-out to the
 *   number that paid, funded from SUSPENSE, no fee, initiated by the poller's backstop right after
 *   commit (a crash cannot lose it); KEEP credits the merchant from SUSPENSE like a pay-in
 *   (amount − fee to AVAILABLE, or to PENDING on a rail with a settlement delay; fee to revenue);
 * - a checkout is paid once: the late success of an attempt is refunded, whatever the policy,
 *   when its checkout was already paid (SUCCESS or REFUNDED) or a late success of another of its
 *   attempts was kept. Under KEEP, the late success of an attempt while its checkout is still open
 *   pays the checkout (PENDING → SUCCESS from the rail's float, `payment.success`), so no later
 *   attempt can pay it again;
 * - the merchant is told: a `payment.late_success` webhook (the status view plus
 *   `latePayment: {decision, refundReference, attemptNumber, operatorTransactionId}`; its
 *   `lateSuccess` is true, as in the status read).
 *
 * Pay-outs failed at their deadline after they may have reached the operator keep their amount
 * and fee in RESERVED (`isReservationHeld`) and are asked about until the operator answers: paid
 * consumes the reservation (PAYOUT_SUCCESS, `isLateSuccess`, a `payout.late_success` webhook);
 * not paid (a documented decline, or no record of it once none of its requests can still reach
 * the operator, initiation-window.ts) releases it (PAYOUT_RELEASE, a
 * `payout.reservation_released` webhook). The status stays FAILED `TIMEOUT`: FAILED is terminal.
 */
import { and, asc, eq, inArray, isNotNull, lte, sql, type SQL } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { applications, transactionEvents, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { operatorFloatAccount, platformAccount } from '../ledger/accounts.ts';
import { postEntry } from '../ledger/post-entry.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { InitiationState, StatusQuery, StatusResult } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import { insertEventWithDelivery, transactionEventData, type WebhookEventName } from '../webhooks/webhook-events.ts';
import {
  applyTransitionsIn,
  callbackUrlFor,
  type CheckoutAttemptRow,
  computeFee,
  conclusiveStatus,
  creditPayIn,
  creditRefund,
  findRail,
  HELD_PAY_OUT_ASK_MS,
  initiationStateOf,
  nextAskAt,
  postPayOutResolution,
  type RailRow,
  railTermsFor,
  refundedPaymentOf,
  type TransactionRow,
  watchDelayMs,
  withTimeout,
} from '../payments/core.ts';
import { insertRefund } from '../refunds/index.ts';

/** What the operator told us: the rail and number that paid, and its ids. */
export interface LateSuccessReport {
  railCode: string;
  msisdn: string;
  operatorReference: string | null;
  operatorTransactionId?: string | null;
  /** Where it was learnt (POLL, CHECKOUT_ATTEMPT, LATE_WATCH, CALLBACK). */
  origin: string;
  /** The checkout attempt that paid; absent for a charge. */
  attempt?: Pick<CheckoutAttemptRow, 'id' | 'attemptNumber'>;
}

/** What Kolo did with a late success. */
export type LateSuccessDecision = 'REFUND' | 'KEEP';

type LateServices = Pick<Services, 'db' | 'clock' | 'config' | 'ids'>;

/** Failure codes of a charge or attempt that ended without a final answer from the operator. */
const AMBIGUOUS_FAILURES: readonly string[] = ['TIMEOUT', 'PROVIDER_UNAVAILABLE'];

/**
 * Records a late success of the pay-in `transactionId` (of its attempt `report.attempt`, for a
 * checkout) inside `tx` (see the file comment). Returns the decision, or null when there is
 * nothing to record: a charge that is not closed, or a late success already recorded for this
 * charge or attempt (compare-and-set: recorded once, whoever asks).
 */
export async function recordLateSuccess(
  tx: Db,
  services: LateServices & Pick<Services, 'statusListeners'>,
  transactionId: string,
  report: LateSuccessReport,
): Promise<LateSuccessDecision | null> {
  const now = services.clock.now();
  let row: TransactionRow | undefined;
  let isSecondPayment = false;
  if (report.attempt) {
    // Lock order: the transaction row before the attempt (see start-checkout-attempt.ts).
    const [checkout] = await tx.select().from(transactions).where(eq(transactions.id, transactionId)).for('update');
    if (!checkout) throw new Error(`checkout attempt ${report.attempt.id} has no pay-in`);
    const [attempt] = await tx
      .update(checkoutAttempts)
      .set({ isLateSuccess: true, lateWatchUntil: null, nextPollAt: null, operatorTransactionId: report.operatorTransactionId ?? null, updatedAt: now })
      .where(and(eq(checkoutAttempts.id, report.attempt.id), eq(checkoutAttempts.isLateSuccess, false)))
      .returning();
    if (!attempt) return null;
    isSecondPayment = checkout.status === 'SUCCESS' || checkout.status === 'REFUNDED' || (await hasKeptLateSuccess(tx, checkout.id));
    if (!isSecondPayment && checkout.status === 'PENDING' && (await policyOf(tx, checkout.applicationId)) === 'KEEP') {
      return payOpenCheckout(tx, services, checkout, attempt, report);
    }
    [row] = await tx
      .update(transactions)
      .set({
        isLateSuccess: true,
        paymentMethod: sql`coalesce(${transactions.paymentMethod}, ${report.railCode})`,
        payerAccount: sql`coalesce(${transactions.payerAccount}, ${report.msisdn})`,
        updatedAt: now,
      })
      .where(and(eq(transactions.id, transactionId), eq(transactions.direction, 'PAY_IN')))
      .returning();
    if (!row) throw new Error(`checkout attempt ${report.attempt.id} has no pay-in`);
  } else {
    [row] = await tx
      .update(transactions)
      .set({
        isLateSuccess: true,
        lateWatchUntil: null,
        nextPollAt: null,
        paymentMethod: report.railCode,
        payerAccount: report.msisdn,
        operatorReference: report.operatorReference,
        operatorTransactionId: report.operatorTransactionId ?? null,
        updatedAt: now,
      })
      .where(
        and(
          eq(transactions.id, transactionId),
          eq(transactions.direction, 'PAY_IN'),
          eq(transactions.isLateSuccess, false),
          inArray(transactions.status, ['FAILED', 'CANCELLED']),
        ),
      )
      .returning();
    if (!row) return null;
  }
  // One entry of a kind per transaction (ledger_entries_tx_kind_key): a checkout's attempts each
  // get their own kind.
  const suffix = report.attempt ? `_ATTEMPT_${report.attempt.attemptNumber}` : '';
  // A second payment of one checkout is never the merchant's to keep, whatever the policy.
  const decision: LateSuccessDecision = isSecondPayment ? 'REFUND' : await policyOf(tx, row.applicationId);
  await postEntry(tx, {
    kind: `LATE_SUCCESS${suffix}`,
    transactionId: row.id,
    currency: row.currency,
    description: 'Succès tardif : fonds en attente de décision',
    createdAt: now,
    lines: [
      { account: operatorFloatAccount(report.railCode, row.environment, row.currency), amount: row.amount },
      { account: platformAccount('SUSPENSE', row.environment, row.currency), amount: -row.amount },
    ],
  });
  let current = row;
  let refundReference: string | null = null;
  if (decision === 'KEEP') {
    const terms = await railTermsFor(tx, report.railCode, 'PAY_IN', row.applicationId);
    const feeAmount = computeFee(row.amount, terms.rule, 'PAY_IN');
    if (!report.attempt) {
      const [withFee] = await tx.update(transactions).set({ feeAmount }).where(eq(transactions.id, row.id)).returning();
      current = withFee!;
    }
    // An attempt's fee is its own: the checkout's row (maybe paid by another attempt) keeps its fee.
    await creditPayIn(tx, services, { ...current, feeAmount }, `LATE_SUCCESS_KEPT${suffix}`, platformAccount('SUSPENSE', row.environment, row.currency), {
      settlementDelaySeconds: terms.settlementDelaySeconds,
    });
  } else {
    // Initiated by the poller's backstop at once (its first poll is due now).
    const refund = await insertRefund(tx, services, current, {
      funding: 'SUSPENSE',
      amount: row.amount,
      beneficiaryAccount: report.msisdn,
      reason: 'Remboursement automatique d’un paiement reçu après la clôture de la transaction',
      railCode: report.railCode,
      feeRule: null,
      pollAt: now,
    });
    refundReference = refund.row.reference;
  }
  await tx.insert(transactionEvents).values({
    transactionId: row.id,
    fromStatus: row.status,
    toStatus: row.status,
    cause: 'LATE_SUCCESS',
    detail: {
      origin: report.origin,
      rail: report.railCode,
      operatorReference: report.operatorReference,
      operatorTransactionId: report.operatorTransactionId ?? null,
      attemptNumber: report.attempt?.attemptNumber ?? null,
      decision,
      refund: refundReference,
    },
    createdAt: now,
  });
  // Written webhook URL or not (the events API lists it); delivered only with one.
  await insertEventWithDelivery(tx, services, {
    applicationId: row.applicationId,
    environment: row.environment as Environment,
    event: 'payment.late_success',
    data: {
      ...transactionEventData(current, services.config.publicBaseUrl),
      // `lateSuccess` stays the status read's boolean (true here); what Kolo did is beside it.
      latePayment: { decision, refundReference, attemptNumber: report.attempt?.attemptNumber ?? null, operatorTransactionId: report.operatorTransactionId ?? null },
    },
    transactionId: row.id,
  });
  return decision;
}

/** The late-success policy of application `applicationId` (REFUND unless it chose KEEP). */
async function policyOf(tx: Db, applicationId: string): Promise<LateSuccessDecision> {
  const [app] = await tx.select({ policy: applications.lateSuccessPolicy }).from(applications).where(eq(applications.id, applicationId));
  return app?.policy === 'KEEP' ? 'KEEP' : 'REFUND';
}

/** True when a late success of the checkout `transactionId` was already kept by its merchant. */
async function hasKeptLateSuccess(tx: Db, transactionId: string): Promise<boolean> {
  const [kept] = await tx
    .select({ id: transactionEvents.id })
    .from(transactionEvents)
    .where(and(eq(transactionEvents.transactionId, transactionId), eq(transactionEvents.cause, 'LATE_SUCCESS'), sql`${transactionEvents.detail}->>'decision' = 'KEEP'`))
    .limit(1);
  return kept !== undefined;
}

/**
 * A late success of `attempt` while its checkout is still open, under the KEEP policy: the money
 * pays the checkout. The attempt's rail and number become the checkout's and it moves
 * PENDING → SUCCESS through `applyTransitionsIn` (credited from the rail's float like any pay-in,
 * `payment.success`), so a later attempt can no longer pay it a second time.
 */
async function payOpenCheckout(
  tx: Db,
  services: LateServices & Pick<Services, 'statusListeners'>,
  checkout: TransactionRow,
  attempt: CheckoutAttemptRow,
  report: LateSuccessReport,
): Promise<LateSuccessDecision> {
  await tx
    .update(transactions)
    .set({ isLateSuccess: true, paymentMethod: attempt.railCode, payerAccount: attempt.msisdn, initiatedAt: attempt.initiatedAt, updatedAt: services.clock.now() })
    .where(eq(transactions.id, checkout.id));
  await applyTransitionsIn(tx, services, [
    {
      transactionId: checkout.id,
      event: 'MONEY_MOVED',
      cause: 'LATE_SUCCESS',
      operatorReference: report.operatorReference ?? attempt.operatorReference,
      operatorTransactionId: report.operatorTransactionId ?? null,
      detail: { origin: report.origin, rail: attempt.railCode, attemptNumber: attempt.attemptNumber, decision: 'KEEP', refund: null },
    },
  ]);
  return 'KEEP';
}

/** The operator's definitive answer about a pay-out whose reservation is held. */
export type HeldPayOutAnswer =
  | { paid: true; operatorReference: string | null; operatorTransactionId: string | null; origin: string }
  | { paid: false; failureCode: string; failureReason: string; origin: string };

/**
 * Settles the reservation of pay-out `transactionId`, held since it failed at its deadline,
 * inside `tx`: paid consumes it (PAYOUT_SUCCESS; a refund's amount counts as refunded), not paid
 * releases it (PAYOUT_RELEASE); an event and a webhook either way (see the file comment). The
 * status stays FAILED. Returns false when the reservation was not held any more (already settled
 * by another reader: compare-and-set).
 */
export async function settleHeldPayOut(tx: Db, services: LateServices & Pick<Services, 'statusListeners'>, transactionId: string, answer: HeldPayOutAnswer): Promise<boolean> {
  const now = services.clock.now();
  const [row] = await tx
    .update(transactions)
    .set({
      isReservationHeld: false,
      isLateSuccess: answer.paid,
      lateWatchUntil: null,
      nextPollAt: null,
      ...(answer.paid
        ? {
            operatorReference: sql`coalesce(${answer.operatorReference}, ${transactions.operatorReference})`,
            operatorTransactionId: answer.operatorTransactionId,
          }
        : {}),
      updatedAt: now,
    })
    .where(and(eq(transactions.id, transactionId), eq(transactions.direction, 'PAY_OUT'), eq(transactions.isReservationHeld, true)))
    .returning();
  if (!row) return false;
  await postPayOutResolution(tx, services, row, answer.paid);
  // A refund paid late: its amount is refunded after all (the pay-in's refundedAmount).
  if (answer.paid) await creditRefund(tx, services, row);
  await tx.insert(transactionEvents).values({
    transactionId: row.id,
    fromStatus: row.status,
    toStatus: row.status,
    cause: answer.paid ? 'LATE_SUCCESS' : 'RESERVATION_RELEASED',
    failureCode: answer.paid ? null : answer.failureCode,
    detail: answer.paid
      ? { origin: answer.origin, operatorTransactionId: answer.operatorTransactionId, consumed: row.reservedAmount }
      : { origin: answer.origin, failureReason: answer.failureReason, released: row.reservedAmount },
    createdAt: now,
  });
  // Written webhook URL or not (the events API lists it); delivered only with one.
  const event: WebhookEventName = answer.paid ? 'payout.late_success' : 'payout.reservation_released';
  await insertEventWithDelivery(tx, services, {
    applicationId: row.applicationId,
    environment: row.environment as Environment,
    event,
    data: {
      ...transactionEventData(row, services.config.publicBaseUrl),
      reservation: { amount: row.reservedAmount, outcome: answer.paid ? 'CONSUMED' : 'RELEASED' },
    },
    transactionId: row.id,
  });
  return true;
}

/**
 * The held-pay-out answer of a definitive status (`SUCCEEDED`, `FAILED`, `NOT_FOUND`), learnt from
 * `origin`; null for any other (no definitive answer: the reservation stays held). A NOT_FOUND is
 * definitive only for an `UNKNOWN` `initiation` (`conclusiveStatus`): while a request of the
 * pay-out may still reach the operator, its silence releases nothing.
 */
export function heldPayOutAnswer(reported: StatusResult, origin: string, initiation: InitiationState): HeldPayOutAnswer | null {
  const status = conclusiveStatus(reported, initiation);
  switch (status.kind) {
    case 'SUCCEEDED':
      return { paid: true, operatorReference: status.operatorReference, operatorTransactionId: status.operatorTransactionId ?? null, origin };
    case 'FAILED':
      return { paid: false, failureCode: status.failureCode, failureReason: status.failureReason, origin };
    case 'NOT_FOUND':
      return { paid: false, failureCode: 'NOT_FOUND_AT_PROVIDER', failureReason: "L'opérateur n'a aucune trace de ce virement.", origin };
    default:
      return null;
  }
}

/** True for a checkout attempt or charge failure that left the operator's answer unknown. */
export function isAmbiguousFailure(failureCode: string | null): boolean {
  return failureCode !== null && AMBIGUOUS_FAILURES.includes(failureCode);
}

/** How long a callback on a closed pay-in reopens its watch, at least. */
const CALLBACK_WATCH_MS = 3_600_000;

/**
 * An operator callback about a charge or pay-out Kolo closed without a final answer (failed at
 * its deadline): the operator may be reporting money that moved late, possibly after the watch
 * ended. The callback proves nothing (unsigned), so it only makes the watch due now (reopened for
 * at least an hour for a pay-in): the next background run asks the operator, and only its answer
 * counts. Returns true when a watch was (re)opened; false for anything else (settled, declined,
 * already recorded).
 */
export async function reopenLateWatch(services: Pick<Services, 'db' | 'clock'>, transactionId: string): Promise<boolean> {
  const [row] = await services.db.select().from(transactions).where(eq(transactions.id, transactionId)).limit(1);
  if (!row || row.type === 'CHECKOUT') return false;
  const now = services.clock.now();
  if (row.direction === 'PAY_OUT') {
    if (!row.isReservationHeld) return false;
    const due = await services.db
      .update(transactions)
      .set({ nextPollAt: now })
      .where(and(eq(transactions.id, row.id), eq(transactions.isReservationHeld, true)))
      .returning({ id: transactions.id });
    return due.length === 1;
  }
  if (row.isLateSuccess || (row.status !== 'FAILED' && row.status !== 'CANCELLED') || !isAmbiguousFailure(row.failureCode)) return false;
  const until = new Date(now.getTime() + CALLBACK_WATCH_MS);
  const reopened = await services.db
    .update(transactions)
    .set({ lateWatchUntil: row.lateWatchUntil && row.lateWatchUntil > until ? row.lateWatchUntil : until, nextPollAt: now })
    .where(and(eq(transactions.id, row.id), eq(transactions.isLateSuccess, false)))
    .returning({ id: transactions.id });
  return reopened.length === 1;
}

/**
 * The same for a checkout attempt that failed at its deadline (whatever its checkout ended as):
 * its own watch is reopened for at least an hour and made due now. Returns true when reopened.
 */
export async function reopenAttemptWatch(services: Pick<Services, 'db' | 'clock'>, attempt: CheckoutAttemptRow): Promise<boolean> {
  if (attempt.status !== 'FAILED' || attempt.isLateSuccess || !isAmbiguousFailure(attempt.failureCode)) return false;
  const now = services.clock.now();
  const until = new Date(now.getTime() + CALLBACK_WATCH_MS);
  const reopened = await services.db
    .update(checkoutAttempts)
    .set({ lateWatchUntil: attempt.lateWatchUntil && attempt.lateWatchUntil > until ? attempt.lateWatchUntil : until, nextPollAt: now })
    .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.isLateSuccess, false)))
    .returning({ id: checkoutAttempts.id });
  return reopened.length === 1;
}

/** Rows (and, separately, attempts) looked at per run of `watchLateSuccesses`. */
const WATCH_BATCH = 50;

/**
 * Asks the operators again about what ended without their definitive answer, while its watch
 * lasts: charges and pay-outs failed at their deadline, and checkout attempts failed at theirs.
 * A success is recorded as a late success (a pay-out's reservation consumed); a documented
 * decline or an unknown transaction ends the watch (a pay-out's reservation released); no answer
 * reschedules (backoff ≤ 60 s, capped at the watch's end; a held pay-out then hourly, for as long
 * as it takes). Claims rows with `FOR UPDATE SKIP LOCKED` and a lease, like the poller. Returns
 * how many were claimed.
 * `dispatch`, when given, is handed each question with its rail's code and runs it (the poller's
 * operator lanes; a question it never runs is asked again when its lease ends), and the call
 * returns without waiting for the answers; without it, the questions are asked one after another.
 */
export async function watchLateSuccesses(services: Services, dispatch?: (railCode: string, ask: () => Promise<void>) => void): Promise<number> {
  const now = services.clock.now();
  const lease = new Date(now.getTime() + services.config.pollerLeaseMs);
  const rows = (await claimWatched(services.db, transactions, { pollAttempts: sql`${transactions.pollAttempts} + 1` }, now, lease)) as TransactionRow[];
  const attempts = (await claimWatched(services.db, checkoutAttempts, { pollCount: sql`${checkoutAttempts.pollCount} + 1` }, now, lease)) as CheckoutAttemptRow[];
  const watched: Watched[] = [
    ...rows.map((row) => (row.direction === 'PAY_OUT' ? heldPayOutWatch(services, row) : chargeWatch(services, row))),
    ...attempts.map((attempt) => attemptWatch(services, attempt)),
  ];
  const ask = async (subject: Watched) => {
    try {
      await watchOnce(services, subject);
    } catch (error) {
      services.log.error({ err: error, watched: subject.name }, 'late watch failed');
    }
  };
  if (dispatch) for (const subject of watched) dispatch(subject.railCode, () => ask(subject));
  else for (const subject of watched) await ask(subject);
  return watched.length;
}

/**
 * Claims the due watches of `table` (transactions or checkout attempts: at most WATCH_BATCH, whose
 * `late_watch_until` is set and `next_poll_at` passed), skipping rows locked by another instance,
 * and leases them until `lease`, counting the question (`count`: the table's counter, one more).
 * Returns the claimed rows.
 */
async function claimWatched(db: Db, table: typeof transactions | typeof checkoutAttempts, count: Record<string, SQL>, now: Date, lease: Date): Promise<unknown[]> {
  const due = db
    .select({ id: table.id })
    .from(table)
    .where(and(isNotNull(table.lateWatchUntil), lte(table.nextPollAt, now)))
    .orderBy(asc(table.nextPollAt))
    .limit(WATCH_BATCH)
    .for('update', { skipLocked: true });
  return db
    .update(table)
    .set({ nextPollAt: lease, ...count })
    .where(and(inArray(table.id, due), isNotNull(table.lateWatchUntil)))
    .returning();
}

/** What the watch asks about: the request as the operator knows it. */
type Asked = Pick<StatusQuery, 'reference' | 'operatorReference' | 'msisdn' | 'initiatedAt' | 'initiation'> & { railCode: string };

/** A definitive answer of the operator: paid, declined, or no record of it. */
type Definitive = Extract<StatusResult, { kind: 'SUCCEEDED' | 'FAILED' | 'NOT_FOUND' }>;

/**
 * One thing the late watch asks the operator about, claimed for this run: a charge, a checkout
 * attempt or a held pay-out. `watchOnce` asks and then calls exactly one of `settle`, `askAgainAt`
 * or `stop`.
 */
interface Watched {
  /** For the logs: the transaction's reference or the attempt's id. */
  readonly name: string;
  /** The rail asked (the poller's lane). */
  readonly railCode: string;
  /** Times asked, this question included (the claim counted it). */
  readonly asked: number;
  /** The end of the close watch (backoff ≤ 60 s until then). */
  readonly until: Date | null;
  /** A held pay-out is asked about hourly after `until`, for as long as it takes; the others stop. */
  readonly isHeldPayOut: boolean;
  /** The question to ask, or null when there is nothing left to watch. */
  question(): Promise<{ row: TransactionRow; asked: Asked; extra?: (rail: RailRow) => Pick<StatusQuery, 'callbackUrl' | 'statusQueryReference'> } | null>;
  /** Records the operator's definitive answer, learnt from the rail `railCode`. */
  settle(status: Definitive, railCode: string): Promise<void>;
  /** Asks again at `at`, keeping what a PENDING answer asked to remember. */
  askAgainAt(at: Date, status: StatusResult | undefined): Promise<void>;
  /** Ends the watch. */
  stop(): Promise<void>;
}

/**
 * Asks the operator about `watched` once: a definitive answer is settled; no answer (pending,
 * unreachable, or the rail gone) asks again on the schedule (`nextAsk`), or ends the watch when its
 * time is up — except a held pay-out's, which never ends without the operator's answer.
 */
async function watchOnce(services: Services, watched: Watched): Promise<void> {
  const question = await watched.question();
  if (!question) return watched.stop();
  const answer = await askOperator(services, question.row, question.asked, question.extra);
  const status = answer?.status;
  if (answer && status && (status.kind === 'SUCCEEDED' || status.kind === 'FAILED' || status.kind === 'NOT_FOUND')) return watched.settle(status, answer.railCode);
  if (!answer) services.log.warn({ watched: watched.name, rail: question.asked.railCode }, 'rail of a late watch is unavailable');
  const next = watched.until ? nextAsk(services.clock.now(), watched.asked, watched.until, watched.isHeldPayOut, status) : null;
  return next ? watched.askAgainAt(next, status) : watched.stop();
}

/** Asks the rail of `asked` (null: the rail or its connector is gone); the answer is conclusive (`conclusiveStatus`). */
async function askOperator(
  services: Services,
  row: TransactionRow,
  asked: Asked,
  extra: (rail: RailRow) => Pick<StatusQuery, 'callbackUrl' | 'statusQueryReference'> = () => ({}),
): Promise<{ status: StatusResult; railCode: string } | null> {
  const rail = await findRail(services.db, asked.railCode);
  const connector = rail ? resolveConnector(services.connectors, rail.code, row.environment as Environment) : null;
  if (!rail || !connector) return null;
  const query: StatusQuery = {
    direction: row.direction as 'PAY_IN' | 'PAY_OUT',
    reference: asked.reference,
    operatorReference: asked.operatorReference,
    rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
    msisdn: asked.msisdn,
    amount: row.amount,
    initiatedAt: asked.initiatedAt,
    initiation: asked.initiation,
    ...extra(rail),
  };
  const refund = await refundedPaymentOf(services.db, row);
  if (refund) query.refund = refund;
  const status = await withTimeout((signal) => connector.getStatus(query, signal), services.config.connectorTimeoutMs);
  return { status: conclusiveStatus(status, asked.initiation), railCode: rail.code };
}

/**
 * The next question of a watch that got no definitive answer (null: the watch is over), no
 * sooner than the operator asked (`retryAfterMs`).
 */
function nextAsk(now: Date, asked: number, until: Date, isHeldPayOut: boolean, status?: StatusResult): Date | null {
  const retryAfterMs = status?.kind === 'PENDING' ? status.retryAfterMs : undefined;
  if (until <= now) return isHeldPayOut ? nextAskAt(now, HELD_PAY_OUT_ASK_MS, retryAfterMs, null) : null;
  // The claim counted this question; the schedule is indexed from 0.
  return nextAskAt(now, watchDelayMs(Math.max(asked - 1, 0)), retryAfterMs, until);
}

/** The watch of a charge failed at its deadline: paid is a late success; a decline or no record ends it. */
function chargeWatch(services: Services, row: TransactionRow): Watched {
  const stop = async () => {
    await services.db.update(transactions).set({ lateWatchUntil: null, nextPollAt: null }).where(eq(transactions.id, row.id));
  };
  return {
    name: row.reference,
    railCode: row.paymentMethod ?? 'checkout',
    asked: row.pollAttempts,
    until: row.lateWatchUntil,
    isHeldPayOut: false,
    async question() {
      if (row.type === 'CHECKOUT' || !row.paymentMethod || !row.payerAccount || !row.initiatedAt) return null;
      return {
        row,
        asked: {
          reference: row.reference,
          operatorReference: row.operatorReference,
          railCode: row.paymentMethod,
          msisdn: row.payerAccount,
          initiatedAt: row.initiatedAt,
          initiation: initiationStateOf(row, services.clock.now()),
        },
      };
    },
    async settle(status, railCode) {
      if (status.kind !== 'SUCCEEDED') return stop();
      await transaction(services.db, (tx) =>
        recordLateSuccess(tx, services, row.id, {
          railCode,
          msisdn: row.payerAccount!,
          operatorReference: status.operatorReference,
          operatorTransactionId: status.operatorTransactionId ?? null,
          origin: 'LATE_WATCH',
        }),
      );
    },
    async askAgainAt(at) {
      await services.db.update(transactions).set({ nextPollAt: at }).where(and(eq(transactions.id, row.id), isNotNull(transactions.lateWatchUntil)));
    },
    stop,
  };
}

/** The watch of a checkout attempt failed at its deadline, whatever its checkout ended as. */
function attemptWatch(services: Services, attempt: CheckoutAttemptRow): Watched {
  let checkout: TransactionRow | undefined;
  return {
    name: attempt.id,
    railCode: attempt.railCode,
    asked: attempt.pollCount,
    until: attempt.lateWatchUntil,
    isHeldPayOut: false,
    async question() {
      [checkout] = await services.db.select().from(transactions).where(eq(transactions.id, attempt.transactionId)).limit(1);
      if (!checkout || attempt.isLateSuccess) return null;
      return {
        row: checkout,
        asked: {
          reference: attempt.correlationId,
          operatorReference: attempt.operatorReference,
          railCode: attempt.railCode,
          msisdn: attempt.msisdn,
          initiatedAt: attempt.initiatedAt,
          initiation: initiationStateOf(attempt, services.clock.now()),
        },
      };
    },
    async settle(status) {
      if (status.kind !== 'SUCCEEDED') return this.stop();
      await transaction(services.db, (tx) =>
        recordLateSuccess(tx, services, checkout!.id, {
          railCode: attempt.railCode,
          msisdn: attempt.msisdn,
          operatorReference: status.operatorReference,
          operatorTransactionId: status.operatorTransactionId ?? null,
          origin: 'LATE_WATCH',
          attempt,
        }),
      );
    },
    async askAgainAt(at) {
      await services.db
        .update(checkoutAttempts)
        .set({ nextPollAt: at })
        .where(and(eq(checkoutAttempts.id, attempt.id), isNotNull(checkoutAttempts.lateWatchUntil)));
    },
    async stop() {
      await services.db.update(checkoutAttempts).set({ lateWatchUntil: null, nextPollAt: null }).where(eq(checkoutAttempts.id, attempt.id));
    },
  };
}

/**
 * The watch of a pay-out failed at its deadline with its reservation held: paid consumes the
 * reservation, not paid (a decline, or no record once nothing can still land) releases it
 * (`settleHeldPayOut`); without an answer it is asked about for as long as it takes.
 */
function heldPayOutWatch(services: Services, row: TransactionRow): Watched {
  const initiation = initiationStateOf(row, services.clock.now());
  return {
    name: row.reference,
    railCode: row.paymentMethod ?? 'checkout',
    asked: row.pollAttempts,
    until: row.lateWatchUntil,
    isHeldPayOut: true,
    async question() {
      // Not a held pay-out (nothing reserved can move): nothing to watch.
      if (!row.isReservationHeld || !row.paymentMethod || !row.initiatedAt) return null;
      return {
        row,
        asked: {
          reference: row.reference,
          operatorReference: row.operatorReference,
          railCode: row.paymentMethod,
          msisdn: row.beneficiaryAccount ?? '',
          initiatedAt: row.initiatedAt,
          initiation,
        },
        extra: (rail) => ({
          callbackUrl: row.callbackToken ? callbackUrlFor(services, rail.operator, row.callbackToken) : null,
          statusQueryReference: row.statusQueryReference,
          ...(row.floatResends ? { resend: row.floatResends } : {}),
        }),
      };
    },
    async settle(status) {
      const answer = heldPayOutAnswer(status, 'LATE_WATCH', initiation);
      if (answer) await transaction(services.db, (tx) => settleHeldPayOut(tx, services, row.id, answer));
    },
    async askAgainAt(at, status) {
      await services.db
        .update(transactions)
        .set({ nextPollAt: at, ...(status?.kind === 'PENDING' && status.statusQueryReference ? { statusQueryReference: status.statusQueryReference } : {}) })
        .where(and(eq(transactions.id, row.id), eq(transactions.isReservationHeld, true)));
    },
    async stop() {
      await services.db.update(transactions).set({ lateWatchUntil: null, nextPollAt: null }).where(eq(transactions.id, row.id));
    },
  };
}
