/**
 * Wave with a LIVE key when Wave answers late, badly or not at all, both directions (checkout
 * sessions, payouts): a 500 after Wave created the session or payout; a creation held past Kolo's
 * timeout, then processed; Wave paying after the rail's deadline (…198); a dropped and a duplicated
 * webhook (pay-ins only: Wave's Webhooks documentation lists no payout event, so payouts are
 * polled). After each scenario, `kolo ledger verify`'s invariants hold and what the simulator moved
 * equals what the ledger posted on Wave's float, transaction by transaction.
 */
import { describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import type { WaveSimulator } from '../../src/simulators/wave/wave-simulator.ts';
import {
  expectLateSuccessRecorded,
  expectOneTransition,
  expectProcessedOnce,
  expectResolvedByPoll,
  faultMsisdn,
  lateMsisdn,
  startAmbiguous,
  SUCCESS_WEBHOOK,
  useFaultHarness,
  type Direction,
  type FaultHarness,
} from '../helpers/fault-scenarios.ts';
import { waveOperator } from '../helpers/live-operator.ts';
import { rowOf, waitUntil, webhookTypes } from '../helpers/live.ts';

const MSISDN_PREFIX = '22177123';

// Typed: payFunding reads `f`, which TypeScript cannot infer from its own initializer.
const f: FaultHarness<WaveSimulator> = useFaultHarness({
  ...waveOperator(),
  rail: 'WAVE_SN',
  fundingPayer: '221771230900',
  payFunding: (reference) => f.sim.pay(sessionOf(reference)!.id as string),
});

const sessionOf = (reference: string) => [...f.sim.sessions.values()].find((s) => s.client_reference === reference);
const payoutOf = (reference: string) => [...f.sim.payouts.values()].find((p) => p.client_reference === reference);
const webhooksOf = (reference: string) => f.sim.callbacks.filter((c) => c.body.includes(`"client_reference":"${reference}"`));

/** Starts a pay-in or pay-out and, for a pay-in, has the customer pay its session. */
async function startPaid(direction: Direction, msisdn: string): Promise<string> {
  if (direction === 'PAY_OUT') return f.transfer(msisdn);
  const reference = await f.charge(msisdn);
  f.sim.pay(sessionOf(reference)!.id as string);
  return reference;
}

describe.each(['PAY_IN', 'PAY_OUT'] as const)('Wave %s: fault modes with a LIVE key', (direction) => {
  it.each([
    ['a 500 after Wave created it', 'error500'],
    ['held past Kolo’s timeout, then created', 'timeout'],
  ] as const)('%s: PENDING, found by client_reference, created once, then SUCCESS with Wave’s transaction id', async (_name, mode) => {
    const reference = await startAmbiguous(f, mode, () => startPaid(direction, faultMsisdn(MSISDN_PREFIX, direction, mode === 'error500' ? '101' : '102')));
    await f.pollAfter(10_000);
    await f.pollAfter(10_000);
    const row = await rowOf(f.h, reference);
    expect(row.status).toBe('SUCCESS');
    expect(await webhookTypes(f.h, reference)).toEqual([SUCCESS_WEBHOOK[direction]]);
    const path = direction === 'PAY_IN' ? '/v1/checkout/sessions' : '/v1/payout';
    expectProcessedOnce(f, row, f.sim.requests.filter((r) => r.method === 'POST' && r.path === path && JSON.parse(r.body).client_reference === reference));
  });

  it('Wave pays after the rail’s deadline (…198): FAILED TIMEOUT at the deadline, then the late success is recorded once', async () => {
    // Not startPaid: on a …198 number the simulator pays the session itself, late (decideLate()).
    const reference = direction === 'PAY_IN' ? await f.charge(lateMsisdn(MSISDN_PREFIX)) : await f.transfer(lateMsisdn(MSISDN_PREFIX));
    await expectLateSuccessRecorded(f, direction, reference, () => {
      expect(direction === 'PAY_IN' ? sessionOf(reference)!.payment_status : payoutOf(reference)!.status).toBe('succeeded');
    });
  });
});

describe('Wave PAY_IN: webhook fault modes with a LIVE key', () => {
  it('a dropped webhook: the poller resolves it', async () => {
    f.sim.options.callbacks.drop = true;
    const reference = await startPaid('PAY_IN', faultMsisdn(MSISDN_PREFIX, 'PAY_IN', '103'));
    await callbacksIdle(f.h.services);
    expect((await rowOf(f.h, reference)).status).toBe('PENDING');
    await expectResolvedByPoll(f, 'PAY_IN', reference);
  });

  it('a duplicated webhook: one transition, one webhook', async () => {
    f.sim.options.callbacks.duplicate = true;
    const reference = await startPaid('PAY_IN', faultMsisdn(MSISDN_PREFIX, 'PAY_IN', '104'));
    // Wave's webhook URL carries no per-transaction token: its copies are told apart by client_reference.
    await waitUntil('both webhooks answered', () => webhooksOf(reference).filter((c) => c.status === 200).length === 2);
    await expectOneTransition(f, 'PAY_IN', reference);
  });
});
