/**
 * An operator callback (MTN `X-Callback-Url`, Orange `notifUrl`, Daraja `CallBackURL` /
 * `ResultURL`): a hint, never proof (these operators sign nothing). No callback body moves money by
 * itself. The per-transaction token in the URL path finds the transaction or checkout attempt; a
 * callback triggers a fresh status query at the operator, whose answer goes through the usual
 * compare-and-set transitions. The body is read only by connectors with `readCallback` (Daraja,
 * whose answers come only by callback): an STK callback may name the CheckoutRequestID we never
 * received (then queried with it); a Result is applied only when the connector vouches for it (it
 * carries the ConversationID Daraja answered Kolo alone), and a failure that would release a
 * pay-out's reserved money only when it answers Kolo's own status query — any other failure Result
 * is recorded in the transaction's history (`FAILURE_REPORTED`: the operator's code and words) and
 * triggers that query instead, whose answer is read with it (`StatusQuery.reportedFailure`), so
 * the failure it confirms keeps the cause the operator gave even when the answer names none. The
 * answer to Kolo's own status query that gives no verdict changes nothing and asks nothing: the
 * next question is already scheduled, and asking again at each answer would have each answer ask
 * again, without end.
 * Unknown tokens, another operator's path, or a transaction already settled change nothing —
 * except what closed without the operator's definitive answer (a charge or pay-out failed at its
 * deadline, a checkout attempt failed at its own): its watch is made due now (late-success/),
 * and the watch's status query decides.
 */
import { and, desc, eq } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import { FAILURE_CODES, type CallbackReading, type Connector, type FailureCode, type ReportedFailure, type StatusQuery, type StatusResult } from '../connectors/connector.ts';
import { applyTransition } from './apply-transition.ts';
import { transactionEvents, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { callbackSegmentOf } from '../connectors/operators.ts';
import { findRail } from './rails.ts';
import { transactionByCallbackToken, type RowForTransition } from '../db/queries/transactions.ts';
import { refreshAttempt } from './refresh-checkout.ts';
import { refreshTransaction } from './refresh-transaction.ts';
import { heldPayOutAnswer, reopenAttemptWatch, reopenLateWatch, settleHeldPayOut } from '../late-success/index.ts';
import { initiationStateOf } from './initiation-window.ts';
import type { TransactionRow } from './transaction-view.ts';

/**
 * What a callback led to (for logs and tests; the operator always gets 200). `INCONCLUSIVE`: the
 * answer to Kolo's own status query, without a verdict: nothing changed, nothing asked.
 * `IGNORED`: the connector found the body is not its operator's (`Connector.callbackProblem`,
 * Orange Web Payment's `notif_token`): nothing changed, nothing asked.
 */
export type CallbackOutcome = 'UNKNOWN_TOKEN' | 'ALREADY_SETTLED' | 'QUERIED' | 'APPLIED' | 'INCONCLUSIVE' | 'IGNORED';

/** Shape of a callback token (hex, see `newCallbackToken`); anything else is unknown at once. */
const TOKEN_SHAPE = /^[0-9a-f]{16,128}$/;

/**
 * Cause of the history event recording a failure that a vouched-for Result reported but that
 * cannot be applied yet (a pay-out's, until Kolo's status query confirms it): the status does
 * not change; `failureCode` is the connector's reading, `detail.failureReason` the operator's words.
 */
const FAILURE_REPORTED = 'FAILURE_REPORTED';

/** The failure last recorded as reported for `transactionId` (`FAILURE_REPORTED`), or null. */
async function reportedFailureOf(db: Db, transactionId: string): Promise<ReportedFailure | null> {
  const [event] = await db
    .select({ failureCode: transactionEvents.failureCode, detail: transactionEvents.detail })
    .from(transactionEvents)
    .where(and(eq(transactionEvents.transactionId, transactionId), eq(transactionEvents.cause, FAILURE_REPORTED)))
    .orderBy(desc(transactionEvents.id))
    .limit(1);
  const failureReason = (event?.detail as { failureReason?: unknown } | null | undefined)?.failureReason;
  if (!event || typeof failureReason !== 'string' || !FAILURE_CODES.includes(event.failureCode as FailureCode)) return null;
  return { failureCode: event.failureCode as FailureCode, failureReason };
}

/**
 * Records in `row`'s history the failure a vouched-for Result reported (its status unchanged),
 * unless it is the one already recorded (Daraja may send a Result twice).
 */
async function recordReportedFailure(services: Services, row: TransactionRow, failure: Extract<StatusResult, { kind: 'FAILED' }>): Promise<void> {
  const last = await reportedFailureOf(services.db, row.id);
  if (last?.failureCode === failure.failureCode && last.failureReason === failure.failureReason) return;
  await services.db.insert(transactionEvents).values({
    transactionId: row.id,
    fromStatus: row.status,
    toStatus: row.status,
    cause: FAILURE_REPORTED,
    failureCode: failure.failureCode,
    detail: { origin: 'CALLBACK', failureReason: failure.failureReason },
    createdAt: services.clock.now(),
  });
}

/**
 * The status query a transaction's callback is read against at `now`, with the failure its
 * operator reported, recorded (`FAILURE_REPORTED`), when an asynchronous status query's answer is
 * awaited.
 */
async function queryOf(
  db: Db,
  row: TransactionRow,
  rail: { code: string; operator: string; country: string; currency: string },
  initiatedAt: Date,
  now: Date,
): Promise<StatusQuery> {
  return {
    direction: row.direction as 'PAY_IN' | 'PAY_OUT',
    reference: row.reference,
    operatorReference: row.operatorReference,
    initiation: initiationStateOf(row, now),
    rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
    msisdn: (row.direction === 'PAY_IN' ? row.payerAccount : row.beneficiaryAccount) ?? '',
    amount: row.amount,
    initiatedAt,
    statusQueryReference: row.statusQueryReference,
    ...(row.floatResends ? { resend: row.floatResends } : {}),
    reportedFailure: row.statusQueryReference ? await reportedFailureOf(db, row.id) : null,
  };
}

/**
 * Whether a vouched-for Result may be applied as it is: a success always (the money moved; the
 * operator alone could name the request), a failure of a pay-in (nothing reserved is released),
 * and a failure of a pay-out only as the answer to Kolo's own status query.
 */
function isApplicable(reading: Extract<CallbackReading, { kind: 'RESULT' }>, direction: string): boolean {
  if (reading.status.kind === 'SUCCEEDED') return true;
  if (reading.status.kind !== 'FAILED') return false;
  return direction === 'PAY_IN' || reading.isStatusQueryAnswer;
}

/**
 * True when `connector` finds `body` is not its operator's callback for the initiation named
 * `operatorReference` (`Connector.callbackProblem`); logged with `reference`.
 */
async function isForged(services: Services, connector: Connector | null, body: unknown, operatorReference: string | null, reference: string): Promise<boolean> {
  const problem = connector?.callbackProblem ? await connector.callbackProblem(body, operatorReference) : null;
  if (problem) services.log.warn({ reference, problem }, 'operator callback ignored');
  return problem !== null;
}

/** Handles a callback on `/api/v1/callbacks/<operatorPath>/<token>`. Never throws for bad input. */
export async function handleOperatorCallback(services: Services, operatorPath: string, token: string, body?: unknown): Promise<CallbackOutcome> {
  if (!TOKEN_SHAPE.test(token)) return 'UNKNOWN_TOKEN';
  const found = await transactionByCallbackToken(services.db, token);
  if (found) {
    const { row, rail } = found;
    // The row as read here, for a status change that follows (not read again unless it moved).
    let readAs: RowForTransition | undefined = found.forTransition;
    if (!rail || callbackSegmentOf(rail.operator) !== operatorPath) return 'UNKNOWN_TOKEN';
    const connector = resolveConnector(services.connectors, rail.code, row.environment as Environment);
    if (await isForged(services, connector, body, row.operatorReference, row.reference)) return 'IGNORED';
    // Read only where it can matter: a request still in flight, or a pay-out whose reservation is held.
    const isOpen = row.status === 'PENDING' || row.isReservationHeld;
    const query = isOpen && row.initiatedAt ? await queryOf(services.db, row, rail, row.initiatedAt, services.clock.now()) : null;
    const reading = query && connector?.readCallback ? connector.readCallback(body, query) : null;
    if (row.status !== 'PENDING') {
      // A pay-out whose reservation is held: a vouched-for answer settles it; anything else
      // makes its watch ask the operator now (a failure it reported is kept for that answer).
      const answer =
        query && row.isReservationHeld && reading?.kind === 'RESULT' && isApplicable(reading, row.direction)
          ? heldPayOutAnswer(reading.status, 'CALLBACK', query.initiation)
          : null;
      if (answer) {
        const settled = await transaction(services.db, (tx) => settleHeldPayOut(tx, services, row.id, answer));
        return settled ? 'APPLIED' : 'ALREADY_SETTLED';
      }
      if (row.isReservationHeld && reading?.kind === 'RESULT' && reading.status.kind === 'FAILED') await recordReportedFailure(services, row, reading.status);
      // The watch's own question answered without a verdict: the watch asks again when due.
      if (reading?.kind === 'RESULT' && reading.isStatusQueryAnswer) return 'INCONCLUSIVE';
      return (await reopenLateWatch(services, row.id)) ? 'QUERIED' : 'ALREADY_SETTLED';
    }
    if (reading?.kind === 'RESULT') {
      const status = reading.status;
      if (isApplicable(reading, row.direction)) {
        if (status.kind === 'SUCCEEDED') {
          await applyTransition(services, {
            transactionId: row.id,
            event: 'MONEY_MOVED',
            cause: 'CALLBACK',
            operatorReference: status.operatorReference,
            operatorTransactionId: status.operatorTransactionId ?? null,
            readAs,
          });
        } else if (status.kind === 'FAILED') {
          await applyTransition(services, {
            transactionId: row.id,
            event: 'DECLINED',
            cause: 'CALLBACK',
            failureCode: status.failureCode,
            failureReason: status.failureReason,
            readAs,
          });
        }
        return 'APPLIED';
      }
      // Kolo's own question answered without a verdict: the next poll asks again.
      if (reading.isStatusQueryAnswer) return 'INCONCLUSIVE';
      // A failure that would release reserved money: confirmed by a status query first, whose
      // answer is read with the cause reported here.
      if (status.kind === 'FAILED') await recordReportedFailure(services, row, status);
    } else if (reading?.kind === 'QUERY' && reading.operatorReference) {
      // The operator's id for a request whose answer we never got: recorded, then queried.
      await services.db
        .update(transactions)
        .set({ operatorReference: reading.operatorReference })
        .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')));
      row.operatorReference = reading.operatorReference;
      readAs = undefined;
    }
    await refreshTransaction(services, row, { prompted: true, rail, readAs });
    return 'QUERIED';
  }
  const [attempt] = await services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.callbackToken, token)).limit(1);
  if (!attempt) return 'UNKNOWN_TOKEN';
  const rail = await findRail(services.db, attempt.railCode);
  if (!rail || callbackSegmentOf(rail.operator) !== operatorPath) return 'UNKNOWN_TOKEN';
  const [owner] = await services.db.select({ environment: transactions.environment }).from(transactions).where(eq(transactions.id, attempt.transactionId)).limit(1);
  const connector = owner ? resolveConnector(services.connectors, rail.code, owner.environment as Environment) : null;
  if (await isForged(services, connector, body, attempt.operatorReference, attempt.correlationId)) return 'IGNORED';
  if (attempt.status !== 'PENDING') return (await reopenAttemptWatch(services, attempt)) ? 'QUERIED' : 'ALREADY_SETTLED';
  if (connector?.readCallback && attempt.initiatedAt) {
    const reading = connector.readCallback(body, {
      direction: 'PAY_IN',
      reference: attempt.correlationId,
      operatorReference: attempt.operatorReference,
      initiation: initiationStateOf(attempt, services.clock.now()),
      rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
      msisdn: attempt.msisdn,
      amount: 0,
      initiatedAt: attempt.initiatedAt,
    });
    if (reading.kind === 'QUERY' && reading.operatorReference) {
      await services.db
        .update(checkoutAttempts)
        .set({ operatorReference: reading.operatorReference })
        .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')));
      attempt.operatorReference = reading.operatorReference;
    }
  }
  // Whatever its checkout's state: a request that reached the operator is always resolved.
  await refreshAttempt(services, attempt);
  return 'QUERIED';
}
