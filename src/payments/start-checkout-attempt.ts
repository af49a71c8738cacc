/**
 * Starts a payment attempt on a PENDING checkout: the customer chose a rail and a number on
 * the hosted page. Persist first, then call the operator: the attempt row and its event commit
 * before the connector is asked, so a crash between the two leaves a row the poller can settle.
 * The operator is given the per-attempt correlation id `<reference>-<n>` (operators deduplicate
 * on it, and a retry with another number must not be taken for a duplicate of the first
 * attempt); the merchant keeps seeing one transaction under one reference.
 *
 * A decline at initiation fails the attempt only: the checkout stays PENDING. So does an
 * initiation Kolo gave up on before its request left (NOT_SENT: nothing can move, the customer may
 * try again). One that may have left stays in flight for the landing bound (initiation-window.ts):
 * until then the operator's "no record of it" does not fail it.
 */
import { and, count, eq } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { sqlStateOf, UNIQUE_VIOLATION } from '../db/statement.ts';
import type { Connector } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import { lockPendingCheckout } from './close-checkout.ts';
import { failAttempt, recordAttemptEvent, type CheckoutAttemptRow } from './checkout-attempt-records.ts';
import { callbackUrlFor, newCallbackToken, withTimeout } from './initiate-transaction.ts';
import { inFlightUntilAfter, sendDeadlineOf } from './initiation-window.ts';
import { nextPollDelayMs } from './poll-schedule.ts';
import type { RailRow } from './rails.ts';
import { checkoutUrl, type TransactionRow } from './transaction-view.ts';

/** What became of the request to start an attempt. */
export type StartAttemptResult =
  /** `redirectUrl`: on a redirect rail (Wave), the operator's page the customer must open now. */
  | { kind: 'STARTED'; attempt: CheckoutAttemptRow; redirectUrl?: string }
  /** The operator refused at once; the attempt is FAILED, the checkout still PENDING. */
  | { kind: 'DECLINED'; attempt: CheckoutAttemptRow }
  /** Another attempt of this checkout is still in flight. */
  | { kind: 'IN_PROGRESS' }
  /** The session's attempt budget (`maxAttempts`) is spent. */
  | { kind: 'TOO_MANY_ATTEMPTS' }
  /** The checkout is no longer PENDING, or its session has ended. */
  | { kind: 'CLOSED' };

/** Input of `startCheckoutAttempt`; `msisdn` is already normalised for the rail's country. */
export interface StartAttemptInput {
  rail: RailRow;
  connector: Connector;
  msisdn: string;
  maxAttempts: number;
}

/** Starts an attempt of `checkout` (a CHECKOUT transaction row). Never throws for operator outcomes. */
export async function startCheckoutAttempt(
  services: Pick<Services, 'db' | 'clock' | 'ids' | 'config' | 'log' | 'statusListeners'>,
  checkout: TransactionRow,
  input: StartAttemptInput,
): Promise<StartAttemptResult> {
  const now = services.clock.now();
  let created: CheckoutAttemptRow | 'TOO_MANY' | 'IN_PROGRESS' | null;
  try {
    created = await transaction(services.db, async (tx) => {
      // The checkout's row lock serialises this start with cancel, expiry and other starts
      // (close-checkout.ts); status, expiry and in-flight attempts are re-checked under it.
      const locked = await lockPendingCheckout(tx, checkout.id, now);
      if (!locked || locked.isExpired) return null;
      if (locked.hasAttemptInFlight) return 'IN_PROGRESS' as const;
      const open = locked.row;
      const [{ n }] = (await tx
        .select({ n: count() })
        .from(checkoutAttempts)
        .where(eq(checkoutAttempts.transactionId, checkout.id))) as [{ n: number }];
      if (n >= input.maxAttempts) return 'TOO_MANY' as const;
      const attemptNumber = Number(n) + 1;
      const [row] = await tx
        .insert(checkoutAttempts)
        .values({
          id: services.ids.uuid(),
          transactionId: checkout.id,
          attemptNumber,
          railCode: input.rail.code,
          msisdn: input.msisdn,
          status: 'PENDING',
          correlationId: `${checkout.reference}-${attemptNumber}`,
          callbackToken: newCallbackToken(services),
          initiatedAt: now,
          deadlineAt: new Date(now.getTime() + input.rail.pendingTimeoutSeconds * 1000),
          // Nobody asks the operator about an attempt before its prepare and initiation calls have returned.
          nextPollAt: new Date(now.getTime() + 2 * services.config.connectorTimeoutMs + 1000),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await recordAttemptEvent(tx, open, 'CHECKOUT_ATTEMPT_STARTED', row!, now);
      return row!;
    });
  } catch (error) {
    if (sqlStateOf(error) === UNIQUE_VIOLATION) return { kind: 'IN_PROGRESS' };
    throw error;
  }
  if (created === null) return { kind: 'CLOSED' };
  if (created === 'TOO_MANY') return { kind: 'TOO_MANY_ATTEMPTS' };
  if (created === 'IN_PROGRESS') return { kind: 'IN_PROGRESS' };
  const attempt = created;

  const request = {
    direction: 'PAY_IN' as const,
    reference: attempt.correlationId,
    rail: { code: input.rail.code, operator: input.rail.operator, country: input.rail.country, currency: input.rail.currency },
    amount: checkout.amount,
    currency: checkout.currency,
    msisdn: attempt.msisdn,
    description: checkout.description,
    initiatedAt: attempt.initiatedAt,
  };
  const prepared = await withTimeout((signal) => input.connector.prepare(request, signal), services.config.connectorTimeoutMs);
  if (prepared.kind !== 'PREPARED') {
    // Nothing that could move money was sent: the attempt fails and the customer may retry.
    const failure =
      prepared.kind === 'FAILED'
        ? { code: prepared.failureCode, reason: prepared.failureReason }
        : { code: 'PROVIDER_UNAVAILABLE', reason: "L'opérateur est injoignable, la demande n'a pas été envoyée." };
    await failAttempt(services, attempt, { ...failure, cause: 'INITIATION' });
    return { kind: 'DECLINED', attempt: { ...attempt, status: 'FAILED', failureCode: failure.code, failureReason: failure.reason } };
  }
  // Persist the operator's id before the call, so a status query can always resolve the attempt,
  // with its send deadline: the call is aborted then at the latest.
  const storedAt = services.clock.now();
  const inFlightUntil = inFlightUntilAfter(new Date(storedAt.getTime() + services.config.connectorTimeoutMs));
  const [stored] = await services.db
    .update(checkoutAttempts)
    .set({
      operatorReference: prepared.operatorReference,
      inFlightUntil,
      nextPollAt: new Date(storedAt.getTime() + services.config.connectorTimeoutMs + 1000),
      updatedAt: storedAt,
    })
    .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')))
    .returning({ id: checkoutAttempts.id });
  if (!stored) return { kind: 'CLOSED' };
  const initiateRequest = {
    ...request,
    operatorReference: prepared.operatorReference,
    callbackUrl: callbackUrlFor(services, input.rail.operator, attempt.callbackToken!),
    // A redirect rail brings the customer back to this hosted page, which shows the live result.
    returnUrl: checkout.checkoutToken ? checkoutUrl(services.config.publicBaseUrl, checkout.checkoutToken) : null,
  };
  const budgetMs = Math.min(services.config.connectorTimeoutMs, sendDeadlineOf(inFlightUntil).getTime() - services.clock.now().getTime());
  const result = await withTimeout((signal) => input.connector.initiate(initiateRequest, signal), budgetMs);
  if (result.kind === 'FAILED' || result.kind === 'NOT_SENT') {
    // NOT_SENT: abandoned before the request left (a slow token or pre-check): nothing can move.
    const failure =
      result.kind === 'FAILED'
        ? { code: result.failureCode, reason: result.failureReason }
        : { code: 'PROVIDER_UNAVAILABLE', reason: "L'opérateur a tardé à répondre, la demande n'a pas été envoyée." };
    await failAttempt(services, attempt, { ...failure, cause: 'INITIATION' });
    return { kind: 'DECLINED', attempt: { ...attempt, status: 'FAILED', failureCode: failure.code, failureReason: failure.reason } };
  }
  if (result.kind === 'UNREACHABLE') {
    // Ambiguous: the request may have landed. Status queries decide (NOT_FOUND fails the attempt).
    services.log.warn({ reference: checkout.reference, attempt: attempt.attemptNumber, rail: input.rail.code }, 'operator unreachable at checkout attempt');
  }
  const after = services.clock.now();
  const nextPollAt = new Date(after.getTime() + nextPollDelayMs(0));
  await transaction(services.db, async (tx) => {
    // Lock order: the checkout's transaction row first, then its attempt, as every writer of
    // both does (a new attempt's insert waits on this attempt's row; the reverse order deadlocks).
    await tx
      .update(transactions)
      .set({ nextPollAt })
      .where(and(eq(transactions.id, checkout.id), eq(transactions.status, 'PENDING')));
    await tx
      .update(checkoutAttempts)
      .set({
        operatorReference: result.kind === 'ACCEPTED' ? (result.operatorReference ?? prepared.operatorReference) : prepared.operatorReference,
        initiationOutcome: result.kind === 'ACCEPTED' ? 'ACCEPTED' : 'UNKNOWN',
        // Acknowledged: nothing is on its way. Ambiguous: the call ended now, and its request may
        // still reach the operator for the landing bound.
        inFlightUntil: result.kind === 'ACCEPTED' ? null : inFlightUntilAfter(after),
        ...(result.kind === 'ACCEPTED' && result.redirectUrl ? { redirectUrl: result.redirectUrl } : {}),
        nextPollAt,
        updatedAt: after,
      })
      .where(and(eq(checkoutAttempts.id, attempt.id), eq(checkoutAttempts.status, 'PENDING')));
  });
  const redirectUrl = result.kind === 'ACCEPTED' ? result.redirectUrl : undefined;
  return { kind: 'STARTED', attempt: { ...attempt, nextPollAt }, ...(redirectUrl ? { redirectUrl } : {}) };
}
