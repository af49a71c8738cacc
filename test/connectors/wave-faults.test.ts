/**
 * Wave with a LIVE key when Wave answers late, badly or not at all, both directions (checkout
 * sessions, payouts): a 500 after Wave created the session or payout; a creation held past
 * Kolo's timeout, then processed; Wave paying after the rail's deadline (…198); a dropped and a
 * duplicated webhook (pay-ins only: Wave sends no payout events, payouts are polled, operators.md
 * §3.3). After each scenario, `kolo ledger verify`'s invariants hold and what the simulator moved
 * equals what the ledger posted on Wave's float, transaction by transaction.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startWaveSimulator, WAVE_SIM_DEFAULTS, type WaveSimulator } from '../../src/simulators/wave/wave-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { eventTrail, rowOf, settled, startLiveHarness, waitUntil, waveEnv, webhookTypes } from '../helpers/live.ts';
import { expectReconciled, ledgerEntryKinds } from '../helpers/reconcile.ts';

let sim: WaveSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

/** The rail's deadline (`pending_timeout_seconds` of WAVE_SN), and a step past it. */
const PAST_DEADLINE_MS = 900_000 + 1000;
const RAIL = 'WAVE_SN';
const SCOPE = { rails: [RAIL], currency: 'XOF' };

beforeAll(async () => {
  sim = await startWaveSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness(waveEnv(sim), receiver.url, undefined, 'XOF'));
  sim.options.webhookUrl = `${h.baseUrl}/api/v1/callbacks/wave`;
  sim.options.nowMs = () => h.clock.now().getTime();
  // A late success is kept (credited), not refunded: the refund would go to a "late" number too.
  await h.services.db.update(applications).set({ lateSuccessPolicy: 'KEEP' }).where(eq(applications.id, t.applicationId));
  // LIVE pay-outs are funded by settled LIVE pay-ins.
  const funding = await charge('221771230900', 500_000);
  sim.pay(sessionOf(funding)!.id as string);
  expect((await settled(h, funding)).status).toBe('SUCCESS');
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
  sim.options.webhookSignature = 'valid';
  sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
  sim.options.wallets.SN.balance = WAVE_SIM_DEFAULTS.wallets.SN.balance;
});
/** The references of the running scenario: its reconciliation covers them only. */
const started: string[] = [];
afterEach(async () => {
  await callbacksIdle(h.services);
  await expectReconciled(h, sim.moved(), { ...SCOPE, references: started.splice(0) });
});

const track = (reference: string) => (started.push(reference), reference);
async function charge(payerAccount: string, amount = 5000) {
  const body = chargeBody({ paymentMethod: RAIL, currency: 'XOF', amount, payerAccount });
  return track(expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body }), 201).reference as string);
}
async function transfer(beneficiaryAccount: string) {
  const body = transferBody({ paymentMethod: RAIL, currency: 'XOF', beneficiaryAccount });
  return track(expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body }), 201).reference as string);
}
const sessionOf = (reference: string) => [...sim.sessions.values()].find((s) => s.client_reference === reference);
const payoutOf = (reference: string) => [...sim.payouts.values()].find((p) => p.client_reference === reference);
const movedOf = (reference: string) => sim.moved().filter((m) => m.reference === reference);
const webhooksOf = (reference: string) => sim.callbacks.filter((c) => c.body.includes(`"client_reference":"${reference}"`));

async function pollAfter(ms: number) {
  h.clock.advance(ms);
  return pollOnce(h.services);
}

/** Starts a pay-in or pay-out and, for a pay-in, has the customer pay its session. */
async function startPaid(direction: 'PAY_IN' | 'PAY_OUT', msisdn: string): Promise<string> {
  if (direction === 'PAY_OUT') return transfer(msisdn);
  const reference = await charge(msisdn);
  sim.pay(sessionOf(reference)!.id as string);
  return reference;
}

describe.each(['PAY_IN', 'PAY_OUT'] as const)('Wave %s: fault modes with a LIVE key', (direction) => {
  const n = direction === 'PAY_IN' ? '1' : '2';
  const success = direction === 'PAY_IN' ? 'payment.success' : 'payout.success';

  it.each([
    ['a 500 after Wave created it', 'error500'],
    ['held past Kolo’s timeout, then created', 'timeout'],
  ] as const)('%s: PENDING, found by client_reference, created once, then SUCCESS with Wave’s transaction id', async (_name, mode) => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode, on: 'initiate', landed: true, remaining: 1 };
    const reference = await startPaid(direction, `22177123${n}${mode === 'error500' ? '101' : '102'}`);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    await pollAfter(10_000);
    await pollAfter(10_000);
    const row = await rowOf(h, reference);
    expect(row.status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual([success]);
    expect(movedOf(reference)).toHaveLength(1);
    const path = direction === 'PAY_IN' ? '/v1/checkout/sessions' : '/v1/payout';
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === path && JSON.parse(r.body).client_reference === reference)).toHaveLength(1);
    // Last: it needs the payments layer to store SUCCEEDED.operatorTransactionId.
    expect(row.operatorTransactionId).toBe(movedOf(reference)[0]!.operatorTransactionId);
  });

  it('Wave pays after the rail’s deadline (…198): FAILED TIMEOUT at the deadline, then the late success is recorded once', async () => {
    const reference = direction === 'PAY_IN' ? await charge('221771230198') : await transfer('221771230198');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(PAST_DEADLINE_MS);
    const failed = await rowOf(h, reference);
    expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    if (direction === 'PAY_OUT') {
      // The amount and fee stay reserved while Wave may still pay.
      expect(failed.isReservationHeld).toBe(true);
      expect(await ledgerEntryKinds(h, reference)).not.toContain('PAYOUT_RELEASE');
    }

    expect(sim.decideLate()).toBeGreaterThanOrEqual(1);
    expect(direction === 'PAY_IN' ? sessionOf(reference)!.payment_status : payoutOf(reference)!.status).toBe('succeeded');
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

describe('Wave PAY_IN: webhook fault modes with a LIVE key', () => {
  it('a dropped webhook: the poller resolves it', async () => {
    sim.options.callbacks.drop = true;
    const reference = await startPaid('PAY_IN', '221771231103');
    await callbacksIdle(h.services);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
  });

  it('a duplicated webhook: one transition, one webhook', async () => {
    sim.options.callbacks.duplicate = true;
    const reference = await startPaid('PAY_IN', '221771231104');
    await waitUntil('both webhooks answered', () => webhooksOf(reference).filter((c) => c.status === 200).length === 2);
    await settled(h, reference);
    await callbacksIdle(h.services);
    expect((await eventTrail(h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
  });
});
