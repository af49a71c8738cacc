/**
 * Starts a committed PENDING transaction at its rail (persist first, then call the operator: a
 * crash between the two leaves a row the poller can settle), in three steps:
 * 1. the connector prepares the operator-side id (MTN `X-Reference-Id`, Orange `payToken`;
 *    nothing that can move money);
 * 2. that id and a fresh callback token are stored, with `initiatedAt`, the rail's deadline and
 *    `inFlightUntil` (the send deadline plus the landing bound, initiation-window.ts), before
 *    anything else: from then on a crash or timeout is resolved by a status query with the same
 *    id, and the initiation is never sent again under another id while it may have left;
 * 3. the initiation is sent, aborted at its send deadline at the latest. ACCEPTED → poll from now
 *    on, until the rail's deadline; FAILED → the transaction fails with the operator's failure
 *    code; UNREACHABLE → ambiguous, so it stays PENDING, in flight for the landing bound, and the
 *    poller's status query decides; NOT_SENT (Kolo gave up before the request left: a slow
 *    pre-check or token) → nothing can move, so the stored initiation is forgotten and the
 *    poller prepares and sends it again.
 * When step 1 cannot reach the operator nothing was sent: the poller prepares again later.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { transactionEvents, transactions } from '../db/schema.ts';
import type { Connector, FailureCode, InitiateRequest, PrepareRequest, RefundedPayment } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import { callbackSegmentOf } from '../connectors/operators.ts';
import { recordInitiation, storeInitiation } from '../db/queries/transactions.ts';
import { applyTransition } from './apply-transition.ts';
import type { RailRow } from './rails.ts';
import type { TransactionRow } from './transaction-view.ts';
import { nextPollDelayMs } from './poll-schedule.ts';
import { transaction } from '../db/client.ts';
import { inFlightUntilAfter, sendDeadlineOf } from './initiation-window.ts';
import { mustWaitForFloat, queueForFloat } from './float-queue.ts';
import { refundedPaymentOf } from './refunded-payment.ts';
import { isPayOutHeld } from '../rails/index.ts';

/** Bytes of randomness in a callback token (hex in the URL path). */
const CALLBACK_TOKEN_BYTES = 24;

/** A fresh, unguessable callback token (the operators sign nothing: the path is the secret). */
export function newCallbackToken(services: Pick<Services, 'ids'>): string {
  return services.ids.hex(CALLBACK_TOKEN_BYTES);
}

/**
 * The URL an operator calls back for `token`: `<CALLBACK_BASE_URL>/api/v1/callbacks/<segment>/<token>`,
 * the segment of the rail's `operator` code from the operator registry (`callbackSegmentOf`).
 */
export function callbackUrlFor(services: Pick<Services, 'config'>, operator: string, token: string): string {
  return `${services.config.callbackBaseUrl}/api/v1/callbacks/${callbackSegmentOf(operator)}/${token}`;
}

/** What an initiation gives the caller: the operator's page to send the customer to (redirect rails). */
export interface Initiated {
  redirectUrl?: string;
}

/** What `initiateTransaction` reads of a transaction. */
export type InitiationRow = Pick<
  TransactionRow,
  'id' | 'reference' | 'direction' | 'payerAccount' | 'beneficiaryAccount' | 'amount' | 'currency' | 'description' | 'deadlineAt'
> &
  Partial<Pick<TransactionRow, 'floatResends' | 'environment' | 'type' | 'fundingSource' | 'refundOf'>>;

/**
 * Steps 1–2 already done by the creator, in the creating write: the prepared operator id, the
 * callback token, `initiatedAt`, the deadline and `inFlightUntil` (whose send deadline bounds the
 * initiation's call) are stored with the transaction itself.
 */
export interface StoredInitiation {
  operatorReference: string;
  callbackToken: string;
  initiatedAt: Date;
  deadlineAt: Date;
  inFlightUntil: Date;
}

/**
 * `inFlightUntil` of an initiation stored at `storedAt`: its call is aborted one connector timeout
 * later at the latest (`sendInitiation`), then the landing bound.
 */
function storedInFlightUntil(services: Pick<Services, 'config'>, storedAt: Date): Date {
  return inFlightUntilAfter(new Date(storedAt.getTime() + services.config.connectorTimeoutMs));
}

function prepareRequestFor(row: InitiationRow, rail: RailRow, initiatedAt: Date, refund?: RefundedPayment): PrepareRequest {
  const msisdn = row.direction === 'PAY_IN' ? row.payerAccount : row.beneficiaryAccount;
  if (!msisdn) throw new Error(`transaction ${row.reference} has no account to initiate`);
  return {
    direction: row.direction as 'PAY_IN' | 'PAY_OUT',
    reference: row.reference,
    rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
    amount: row.amount,
    currency: row.currency,
    msisdn,
    description: row.description,
    initiatedAt,
    ...(row.floatResends ? { resend: row.floatResends } : {}),
    ...(refund ? { refund } : {}),
  };
}

/**
 * Steps 1–2 before the transaction exists, for connectors that prepare without a network call
 * (`Connector.preparesLocally`): returns what the creator stores in the same write as the
 * transaction, or null (the connector does not prepare locally, or refused: the creator then
 * inserts first and `initiateTransaction` runs all three steps, declining it as usual).
 */
export async function prepareBeforeInsert(
  services: Pick<Services, 'clock' | 'ids' | 'config'>,
  row: InitiationRow,
  rail: RailRow,
  connector: Connector,
): Promise<StoredInitiation | null> {
  if (!connector.preparesLocally) return null;
  const initiatedAt = services.clock.now();
  const request = prepareRequestFor(row, rail, initiatedAt);
  const prepared = await withTimeout((signal) => connector.prepare(request, signal), services.config.connectorTimeoutMs);
  if (prepared.kind !== 'PREPARED') return null;
  return {
    operatorReference: prepared.operatorReference,
    callbackToken: newCallbackToken(services),
    initiatedAt,
    deadlineAt: row.deadlineAt ?? new Date(initiatedAt.getTime() + rail.pendingTimeoutSeconds * 1000),
    inFlightUntil: storedInFlightUntil(services, initiatedAt),
  };
}

/**
 * The first poll of an initiation stored at `initiatedAt`, written with it: the usual first delay
 * (`nextPollDelayMs(0)`, 2 s). The answer's record then leaves `next_poll_at` alone; should the
 * answer still be missing at that poll, the poller waits until `initiationLeaseEnd`
 * (`decideRefresh`).
 */
export function firstPollAt(initiatedAt: Date): Date {
  return new Date(initiatedAt.getTime() + nextPollDelayMs(0));
}

/**
 * Initiates `row` on `rail` through `connector`. Never throws for operator outcomes. With
 * `stored`, steps 1–2 were done in the creating write (`prepareBeforeInsert`). A LIVE pay-out
 * the rail's float cannot cover, or on a rail DELAYED or CLOSED for pay-outs
 * (`rails/availability.ts`), is queued instead, nothing sent (float-queue.ts), unless
 * `options.isReleasedFromQueue` (the float job took it out of the queue, float and availability
 * checked).
 */
export async function initiateTransaction(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'log' | 'statusListeners' | 'ids'>,
  row: InitiationRow,
  rail: RailRow,
  connector: Connector,
  stored?: StoredInitiation | null,
  options: { isReleasedFromQueue?: boolean } = {},
): Promise<Initiated> {
  if (stored) return sendInitiation(services, row, rail, connector, stored);
  if (!options.isReleasedFromQueue) {
    // A LIVE pay-out on a rail DELAYED or CLOSED for pay-outs waits, like one short of float.
    const isHeld = row.direction === 'PAY_OUT' && row.environment === 'LIVE' && (await isPayOutHeld(services, rail.code));
    if (isHeld || (await mustWaitForFloat(services.db, row, rail.code))) {
      await queueForFloat(services, row, rail.code, isHeld ? 'RAIL_AVAILABILITY' : 'FLOAT');
      return {};
    }
  }
  const initiatedAt = services.clock.now();
  const request = prepareRequestFor(row, rail, initiatedAt, await refundedPaymentOf(services.db, row));
  const deadlineAt = row.deadlineAt ?? new Date(initiatedAt.getTime() + rail.pendingTimeoutSeconds * 1000);
  const prepared = await withTimeout((signal) => connector.prepare(request, signal), services.config.connectorTimeoutMs);
  if (prepared.kind === 'FAILED') {
    await decline(services, row, prepared.failureCode, prepared.failureReason);
    return {};
  }
  if (prepared.kind === 'UNREACHABLE') {
    const now = services.clock.now();
    await transaction(services.db, async (tx) => {
      await tx
        .update(transactions)
        .set({ deadlineAt, nextPollAt: new Date(now.getTime() + nextPollDelayMs(0)), updatedAt: now })
        .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING'), isNull(transactions.initiatedAt)));
      await tx.insert(transactionEvents).values({
        transactionId: row.id,
        fromStatus: 'PENDING',
        toStatus: 'PENDING',
        cause: 'INITIATION_UNREACHABLE',
        detail: { rail: rail.code, step: 'prepare', error: prepared.error },
        createdAt: now,
      });
    });
    services.log.warn({ reference: row.reference, rail: rail.code }, 'operator unreachable before initiation; nothing sent, will retry');
    return {};
  }
  const callbackToken = newCallbackToken(services);
  // Persist before the call, with its send deadline: the call is aborted then at the latest, and
  // nobody asks the operator about it before it has returned.
  const inFlightUntil = storedInFlightUntil(services, services.clock.now());
  const isStored = await storeInitiation(services.db, {
    id: row.id,
    operatorReference: prepared.operatorReference,
    callbackToken,
    initiatedAt,
    inFlightUntil,
    deadlineAt,
    nextPollAt: firstPollAt(initiatedAt),
  });
  if (!isStored) return {}; // another caller initiated it, or it ended meanwhile
  return sendInitiation(services, row, rail, connector, { operatorReference: prepared.operatorReference, callbackToken, initiatedAt, deadlineAt, inFlightUntil });
}

/**
 * Step 3: sends the stored initiation, aborted at its send deadline at the latest (not at all when
 * that has passed: a slow write), and records its answer.
 */
async function sendInitiation(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'log' | 'statusListeners'>,
  row: InitiationRow,
  rail: RailRow,
  connector: Connector,
  stored: StoredInitiation,
): Promise<Initiated> {
  // The prepare request, extended with what the send needs.
  const refund = await refundedPaymentOf(services.db, row);
  const request: InitiateRequest = Object.assign(prepareRequestFor(row, rail, stored.initiatedAt, refund), {
    operatorReference: stored.operatorReference,
    callbackUrl: callbackUrlFor(services, rail.operator, stored.callbackToken),
    // Redirect rails only: a direct charge has no hosted page; the customer comes back to our site.
    returnUrl: services.config.publicBaseUrl,
  });
  const budgetMs = Math.min(services.config.connectorTimeoutMs, sendDeadlineOf(stored.inFlightUntil).getTime() - services.clock.now().getTime());
  const result = await withTimeout((signal) => connector.initiate(request, signal), budgetMs);
  const now = services.clock.now();
  if (result.kind === 'FAILED') {
    await decline(services, row, result.failureCode, result.failureReason);
    return {};
  }
  if (result.kind === 'NOT_SENT') {
    await forgetUnsent(services, row, rail, stored, result.error);
    return {};
  }
  // The prepared id stays: it is what status queries ask about.
  const accepted = result.kind === 'ACCEPTED';
  await recordInitiation(services.db, {
    id: row.id,
    operatorReference: accepted ? (result.operatorReference ?? stored.operatorReference) : stored.operatorReference,
    outcome: accepted ? 'ACCEPTED' : 'UNKNOWN',
    redirectUrl: accepted && result.redirectUrl ? result.redirectUrl : null,
    // Acknowledged: nothing is on its way. Ambiguous: the call ended now, and its request may
    // still reach the operator for the landing bound.
    inFlightUntil: accepted ? null : inFlightUntilAfter(now),
    recordedAt: now,
    cause: accepted ? 'INITIATED' : 'INITIATION_UNREACHABLE',
    detail: { rail: rail.code, ...(result.kind === 'UNREACHABLE' ? { error: result.error } : {}) },
  });
  if (result.kind === 'UNREACHABLE') {
    services.log.warn({ reference: row.reference, rail: rail.code }, 'operator unreachable at initiation; left PENDING');
  }
  return result.kind === 'ACCEPTED' && result.redirectUrl ? { redirectUrl: result.redirectUrl } : {};
}

/**
 * The stored initiation never left Kolo (NOT_SENT): it is forgotten (operator id, callback token,
 * `initiatedAt`, `inFlightUntil`), so the poller prepares and sends it again, or fails it at the
 * rail's deadline as never sent (a pay-out's reservation is then released: nothing can have moved).
 */
async function forgetUnsent(
  services: Pick<Services, 'db' | 'clock' | 'log'>,
  row: InitiationRow,
  rail: RailRow,
  stored: StoredInitiation,
  error: string,
): Promise<void> {
  const now = services.clock.now();
  await transaction(services.db, async (tx) => {
    const [forgotten] = await tx
      .update(transactions)
      .set({
        operatorReference: null,
        callbackToken: null,
        initiatedAt: null,
        inFlightUntil: null,
        nextPollAt: new Date(now.getTime() + nextPollDelayMs(0)),
        updatedAt: now,
      })
      .where(
        and(
          eq(transactions.id, row.id),
          eq(transactions.status, 'PENDING'),
          isNull(transactions.initiationOutcome),
          eq(transactions.operatorReference, stored.operatorReference),
        ),
      )
      .returning({ id: transactions.id });
    if (!forgotten) return;
    await tx.insert(transactionEvents).values({
      transactionId: row.id,
      fromStatus: 'PENDING',
      toStatus: 'PENDING',
      cause: 'INITIATION_NOT_SENT',
      detail: { rail: rail.code, error },
      createdAt: now,
    });
  });
  services.log.warn({ reference: row.reference, rail: rail.code }, 'initiation abandoned before it was sent; nothing sent, will retry');
}

async function decline(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'statusListeners'>,
  row: InitiationRow,
  failureCode: FailureCode,
  failureReason: string,
): Promise<void> {
  await applyTransition(services, { transactionId: row.id, event: 'DECLINED', cause: 'INITIATION', failureCode, failureReason });
}

/**
 * Runs the connector call `call` with a signal that aborts after `timeoutMs` (at once when it is
 * zero or less): the connector then stops, sends nothing more and answers (UNREACHABLE, or
 * NOT_SENT for an initiation whose money-moving request never left). Resolves with that answer,
 * so the caller always learns what the connector did send; a call that throws is UNREACHABLE.
 * Bounded by the connector's own per-request timeouts and its contract to stop on abort
 * (connector.ts): it is not raced, since a connector left running could still send after Kolo
 * had recorded it as given up.
 */
export async function withTimeout<T>(call: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T | { kind: 'UNREACHABLE'; error: string }> {
  const controller = new AbortController();
  if (timeoutMs <= 0) controller.abort();
  const timer = setTimeout(() => controller.abort(), Math.max(timeoutMs, 0));
  try {
    return await call(controller.signal);
  } catch (error) {
    return { kind: 'UNREACHABLE', error: String(error) };
  } finally {
    clearTimeout(timer);
  }
}
