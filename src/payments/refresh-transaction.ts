/**
 * The backstop: what the poller does with one claimed PENDING transaction.
 * - A CHECKOUT is handed to `refresh-checkout.ts` (its attempts, its session end).
 * - A transaction whose initiation was never recorded (crash between commit and the operator
 *   call) is initiated again under the same reference (operators deduplicate on it).
 * - Otherwise the rail is asked for the status: SUCCEEDED / FAILED are applied; PENDING and
 *   UNREACHABLE leave it PENDING with the next poll scheduled; NOT_FOUND (the operator has no
 *   record of our reference, so the initiation never reached it) fails with NOT_FOUND_AT_PROVIDER
 *   — only once none of its requests can still reach the operator (`inFlightUntil` passed when
 *   the question is asked, initiation-window.ts); before that it is no answer (PENDING).
 * - Past the rail's deadline an unresolved transaction fails: TIMEOUT, or PROVIDER_UNAVAILABLE
 *   when the rail could not even be asked. Before the deadline an ambiguous outcome is never
 *   recorded as FAILED, and after it the money stays where it is: a pay-out that may have
 *   reached the operator keeps its reservation, and both directions stay watched
 *   (late-success/) until the operator answers.
 */
import type { Services } from '../services.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import { applyTransition, type TransitionInput } from './apply-transition.ts';
import { scheduleNextPolls, type RowForTransition } from '../db/queries/transactions.ts';
import { callbackUrlFor, initiateTransaction, withTimeout } from './initiate-transaction.ts';
import { conclusiveStatus, initiationLeaseEnd, initiationStateOf } from './initiation-window.ts';
import { nextAskAt, nextPollDelayMs } from './poll-schedule.ts';
import { findRail, type RailRow } from './rails.ts';
import { refreshCheckout } from './refresh-checkout.ts';
import { refundedPaymentOf } from './refunded-payment.ts';
import type { TransactionRow } from './transaction-view.ts';

/** What happened to a transaction on this poll. */
export type RefreshOutcome = 'SUCCESS' | 'FAILED' | 'EXPIRED' | 'STILL_PENDING' | 'REINITIATED' | 'SKIPPED';

/**
 * What a refresh decided: a transition to apply (and the outcome it means when it applies), the
 * next poll to schedule, or nothing more to do (the outcome is final: a checkout refreshed by its
 * own backstop, a re-initiation).
 */
export type RefreshDecision =
  | { kind: 'TRANSITION'; input: TransitionInput; outcome: 'SUCCESS' | 'FAILED' }
  | { kind: 'SCHEDULE'; at: Date; statusQueryReference?: string }
  | { kind: 'DONE'; outcome: RefreshOutcome };

/** How a refresh came about. */
export interface RefreshOptions {
  /**
   * The operator itself signalled this transaction (a callback, a Wave webhook): it knows of it,
   * so it is asked at once even when the initiation's answer is not recorded yet.
   */
  prompted?: boolean;
  /** The transaction's rail as the caller just read it (a callback's handler): not read again. */
  rail?: RailRow | null;
  /**
   * The row as the caller just read it for a status change (`TransitionInput.readAs`): a
   * TRANSITION decision carries it.
   */
  readAs?: RowForTransition;
}

/** Refreshes one PENDING transaction `row` (already claimed by the caller). */
export async function refreshTransaction(services: Services, row: TransactionRow, options: RefreshOptions = {}): Promise<RefreshOutcome> {
  const decision = await decideRefresh(services, row, options);
  if (decision.kind === 'DONE') return decision.outcome;
  if (decision.kind === 'SCHEDULE') {
    await scheduleNextPolls(services.db, { polls: [{ id: row.id, at: decision.at, statusQueryReference: decision.statusQueryReference }] });
    return 'STILL_PENDING';
  }
  return (await applyTransition(services, decision.input)) ? decision.outcome : 'SKIPPED';
}

/**
 * Asks the rail about `row` and decides what to do, writing nothing itself except for checkouts
 * (refresh-checkout.ts) and re-initiations: the caller applies the decision, alone
 * (`refreshTransaction`) or batched with others (the poller).
 */
export async function decideRefresh(services: Services, row: TransactionRow, options: RefreshOptions = {}): Promise<RefreshDecision> {
  const decision = await decide(services, row, options);
  // A status change starts from the caller's read of the row, when it gave one.
  return decision.kind === 'TRANSITION' && options.readAs ? { ...decision, input: { ...decision.input, readAs: options.readAs } } : decision;
}

/** `decideRefresh`'s decision before the caller's read of the row (`options.readAs`) is attached to it. */
async function decide(services: Services, row: TransactionRow, options: RefreshOptions): Promise<RefreshDecision> {
  // Checkouts are paid through attempts (one rail and number each, retried until the session
  // ends): their own backstop lives in refresh-checkout.ts.
  if (row.type === 'CHECKOUT') return { kind: 'DONE', outcome: await refreshCheckout(services, row) };
  const now = services.clock.now();
  if (!row.paymentMethod) {
    services.log.error({ reference: row.reference }, 'pending transaction without a rail');
    return { kind: 'SCHEDULE', at: new Date(now.getTime() + 60_000) };
  }
  // Active or not: a rail deactivated after this transaction was accepted must still settle it.
  const rail = options.rail?.code === row.paymentMethod ? options.rail : await findRail(services.db, row.paymentMethod);
  const connector = rail ? resolveConnector(services.connectors, rail.code, row.environment as Environment) : null;
  if (!rail || !connector) {
    services.log.error({ reference: row.reference, rail: row.paymentMethod }, 'rail of a pending transaction is unavailable');
    if (row.deadlineAt && row.deadlineAt <= now) {
      // Same rule as an unreachable operator: ambiguous until the deadline, then FAILED.
      return { kind: 'TRANSITION', outcome: 'FAILED', input: {
        transactionId: row.id,
        event: 'TIMED_OUT',
        cause: 'DEADLINE',
        failureCode: 'PROVIDER_UNAVAILABLE',
        failureReason: "Le moyen de paiement est resté indisponible jusqu'à l'échéance de la transaction.",
        detail: { error: rail ? 'no connector for this rail' : 'rail not found' },
      } };
    }
    let next = new Date(now.getTime() + nextPollDelayMs(row.pollAttempts));
    if (row.deadlineAt && next > row.deadlineAt) next = row.deadlineAt;
    return { kind: 'SCHEDULE', at: next };
  }
  if (!row.initiatedAt) {
    // Never sent (crash before the call, or the operator unreachable while preparing it).
    if (row.deadlineAt && row.deadlineAt <= now) {
      return { kind: 'TRANSITION', outcome: 'FAILED', input: {
        transactionId: row.id,
        event: 'TIMED_OUT',
        cause: 'DEADLINE',
        failureCode: 'PROVIDER_UNAVAILABLE',
        failureReason: "L'opérateur est resté injoignable jusqu'à l'échéance de la transaction.",
      } };
    }
    await initiateTransaction(services, row, rail, connector);
    return { kind: 'DONE', outcome: 'REINITIATED' };
  }
  const sendLeaseEnd = row.inFlightUntil ? initiationLeaseEnd(row.inFlightUntil) : null;
  if (!options.prompted && row.initiationOutcome === null && sendLeaseEnd && now < sendLeaseEnd) {
    // Stored, not yet answered: the initiation may still be on its way (a slow operator, or a
    // crash during the call). Asked now, the operator could have no trace of it yet; ask once the
    // send has surely ended. Not when the operator itself called about it: its callback can
    // overtake the answer to our own request.
    return { kind: 'SCHEDULE', at: sendLeaseEnd };
  }
  const msisdn = (row.direction === 'PAY_IN' ? row.payerAccount : row.beneficiaryAccount) ?? '';
  // Taken before the question: only an answer given after `inFlightUntil` proves it never landed.
  const initiation = initiationStateOf(row, now);
  const refund = await refundedPaymentOf(services.db, row);
  const query = {
    direction: row.direction as 'PAY_IN' | 'PAY_OUT',
    reference: row.reference,
    operatorReference: row.operatorReference,
    rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
    msisdn,
    amount: row.amount,
    initiatedAt: row.initiatedAt,
    initiation,
    callbackUrl: row.callbackToken ? callbackUrlFor(services, rail.operator, row.callbackToken) : null,
    statusQueryReference: row.statusQueryReference,
    ...(row.floatResends ? { resend: row.floatResends } : {}),
    ...(refund ? { refund } : {}),
  };
  const status = conclusiveStatus(await withTimeout((signal) => connector.getStatus(query, signal), services.config.connectorTimeoutMs), initiation);
  switch (status.kind) {
    case 'SUCCEEDED': {
      return { kind: 'TRANSITION', outcome: 'SUCCESS', input: {
        transactionId: row.id,
        event: 'MONEY_MOVED',
        cause: 'POLL',
        operatorReference: status.operatorReference,
        operatorTransactionId: status.operatorTransactionId ?? null,
      } };
    }
    case 'FAILED':
    case 'NOT_FOUND': {
      return { kind: 'TRANSITION', outcome: 'FAILED', input: {
        transactionId: row.id,
        event: 'DECLINED',
        cause: 'POLL',
        failureCode: status.kind === 'FAILED' ? status.failureCode : 'NOT_FOUND_AT_PROVIDER',
        failureReason: status.kind === 'FAILED' ? status.failureReason : "L'opérateur n'a aucune trace de cette transaction.",
      } };
    }
    case 'PENDING':
    case 'UNREACHABLE': {
      const deadline = row.deadlineAt ?? row.expiresAt;
      if (deadline && deadline <= now) {
        const unreachable = status.kind === 'UNREACHABLE';
        return { kind: 'TRANSITION', outcome: 'FAILED', input: {
          transactionId: row.id,
          event: 'TIMED_OUT',
          cause: 'DEADLINE',
          failureCode: unreachable ? 'PROVIDER_UNAVAILABLE' : 'TIMEOUT',
          failureReason: unreachable
            ? "L'opérateur est resté injoignable jusqu'à l'échéance de la transaction."
            : "Aucune réponse définitive de l'opérateur avant l'échéance de la transaction.",
          detail: unreachable ? { error: status.error } : {},
        } };
      }
      if (status.kind === 'UNREACHABLE') {
        services.log.warn({ reference: row.reference, rail: rail.code, error: status.error }, 'rail unreachable; left PENDING');
      }
      const jitter = 0.9 + Math.random() * 0.2;
      const retryAfterMs = status.kind === 'PENDING' ? status.retryAfterMs : undefined;
      const next = nextAskAt(now, nextPollDelayMs(row.pollAttempts) * jitter, retryAfterMs, deadline);
      // An asynchronous query (Daraja): its answer will name this id, kept to recognise it.
      const queried = status.kind === 'PENDING' ? status.statusQueryReference : undefined;
      return { kind: 'SCHEDULE', at: next, ...(queried ? { statusQueryReference: queried } : {}) };
    }
  }
}
