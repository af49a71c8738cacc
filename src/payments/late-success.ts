/**
 * Late successes (issue 11 item 9): an operator reports that a pay-in's money moved after Kolo
 * had closed the transaction (checkout expired or cancelled, charge failed at its deadline).
 * The money is never dropped. In one database transaction:
 * - the transaction keeps its final status (FAILED/CANCELLED never change: integrations rely
 *   on it) but is flagged `isLateSuccess` (compare-and-set, so it happens once) and gets a
 *   LATE_SUCCESS event;
 * - the amount is posted from the rail's float to SUSPENSE;
 * - by the application's `lateSuccessPolicy`: REFUND (default) writes a refund pay-out to the
 *   payer funded from SUSPENSE, no fee, initiated by the poller's backstop right after commit
 *   (a crash cannot lose it); KEEP credits the merchant from SUSPENSE like a normal pay-in
 *   (amount − fee to AVAILABLE, fee to revenue);
 * - the merchant is told: a `payment.late_success` webhook (the status view plus
 *   `lateSuccess: {decision, refundReference}`), and the dashboard lists `isLateSuccess`.
 * Charges that failed at their deadline, and checkouts that ended after an attempt failed at its
 * deadline, are watched (`late_watch_until`, `LATE_SUCCESS_WATCH_HOURS`) by `watchLateSuccesses`,
 * run by the background jobs: for a checkout, its latest such attempt is asked about.
 */
import { and, asc, desc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications, transactionEvents, transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { operatorFloatAccount, platformAccount } from '../ledger/accounts.ts';
import { postEntry } from '../ledger/post-entry.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import { insertEventWithDelivery, transactionEventData } from '../webhooks/webhook-events.ts';
import { computeFee, railTermsFor } from './fees.ts';
import { withTimeout } from './initiate-transaction.ts';
import { nextPollDelayMs } from './poll-schedule.ts';
import { findRail } from './rails.ts';
import { insertRefund } from './refund-payment.ts';
import { creditPayIn } from './transaction-postings.ts';
import type { TransactionRow } from './transaction-view.ts';

/** What the operator told us: the rail and number that paid, and its reference. */
export interface LateSuccessReport {
  railCode: string;
  msisdn: string;
  operatorReference: string | null;
  /** Where it was learnt (POLL, CHECKOUT_ATTEMPT, LATE_WATCH). */
  origin: string;
}

/** What Kolo did with a late success. */
export type LateSuccessDecision = 'REFUND' | 'KEEP';

type LateServices = Pick<Services, 'db' | 'clock' | 'config' | 'ids'>;

/**
 * Records a late success of the closed pay-in `transactionId` inside `tx` (see the file
 * comment). Returns the decision, or null when the transaction is not a closed pay-in or the
 * late success was already recorded.
 */
export async function recordLateSuccess(tx: Db, services: LateServices, transactionId: string, report: LateSuccessReport): Promise<LateSuccessDecision | null> {
  const now = services.clock.now();
  const [row] = await tx
    .update(transactions)
    .set({
      isLateSuccess: true,
      lateWatchUntil: null,
      nextPollAt: null,
      paymentMethod: report.railCode,
      payerAccount: report.msisdn,
      operatorReference: report.operatorReference,
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
  const [app] = await tx
    .select({ policy: applications.lateSuccessPolicy, webhookUrl: applications.webhookUrl })
    .from(applications)
    .where(eq(applications.id, row.applicationId));
  const decision: LateSuccessDecision = app?.policy === 'KEEP' ? 'KEEP' : 'REFUND';
  await postEntry(tx, {
    kind: 'LATE_SUCCESS',
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
    const [withFee] = await tx
      .update(transactions)
      .set({ feeAmount: computeFee(row.amount, terms.rule, 'PAY_IN') })
      .where(eq(transactions.id, row.id))
      .returning();
    current = withFee!;
    await creditPayIn(tx, services, current, 'LATE_SUCCESS_KEPT', platformAccount('SUSPENSE', row.environment, row.currency), {
      settlementDelaySeconds: terms.settlementDelaySeconds,
    });
  } else {
    // Initiated by the poller's backstop at once (its first poll is due now).
    const refund = await insertRefund(tx, services, current, {
      funding: 'SUSPENSE',
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
    detail: { origin: report.origin, rail: report.railCode, operatorReference: report.operatorReference, decision, refund: refundReference },
    createdAt: now,
  });
  if (app?.webhookUrl) {
    await insertEventWithDelivery(tx, services, {
      applicationId: row.applicationId,
      event: 'payment.late_success',
      data: { ...transactionEventData(current, services.config.publicBaseUrl), lateSuccess: { decision, refundReference } },
      transactionId: row.id,
    });
  }
  return decision;
}

/** Failure codes of an attempt that ended without a final answer from the operator. */
const AMBIGUOUS_FAILURES = ['TIMEOUT', 'PROVIDER_UNAVAILABLE'];

/**
 * The latest attempt of checkout `transactionId` that failed without a final answer (at its
 * deadline), or null: the one a late success of an ended checkout would come from.
 */
export async function latestAmbiguousAttempt(db: Db, transactionId: string) {
  const [attempt] = await db
    .select()
    .from(checkoutAttempts)
    .where(
      and(
        eq(checkoutAttempts.transactionId, transactionId),
        eq(checkoutAttempts.status, 'FAILED'),
        inArray(checkoutAttempts.failureCode, AMBIGUOUS_FAILURES),
      ),
    )
    .orderBy(desc(checkoutAttempts.attemptNumber))
    .limit(1);
  return attempt ?? null;
}

/** How long a callback on a closed pay-in reopens its watch, at least. */
const CALLBACK_WATCH_MS = 3_600_000;

/**
 * An operator callback on a pay-in Kolo closed without a final answer (a charge failed at its
 * deadline, TIMEOUT or PROVIDER_UNAVAILABLE; a checkout that ended after such an attempt): the
 * operator may be reporting a late success, possibly after the watch ended. The callback proves
 * nothing (unsigned), so it only reopens the watch for at least an hour and makes it due now: the
 * next background run asks the operator, and only its answer counts. Returns true when a watch
 * was (re)opened; false for anything else (settled, declined, already recorded).
 */
export async function reopenLateWatch(services: Pick<Services, 'db' | 'clock'>, transactionId: string): Promise<boolean> {
  const [row] = await services.db.select().from(transactions).where(eq(transactions.id, transactionId)).limit(1);
  if (!row || row.direction !== 'PAY_IN' || row.isLateSuccess || (row.status !== 'FAILED' && row.status !== 'CANCELLED')) return false;
  const isAmbiguous =
    row.type === 'CHECKOUT' ? (await latestAmbiguousAttempt(services.db, row.id)) !== null : AMBIGUOUS_FAILURES.includes(row.failureCode ?? '');
  if (!isAmbiguous) return false;
  const now = services.clock.now();
  const until = new Date(now.getTime() + CALLBACK_WATCH_MS);
  const reopened = await services.db
    .update(transactions)
    .set({ lateWatchUntil: row.lateWatchUntil && row.lateWatchUntil > until ? row.lateWatchUntil : until, nextPollAt: now })
    .where(and(eq(transactions.id, row.id), eq(transactions.isLateSuccess, false)))
    .returning({ id: transactions.id });
  return reopened.length === 1;
}

/** Rows looked at per run of `watchLateSuccesses`. */
const WATCH_BATCH = 50;

/**
 * Asks the operator again about pay-ins that failed at their deadline, while their watch lasts:
 * a success becomes a late success; a decline or an unknown transaction ends the watch; no
 * answer reschedules (backoff, ≤ 60 s, capped at the watch's end). Claims rows with
 * `FOR UPDATE SKIP LOCKED` and a lease, like the poller. Returns how many were asked.
 */
export async function watchLateSuccesses(services: Services): Promise<number> {
  const now = services.clock.now();
  const due = services.db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(isNotNull(transactions.lateWatchUntil), lte(transactions.nextPollAt, now)))
    .orderBy(asc(transactions.nextPollAt))
    .limit(WATCH_BATCH)
    .for('update', { skipLocked: true });
  const rows = await services.db
    .update(transactions)
    .set({ nextPollAt: new Date(now.getTime() + services.config.pollerLeaseMs), pollAttempts: sql`${transactions.pollAttempts} + 1` })
    .where(and(inArray(transactions.id, due), isNotNull(transactions.lateWatchUntil)))
    .returning();
  for (const row of rows) {
    try {
      await watchOne(services, row);
    } catch (error) {
      services.log.error({ err: error, reference: row.reference }, 'late-success watch failed');
    }
  }
  return rows.length;
}

async function watchOne(services: Services, row: TransactionRow): Promise<void> {
  const now = services.clock.now();
  const stop = () =>
    services.db.update(transactions).set({ lateWatchUntil: null, nextPollAt: null }).where(eq(transactions.id, row.id));
  // A charge is asked about under its own reference; an ended checkout through its latest
  // attempt that failed without a final answer.
  const attempt = row.type === 'CHECKOUT' ? await latestAmbiguousAttempt(services.db, row.id) : null;
  const asked =
    row.type === 'CHECKOUT'
      ? attempt && {
          reference: attempt.correlationId,
          operatorReference: attempt.operatorReference,
          railCode: attempt.railCode,
          msisdn: attempt.msisdn,
          initiatedAt: attempt.initiatedAt,
          initiation: attempt.initiationOutcome === 'ACCEPTED' ? ('ACCEPTED' as const) : ('UNKNOWN' as const),
        }
      : row.paymentMethod && row.payerAccount && row.initiatedAt
        ? {
            reference: row.reference,
            operatorReference: row.operatorReference,
            railCode: row.paymentMethod,
            msisdn: row.payerAccount,
            initiatedAt: row.initiatedAt,
            initiation: row.initiationOutcome === 'ACCEPTED' ? ('ACCEPTED' as const) : ('UNKNOWN' as const),
          }
        : null;
  const rail = asked ? await findRail(services.db, asked.railCode) : null;
  const connector = rail ? resolveConnector(services.connectors, rail.operator, row.environment as Environment) : null;
  if (!asked || !rail || !connector || !row.lateWatchUntil) {
    await stop();
    return;
  }
  const status = await withTimeout(
    connector.getStatus({
      direction: 'PAY_IN',
      reference: asked.reference,
      operatorReference: asked.operatorReference,
      rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
      msisdn: asked.msisdn,
      amount: row.amount,
      initiatedAt: asked.initiatedAt,
      initiation: asked.initiation,
    }),
    services.config.connectorTimeoutMs,
  );
  if (status.kind === 'SUCCEEDED') {
    await services.db.transaction((tx) =>
      recordLateSuccess(tx as unknown as Db, services, row.id, {
        railCode: rail.code,
        msisdn: asked.msisdn,
        operatorReference: status.operatorReference,
        origin: 'LATE_WATCH',
      }),
    );
    return;
  }
  if (status.kind === 'FAILED' || status.kind === 'NOT_FOUND') {
    await stop();
    return;
  }
  if (row.lateWatchUntil <= now) {
    // That was the last question: the watch is over.
    await stop();
    return;
  }
  // pollAttempts was incremented by the claim; the schedule is indexed from 0.
  let next = new Date(now.getTime() + nextPollDelayMs(Math.max(row.pollAttempts - 1, 0)));
  if (next > row.lateWatchUntil) next = row.lateWatchUntil;
  await services.db.update(transactions).set({ nextPollAt: next }).where(and(eq(transactions.id, row.id), isNotNull(transactions.lateWatchUntil)));
}
