/**
 * The backstop: what the poller does with one claimed PENDING transaction.
 * - A CHECKOUT is handed to `refresh-checkout.ts` (its attempts, its session end).
 * - A transaction whose initiation was never recorded (crash between commit and the operator
 *   call) is initiated again under the same reference (operators deduplicate on it).
 * - Otherwise the rail is asked for the status: SUCCEEDED / FAILED are applied; PENDING and
 *   UNREACHABLE leave it PENDING with the next poll scheduled; NOT_FOUND means the initiation
 *   never landed (operators.md §7.2) and fails with NOT_FOUND_AT_PROVIDER.
 * - Past the rail's deadline an unresolved transaction fails: TIMEOUT, or PROVIDER_UNAVAILABLE
 *   when the rail could not even be asked. Before the deadline an ambiguous outcome is never
 *   recorded as FAILED.
 */
import { and, eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import type { Services } from '../services.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import { applyTransition } from './apply-transition.ts';
import { callbackUrlFor, initiateTransaction, withTimeout } from './initiate-transaction.ts';
import { nextPollDelayMs } from './poll-schedule.ts';
import { findRail } from './rails.ts';
import { refreshCheckout } from './refresh-checkout.ts';
import type { TransactionRow } from './transaction-view.ts';

/** What happened to a transaction on this poll. */
export type RefreshOutcome = 'SUCCESS' | 'FAILED' | 'EXPIRED' | 'STILL_PENDING' | 'REINITIATED' | 'SKIPPED';

/** Refreshes one PENDING transaction `row` (already claimed by the caller). */
export async function refreshTransaction(services: Services, row: TransactionRow): Promise<RefreshOutcome> {
  // Checkouts are paid through attempts (one rail and number each, retried until the session
  // ends): their own backstop lives in refresh-checkout.ts.
  if (row.type === 'CHECKOUT') return refreshCheckout(services, row);
  const now = services.clock.now();
  if (!row.paymentMethod) {
    services.log.error({ reference: row.reference }, 'pending transaction without a rail');
    await schedule(services, row, new Date(now.getTime() + 60_000));
    return 'STILL_PENDING';
  }
  // Active or not: a rail deactivated after this transaction was accepted must still settle it.
  const rail = await findRail(services.db, row.paymentMethod);
  const connector = rail ? resolveConnector(services.connectors, rail.code, row.environment as Environment) : null;
  if (!rail || !connector) {
    services.log.error({ reference: row.reference, rail: row.paymentMethod }, 'rail of a pending transaction is unavailable');
    if (row.deadlineAt && row.deadlineAt <= now) {
      // Same rule as an unreachable operator: ambiguous until the deadline, then FAILED.
      const done = await applyTransition(services, {
        transactionId: row.id,
        event: 'TIMED_OUT',
        cause: 'DEADLINE',
        failureCode: 'PROVIDER_UNAVAILABLE',
        failureReason: "Le moyen de paiement est resté indisponible jusqu'à l'échéance de la transaction.",
        detail: { error: rail ? 'no connector for this rail' : 'rail not found' },
      });
      return done ? 'FAILED' : 'SKIPPED';
    }
    let next = new Date(now.getTime() + nextPollDelayMs(row.pollAttempts));
    if (row.deadlineAt && next > row.deadlineAt) next = row.deadlineAt;
    await schedule(services, row, next);
    return 'STILL_PENDING';
  }
  if (!row.initiatedAt) {
    // Never sent (crash before the call, or the operator unreachable while preparing it).
    if (row.deadlineAt && row.deadlineAt <= now) {
      const done = await applyTransition(services, {
        transactionId: row.id,
        event: 'TIMED_OUT',
        cause: 'DEADLINE',
        failureCode: 'PROVIDER_UNAVAILABLE',
        failureReason: "L'opérateur est resté injoignable jusqu'à l'échéance de la transaction.",
      });
      return done ? 'FAILED' : 'SKIPPED';
    }
    await initiateTransaction(services, row, rail, connector);
    return 'REINITIATED';
  }
  const msisdn = (row.direction === 'PAY_IN' ? row.payerAccount : row.beneficiaryAccount) ?? '';
  const status = await withTimeout(
    connector.getStatus({
      direction: row.direction as 'PAY_IN' | 'PAY_OUT',
      reference: row.reference,
      operatorReference: row.operatorReference,
      rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
      msisdn,
      amount: row.amount,
      initiatedAt: row.initiatedAt,
      initiation: row.initiationOutcome === 'ACCEPTED' ? 'ACCEPTED' : 'UNKNOWN',
      callbackUrl: row.callbackToken ? callbackUrlFor(services, rail.operator, row.callbackToken) : null,
    }),
    services.config.connectorTimeoutMs,
  );
  switch (status.kind) {
    case 'SUCCEEDED': {
      const done = await applyTransition(services, {
        transactionId: row.id,
        event: 'MONEY_MOVED',
        cause: 'POLL',
        operatorReference: status.operatorReference,
      });
      return done ? 'SUCCESS' : 'SKIPPED';
    }
    case 'FAILED':
    case 'NOT_FOUND': {
      const done = await applyTransition(services, {
        transactionId: row.id,
        event: 'DECLINED',
        cause: 'POLL',
        failureCode: status.kind === 'FAILED' ? status.failureCode : 'NOT_FOUND_AT_PROVIDER',
        failureReason: status.kind === 'FAILED' ? status.failureReason : "L'opérateur n'a aucune trace de cette transaction.",
      });
      return done ? 'FAILED' : 'SKIPPED';
    }
    case 'PENDING':
    case 'UNREACHABLE': {
      const deadline = row.deadlineAt ?? row.expiresAt;
      if (deadline && deadline <= now) {
        const unreachable = status.kind === 'UNREACHABLE';
        const done = await applyTransition(services, {
          transactionId: row.id,
          event: 'TIMED_OUT',
          cause: 'DEADLINE',
          failureCode: unreachable ? 'PROVIDER_UNAVAILABLE' : 'TIMEOUT',
          failureReason: unreachable
            ? "L'opérateur est resté injoignable jusqu'à l'échéance de la transaction."
            : "Aucune réponse définitive de l'opérateur avant l'échéance de la transaction.",
          detail: unreachable ? { error: status.error } : {},
        });
        return done ? 'FAILED' : 'SKIPPED';
      }
      if (status.kind === 'UNREACHABLE') {
        services.log.warn({ reference: row.reference, rail: rail.code, error: status.error }, 'rail unreachable; left PENDING');
      }
      const jitter = 0.9 + Math.random() * 0.2;
      let next = new Date(now.getTime() + nextPollDelayMs(row.pollAttempts) * jitter);
      if (deadline && next > deadline) next = deadline;
      await schedule(services, row, next);
      return 'STILL_PENDING';
    }
  }
}

async function schedule(services: Pick<Services, 'db'>, row: TransactionRow, at: Date): Promise<void> {
  await services.db
    .update(transactions)
    .set({ nextPollAt: at })
    .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')));
}
