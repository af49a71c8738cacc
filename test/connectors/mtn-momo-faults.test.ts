/**
 * MTN MoMo with a LIVE key when MTN answers late, badly or not at all, both directions
 * (requesttopay pay-ins, transfer pay-outs): a 500 after MTN processed the request; a request
 * held past Kolo's timeout, then processed; MTN paying after the rail's deadline (…198); a
 * dropped callback; a duplicated one; a hosted checkout whose first attempt MTN pays after its
 * deadline while a second attempt succeeds (both payments recorded). After each scenario, `kolo ledger verify`'s invariants
 * hold and what the simulator moved equals what the ledger posted on MTN's float, transaction by
 * transaction.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/simulators/mtn-momo/mtn-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { listAttempts } from '../../src/payments/checkout-attempt-records.ts';
import { eventTrail, mtnEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';
import { expectReconciled, ledgerEntryKinds } from '../helpers/reconcile.ts';

let sim: MtnSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

/** The rail's deadline (`pending_timeout_seconds` of MTN_MOMO_CM), and a step past it. */
const PAST_DEADLINE_MS = 900_000 + 1000;
const SCOPE = { rails: ['MTN_MOMO_CM'], currency: 'XAF' };

beforeAll(async () => {
  sim = await startMtnSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness(mtnEnv(sim), receiver.url));
  // A late success is kept (credited), not refunded: the refund would go to a "late" number too.
  await h.services.db.update(applications).set({ lateSuccessPolicy: 'KEEP' }).where(eq(applications.id, t.applicationId));
  // LIVE pay-outs are funded by settled LIVE pay-ins.
  const funding = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 500_000, payerAccount: '237677000900' }) }), 201);
  expect((await settled(h, funding.reference as string)).status).toBe('SUCCESS');
});
afterAll(async () => {
  try {
    // And the whole run, funding included.
    if (h) await expectReconciled(h, sim.moved(), SCOPE);
  } finally {
    await h?.close();
    await sim?.close();
    await receiver?.close();
  }
});
beforeEach(() => {
  sim.fault = null;
  sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
});
/** The references of the running scenario: its reconciliation covers them only. */
const started: string[] = [];
afterEach(async () => {
  await callbacksIdle(h.services);
  await expectReconciled(h, sim.moved(), { ...SCOPE, references: started.splice(0) });
});


const track = (reference: string) => (started.push(reference), reference);
const charge = async (payerAccount: string) =>
  track(expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount }) }), 201).reference as string);
const transfer = async (beneficiaryAccount: string) =>
  track(expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount }) }), 201).reference as string);
const start = { PAY_IN: charge, PAY_OUT: transfer };
const success = { PAY_IN: 'payment.success', PAY_OUT: 'payout.success' };
const resourceOf = (reference: string) => [...sim.resources.values()].find((r) => r.body.externalId === reference);
const decided = (reference: string) => waitUntil(`MTN to decide ${reference}`, () => resourceOf(reference)?.status === 'SUCCESSFUL');
const movedOf = (reference: string) => sim.moved().filter((m) => m.reference === reference);

async function pollAfter(ms: number) {
  h.clock.advance(ms);
  return pollOnce(h.services);
}

describe.each(['PAY_IN', 'PAY_OUT'] as const)('MTN MoMo %s: fault modes with a LIVE key', (direction) => {
  const n = direction === 'PAY_IN' ? '1' : '2';

  it('a 500 after MTN processed the request: PENDING, then SUCCESS by the status query, sent once, its financialTransactionId kept', async () => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const reference = await start[direction](`23767700${n}101`);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    await decided(reference);
    await pollAfter(10_000);
    const row = await rowOf(h, reference);
    expect(row.status).toBe('SUCCESS');
    expect(movedOf(reference)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.method === 'POST' && r.body.includes(`"externalId":"${reference}"`))).toHaveLength(1);
    // Last: it needs the payments layer to store SUCCEEDED.operatorTransactionId.
    expect(row.operatorTransactionId).toBe(movedOf(reference)[0]!.operatorTransactionId);
  });

  it('held past Kolo’s timeout, then processed: PENDING, then SUCCESS by the status query', async () => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
    const reference = await start[direction](`23767700${n}102`);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    await decided(reference);
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual([success[direction]]);
  });

  it('a dropped callback: the poller resolves it', async () => {
    sim.options.callbacks.drop = true;
    const reference = await start[direction](`23767700${n}103`);
    await decided(reference);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual([success[direction]]);
  });

  it('a duplicated callback: one transition, one webhook', async () => {
    sim.options.callbacks.duplicate = true;
    const reference = await start[direction](`23767700${n}104`);
    const row = await rowOf(h, reference);
    await waitUntil('both callbacks answered', () => sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!) && c.status === 200).length === 2);
    await settled(h, reference);
    await callbacksIdle(h.services);
    expect((await eventTrail(h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual([success[direction]]);
  });

  it('MTN pays after the rail’s deadline (…198): FAILED TIMEOUT at the deadline, then the late success is recorded once', async () => {
    const reference = await start[direction]('237677000198');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(PAST_DEADLINE_MS);
    const failed = await rowOf(h, reference);
    expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    if (direction === 'PAY_OUT') {
      // The amount and fee stay reserved while MTN may still pay.
      expect(failed.isReservationHeld).toBe(true);
      expect(await ledgerEntryKinds(h, reference)).not.toContain('PAYOUT_RELEASE');
    }

    expect(sim.decideLate()).toBeGreaterThanOrEqual(1);
    await decided(reference);
    await callbacksIdle(h.services);
    for (let i = 0; i < 3; i++) await pollAfter(60_000);

    const late = await rowOf(h, reference);
    expect(late).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    if (direction === 'PAY_IN') {
      expect(late.isLateSuccess).toBe(true);
      expect(await ledgerEntryKinds(h, reference)).toContain('LATE_SUCCESS');
      expect(await webhookTypes(h, reference)).toEqual(['payment.failed', 'payment.late_success']);
    } else {
      expect(late.isReservationHeld).toBe(false);
      const kinds = await ledgerEntryKinds(h, reference);
      expect(kinds).toContain('PAYOUT_SUCCESS');
      expect(kinds).not.toContain('PAYOUT_RELEASE');
      expect(await webhookTypes(h, reference)).toEqual(['payout.failed', 'payout.late_success']);
    }
    expect(late.operatorTransactionId).toBe(movedOf(reference)[0]!.operatorTransactionId);
  });
});

describe('MTN MoMo hosted checkout: an attempt paid after its deadline, another attempt paid too', () => {
  it('both payments are in the books: the checkout succeeds by the second attempt, the first is recorded as a late success', async () => {
    const c = await createCheckout(h, t, { merchantReference: 'LATE-ATTEMPT' });
    track(c.reference);
    const b = formClient(h);
    let page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000198' })).status).toBe(303);
    const checkoutId = (await rowOf(h, c.reference)).id;
    await pollAfter(PAST_DEADLINE_MS);
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });

    page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000105' })).status).toBe(303);
    expect((await settled(h, c.reference)).status).toBe('SUCCESS');

    // MTN now pays the first attempt too: the customer paid twice.
    expect(sim.decideLate()).toBeGreaterThanOrEqual(1);
    const first = (await listAttempts(h.services.db, checkoutId))[0]!;
    await waitUntil('MTN to pay the first attempt', () => sim.resources.get(`collection:${first.operatorReference}`)?.status === 'SUCCESSFUL');
    await callbacksIdle(h.services);
    for (let i = 0; i < 3; i++) await pollAfter(60_000);

    expect(sim.moved().filter((m) => m.reference.startsWith(`${c.reference}-`))).toHaveLength(2);
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'FAILED', isLateSuccess: true });
    expect(await rowOf(h, c.reference)).toMatchObject({ status: 'SUCCESS' });
    expect(await webhookTypes(h, c.reference)).toContain('payment.late_success');
    // afterEach: both movements (10 000 XAF) against the checkout's float postings.
  });
});
