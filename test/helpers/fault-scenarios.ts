/**
 * The fault scenarios the LIVE operator tests share, both directions: a 5xx after the operator
 * processed the request, a request held past Kolo's timeout then processed, a dropped callback, a
 * duplicated one, and the operator paying after the rail's deadline (…198); and initiations Kolo
 * gives up on (`describeAbandonedInitiations`): a step before the initiation slower than Kolo's
 * timeout, and an initiation so slow that Kolo's status query overtakes it. Each runs on a
 * harness (`useFaultHarness`) that checks after every scenario that `kolo ledger verify`'s
 * invariants hold and that what the simulator moved equals what the ledger posted on the
 * operator's float, transaction by transaction (`reconcile.ts`); and once more for the whole run.
 */
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { NO_LATENCY, type SimMovement, type SimRequest } from '../../src/connectors/simulator-http.ts';
import { eventTrail, rowOf, settled, waitUntil, webhookTypes } from './live.ts';
import { useLiveOperator, type LiveOperator, type LiveOperatorSetup, type OperatorSimulator } from './live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from './merchant-api.ts';
import { expectReconciled, ledgerEntryKinds, reconciliationTotals } from './reconcile.ts';

/** A transaction's direction, as `describe.each` runs the scenarios. */
export type Direction = 'PAY_IN' | 'PAY_OUT';

/** The webhook a merchant gets when a transaction of that direction succeeds. */
export const SUCCESS_WEBHOOK = { PAY_IN: 'payment.success', PAY_OUT: 'payout.success' } as const;

/**
 * The rail's deadline and a step past it, in ms: 900 s is the `pending_timeout_seconds` of
 * MTN_MOMO_CM, ORANGE_MONEY_CM and WAVE_SN (`0001_seed_rails.sql`).
 */
export const PAST_DEADLINE_MS = 900_000 + 1000;

/**
 * The number a scenario uses: `prefix`, then 1 for a pay-in or 2 for a pay-out, then `suffix`
 * (`101`…`104`, one per scenario), so that no two scenarios of a file share a customer.
 */
export function faultMsisdn(prefix: string, direction: Direction, suffix: string): string {
  return `${prefix}${direction === 'PAY_IN' ? '1' : '2'}${suffix}`;
}

/** The number the simulators decide late on (`SIM_LATE_SUFFIX`), under `prefix`. */
export function lateMsisdn(prefix: string): string {
  return `${prefix}0198`;
}

/** A `LiveOperator` whose pay-ins and pay-outs are tracked, so each scenario reconciles its own. */
export interface FaultHarness<S extends OperatorSimulator> extends LiveOperator<S> {
  /** Starts a pay-in on the rail (5000 unless `amount`), asserts 201, tracks it; returns its reference. */
  charge(payerAccount: string, amount?: number): Promise<string>;
  /** Starts a pay-out of 5000 on the rail, asserts 201, tracks it; returns its reference. */
  transfer(beneficiaryAccount: string): Promise<string>;
  /** Adds `reference` to the running scenario's reconciliation; returns it. */
  track(reference: string): string;
  /** The simulator's movements for `reference`. */
  movedOf(reference: string): SimMovement[];
}

/** `LiveOperatorSetup` plus the rail the scenarios run on and how the pay-outs get funded. */
export interface FaultHarnessSetup<S extends OperatorSimulator> extends LiveOperatorSetup<S> {
  /** The rail code (`MTN_MOMO_CM` …); the tenant's currency is `currency` (XAF when absent). */
  rail: string;
  /** Who pays the 500 000 pay-in that funds the pay-outs (LIVE pay-outs need settled LIVE pay-ins). */
  fundingPayer: string;
  /** What the customer still has to do for that pay-in to settle (Wave: pay the session). */
  payFunding?: (reference: string) => void;
}

/**
 * Registers, on top of `useLiveOperator`'s hooks: a tenant that keeps late successes and whose
 * pay-outs are funded; after each test, the reconciliation of the references it tracked; after
 * the file, the reconciliation of the whole run (funding included).
 */
export function useFaultHarness<S extends OperatorSimulator>(setup: FaultHarnessSetup<S>): FaultHarness<S> {
  const scope = { rails: [setup.rail], currency: setup.currency ?? 'XAF' };
  /** The references of the running scenario: its reconciliation covers them only. */
  const started: string[] = [];
  const track = (reference: string) => (started.push(reference), reference);

  const live = useLiveOperator({
    ...setup,
    async ready(l) {
      await setup.ready?.(l);
      // A late success is kept (credited), not refunded: the refund would go to a "late" number too.
      await l.h.services.db.update(applications).set({ lateSuccessPolicy: 'KEEP' }).where(eq(applications.id, l.t.applicationId));
      const funding = await f.charge(setup.fundingPayer, 500_000);
      setup.payFunding?.(funding);
      expect((await settled(l.h, funding)).status).toBe('SUCCESS');
    },
    async beforeClose(l) {
      const lines = await expectReconciled(l.h, l.sim.moved(), scope);
      // The run's closing figures: what the simulator moved against what the ledger posted.
      console.log(`${setup.rail} reconciliation (${scope.currency})`, JSON.stringify(reconciliationTotals(lines)));
    },
  });
  const body = { paymentMethod: setup.rail, currency: scope.currency };
  const f: FaultHarness<S> = Object.assign(live, {
    async charge(payerAccount: string, amount = 5000) {
      const res = await live.h.request('POST', PATHS.charge, { key: live.t.key, body: chargeBody({ ...body, amount, payerAccount }) });
      return track(expectSuccess(res, 201).reference as string);
    },
    async transfer(beneficiaryAccount: string) {
      const res = await live.h.request('POST', PATHS.transfer, { key: live.t.key, body: transferBody({ ...body, beneficiaryAccount }) });
      return track(expectSuccess(res, 201).reference as string);
    },
    track,
    movedOf: (reference: string) => live.sim.moved().filter((m) => m.reference === reference),
  });

  afterEach(async () => {
    // Callbacks still being handled would post after the reconciliation reads the ledger.
    await callbacksIdle(live.h.services);
    await expectReconciled(live.h, live.sim.moved(), { ...scope, references: started.splice(0) });
  });
  return f;
}

/**
 * Makes the next initiation fail with `mode` after the operator processed it, with callbacks
 * dropped so that only a status query can find out; starts the transaction with `start` and
 * asserts it is PENDING with an UNKNOWN initiation. Returns its reference.
 */
export async function startAmbiguous(
  f: FaultHarness<OperatorSimulator>,
  mode: 'error500' | 'timeout',
  start: () => Promise<string>,
): Promise<string> {
  f.sim.options.callbacks.drop = true;
  f.sim.fault = { mode, on: 'initiate', landed: true, remaining: 1 };
  const reference = await start();
  expect(await rowOf(f.h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
  return reference;
}

/**
 * Asserts the operator moved money once for `row`, received one initiation for it (`initiations`:
 * the requests that ask for `row`), and that Kolo kept the operator's transaction id.
 */
export function expectProcessedOnce(
  f: FaultHarness<OperatorSimulator>,
  row: { reference: string; operatorTransactionId: string | null },
  initiations: readonly SimRequest[],
): void {
  expect(f.movedOf(row.reference)).toHaveLength(1);
  expect(initiations).toHaveLength(1);
  // Last: it needs the payments layer to store SUCCEEDED.operatorTransactionId.
  expect(row.operatorTransactionId).toBe(f.movedOf(row.reference)[0]!.operatorTransactionId);
}

/** Runs a poll 10 s on and asserts it settled `reference` as SUCCESS with one success webhook. */
export async function expectResolvedByPoll(f: FaultHarness<OperatorSimulator>, direction: Direction, reference: string): Promise<void> {
  await f.pollAfter(10_000);
  expect((await rowOf(f.h, reference)).status).toBe('SUCCESS');
  expect(await webhookTypes(f.h, reference)).toEqual([SUCCESS_WEBHOOK[direction]]);
}

/** Once both copies of a duplicated callback were answered: asserts one transition to SUCCESS and one webhook. */
export async function expectOneTransition(f: FaultHarness<OperatorSimulator>, direction: Direction, reference: string): Promise<void> {
  await settled(f.h, reference);
  await callbacksIdle(f.h.services);
  expect((await eventTrail(f.h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
  expect(await webhookTypes(f.h, reference)).toEqual([SUCCESS_WEBHOOK[direction]]);
}

/**
 * For `reference`, started on a late number: asserts it is still PENDING before the deadline and
 * FAILED TIMEOUT past it (a pay-out keeps its reservation); then has the operator pay
 * (`decided` waits for, or asserts, the operator's success) and asserts the late success is
 * recorded once: still FAILED TIMEOUT, a pay-in credited as LATE_SUCCESS, a pay-out booked as
 * PAYOUT_SUCCESS and never released, the failed and late-success webhooks, the operator's id kept.
 */
export async function expectLateSuccessRecorded(
  f: FaultHarness<OperatorSimulator>,
  direction: Direction,
  reference: string,
  decided: (reference: string) => Promise<void> | void,
): Promise<void> {
  await f.pollAfter(10_000);
  expect((await rowOf(f.h, reference)).status).toBe('PENDING');
  await f.pollAfter(PAST_DEADLINE_MS);
  const failed = await rowOf(f.h, reference);
  expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  if (direction === 'PAY_OUT') {
    // The amount and fee stay reserved while the operator may still pay.
    expect(failed.isReservationHeld).toBe(true);
    expect(await ledgerEntryKinds(f.h, reference)).not.toContain('PAYOUT_RELEASE');
  }

  expect(f.sim.decideLate()).toBeGreaterThanOrEqual(1);
  await decided(reference);
  await callbacksIdle(f.h.services);
  for (let i = 0; i < 3; i++) await f.pollAfter(60_000);

  const late = await rowOf(f.h, reference);
  expect(late).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  if (direction === 'PAY_IN') {
    expect(late.isLateSuccess).toBe(true);
    expect(await ledgerEntryKinds(f.h, reference)).toContain('LATE_SUCCESS');
    expect(await webhookTypes(f.h, reference)).toEqual(['payment.failed', 'payment.late_success']);
  } else {
    expect(late.isReservationHeld).toBe(false);
    const kinds = await ledgerEntryKinds(f.h, reference);
    expect(kinds).toContain('PAYOUT_SUCCESS');
    expect(kinds).not.toContain('PAYOUT_RELEASE');
    expect(await webhookTypes(f.h, reference)).toEqual(['payout.failed', 'payout.late_success']);
  }
  expect(late.operatorTransactionId).toBe(f.movedOf(reference)[0]!.operatorTransactionId);
}

/** What the shared scenarios need to know of an operator that pushes a callback per transaction (MTN, Orange). */
export interface CallbackOperatorFaults {
  /** Opens each describe's title: `MTN MoMo`, `Orange Money`. */
  product: string;
  /** The operator as the late-success title names it: `MTN`, `Orange`. */
  operator: string;
  /** What the operator calls its callback: `callback`, `notification`. */
  callbackName: string;
  /** The 5xx scenario's title, which names the operator's request and transaction id. */
  error500Title: string;
  /** The customer numbers' prefix (`faultMsisdn`, `lateMsisdn`). */
  msisdnPrefix: string;
  /** Waits until the operator's own record of `reference` is SUCCESSFUL. */
  decided(reference: string): Promise<void>;
  /** The money-moving requests the operator received for `reference`. */
  initiations(reference: string): SimRequest[];
}

/**
 * Registers the five shared scenarios for each direction, one `describe` per direction, on an
 * operator whose callbacks carry Kolo's per-transaction token in their URL.
 */
export function describeCallbackOperatorFaults(f: FaultHarness<OperatorSimulator>, o: CallbackOperatorFaults): void {
  describe.each(['PAY_IN', 'PAY_OUT'] as const)(`${o.product} %s: fault modes with a LIVE key`, (direction) => {
    const start = (msisdn: string) => (direction === 'PAY_IN' ? f.charge(msisdn) : f.transfer(msisdn));
    const msisdn = (suffix: string) => faultMsisdn(o.msisdnPrefix, direction, suffix);

    it(o.error500Title, async () => {
      const reference = await startAmbiguous(f, 'error500', () => start(msisdn('101')));
      await o.decided(reference);
      await f.pollAfter(10_000);
      const row = await rowOf(f.h, reference);
      expect(row.status).toBe('SUCCESS');
      expectProcessedOnce(f, row, o.initiations(reference));
    });

    it('held past Kolo’s timeout, then processed: PENDING, then SUCCESS by the status query', async () => {
      const reference = await startAmbiguous(f, 'timeout', () => start(msisdn('102')));
      await o.decided(reference);
      await expectResolvedByPoll(f, direction, reference);
    });

    it(`a dropped ${o.callbackName}: the poller resolves it`, async () => {
      f.sim.options.callbacks.drop = true;
      const reference = await start(msisdn('103'));
      await o.decided(reference);
      expect((await rowOf(f.h, reference)).status).toBe('PENDING');
      await expectResolvedByPoll(f, direction, reference);
    });

    it(`a duplicated ${o.callbackName}: one transition, one webhook`, async () => {
      f.sim.options.callbacks.duplicate = true;
      const reference = await start(msisdn('104'));
      const row = await rowOf(f.h, reference);
      await waitUntil(
        `both ${o.callbackName}s answered`,
        () => f.sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!) && c.status === 200).length === 2,
      );
      await expectOneTransition(f, direction, reference);
    });

    it(`${o.operator} pays after the rail’s deadline (…198): FAILED TIMEOUT at the deadline, then the late success is recorded once`, async () => {
      const reference = await start(lateMsisdn(o.msisdnPrefix));
      await expectLateSuccessRecorded(f, direction, reference, o.decided);
    });
  });
}

/** The step before the initiation made slower than Kolo's connector timeout, in ms. */
export const SLOW_PRE_STEP_MS = 1500;
/** An initiation slow enough (ms) for the status query of the next poll to overtake it. */
export const SLOW_INITIATION_MS = 2500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the abandoned-initiation scenarios need to know of an operator (its simulator in `f`). */
export interface AbandonedInitiationFaults {
  /** Opens each describe's title: `MTN MoMo`, `Orange Money`, `Wave`. */
  product: string;
  /** The customer numbers' prefix (`faultMsisdn`); the scenarios use the suffixes 111, 112 and 198. */
  msisdnPrefix: string;
  /** The money-moving requests the operator received for `reference`. */
  initiations(reference: string): SimRequest[];
  /** True once the operator holds a record of `reference`'s initiation, whatever its state. */
  recorded(reference: string): boolean;
  /** How many status queries (reads or searches) the operator has received so far. */
  statusQueries(): number;
  /**
   * Waits until the operator has paid `reference` (first doing what the customer must, on
   * operators where the customer acts on the operator's page).
   */
  paid(reference: string): Promise<void>;
  /**
   * Per direction, makes the step before the money-moving request (a token, a check, a prepare)
   * take `SLOW_PRE_STEP_MS`, longer than Kolo's connector timeout; null where there is none.
   */
  slowPreStep: Record<Direction, (() => void) | null>;
}

/**
 * Registers, per direction, the scenarios of an initiation Kolo gives up on: (a) a step before it
 * outlasts Kolo's timeout: nothing is sent, the transaction stays PENDING with its money where it
 * was, and the next poll sends it once; (b) the initiation itself outlasts the timeout and Kolo's
 * next status query reaches the operator before it does: "no record of it" fails nothing and
 * releases nothing, and the operator's payment is recorded as SUCCESS — or, for a pay-out decided
 * only after the rail's deadline, as a late success consuming its held reservation.
 */
export function describeAbandonedInitiations(f: FaultHarness<OperatorSimulator>, o: AbandonedInitiationFaults): void {
  describe.each(['PAY_IN', 'PAY_OUT'] as const)(`${o.product} %s: initiations Kolo gives up on`, (direction) => {
    const start = (msisdn: string) => (direction === 'PAY_IN' ? f.charge(msisdn) : f.transfer(msisdn));
    const msisdn = (suffix: string) => faultMsisdn(o.msisdnPrefix, direction, suffix);
    const slowPreStep = o.slowPreStep[direction];

    if (slowPreStep) it('a step before it outlasts Kolo’s timeout: nothing is sent, nothing fails, and the next poll sends it once', async () => {
      slowPreStep();
      const reference = await start(msisdn('111'));
      // Long enough for the slow step to end at the operator: still nothing sent.
      await sleep(SLOW_PRE_STEP_MS);
      expect(o.initiations(reference)).toHaveLength(0);
      expect((await rowOf(f.h, reference)).status).toBe('PENDING');
      expect(await webhookTypes(f.h, reference)).toEqual([]);
      if (direction === 'PAY_OUT') expect(await ledgerEntryKinds(f.h, reference)).toEqual(['PAYOUT_RESERVE']);

      f.sim.options.latencyMs = { ...NO_LATENCY };
      await f.pollAfter(10_000);
      await o.paid(reference);
      await callbacksIdle(f.h.services);
      await f.pollAfter(10_000);
      expect((await rowOf(f.h, reference)).status).toBe('SUCCESS');
      expect(o.initiations(reference)).toHaveLength(1);
      expect(await webhookTypes(f.h, reference)).toEqual([SUCCESS_WEBHOOK[direction]]);
    });

    it('the status query overtakes the slow initiation: the operator’s “no record” fails nothing, and its payment is recorded once', async () => {
      f.sim.options.callbacks.drop = true;
      f.sim.options.latencyMs = { ...NO_LATENCY, initiate: SLOW_INITIATION_MS };
      const reference = await start(msisdn('112'));
      expect(await rowOf(f.h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
      const asked = o.statusQueries();
      await f.pollAfter(10_000);
      // Asked before the initiation reached the operator: no record of it yet.
      expect(o.statusQueries()).toBeGreaterThan(asked);
      expect(o.recorded(reference)).toBe(false);
      expect((await rowOf(f.h, reference)).status).toBe('PENDING');
      if (direction === 'PAY_OUT') expect(await ledgerEntryKinds(f.h, reference)).toEqual(['PAYOUT_RESERVE']);

      await waitUntil(`${o.product} to record ${reference}`, () => o.recorded(reference));
      await o.paid(reference);
      await f.pollAfter(10_000);
      const row = await rowOf(f.h, reference);
      expect(row.status).toBe('SUCCESS');
      expect(await webhookTypes(f.h, reference)).toEqual([SUCCESS_WEBHOOK[direction]]);
      expectProcessedOnce(f, row, o.initiations(reference));
    });

    if (direction === 'PAY_OUT') it('overtaken, then paid only after the rail’s deadline: its reservation is held, then consumed by the late success', async () => {
      f.sim.options.callbacks.drop = true;
      f.sim.options.latencyMs = { ...NO_LATENCY, initiate: SLOW_INITIATION_MS };
      const reference = await start(msisdn('198'));
      await f.pollAfter(10_000);
      expect(o.recorded(reference)).toBe(false);
      expect((await rowOf(f.h, reference)).status).toBe('PENDING');
      await waitUntil(`${o.product} to record ${reference}`, () => o.recorded(reference));
      await expectLateSuccessRecorded(f, direction, reference, o.paid);
      expect(o.initiations(reference)).toHaveLength(1);
    });
  });
}
