/**
 * Wave with a LIVE key when Wave answers late, badly or not at all, both directions (checkout
 * sessions, payouts): a 500 after Wave created the session or payout; a creation held past Kolo's
 * timeout, then processed; Wave paying after the rail's deadline (…198); a dropped and a duplicated
 * webhook (pay-ins only: Wave's Webhooks documentation lists no payout event, so payouts are
 * polled); a creation so slow that Kolo's search by client_reference reaches Wave first (nothing
 * failed nor released, the payment recorded), and an initiation Kolo has given up on before it
 * left (Wave receives nothing; Wave has no token nor check before its creations). After each
 * scenario, `kolo ledger verify`'s invariants hold and what the simulator moved equals what the
 * ledger posted on Wave's float, transaction by transaction.
 */
import { describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import type { WaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import { resolveConnector } from '../../src/connectors/registry.ts';
import {
  describeAbandonedInitiations,
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

describeAbandonedInitiations(f, {
  product: 'Wave',
  msisdnPrefix: MSISDN_PREFIX,
  initiations: (reference) =>
    f.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/v1/checkout/sessions' || r.path === '/v1/payout') && JSON.parse(r.body).client_reference === reference),
  recorded: (reference) => sessionOf(reference) !== undefined || payoutOf(reference) !== undefined,
  statusQueries: () => f.sim.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/')).length,
  async paid(reference) {
    const session = sessionOf(reference);
    // The customer pays on Wave's page; a payout is Wave's to pay.
    if (session && session.payment_status !== 'succeeded') f.sim.pay(session.id as string);
    await waitUntil(`Wave to pay ${reference}`, () => (sessionOf(reference)?.payment_status ?? payoutOf(reference)?.status) === 'succeeded');
  },
  slowPreStep: { PAY_IN: null, PAY_OUT: null },
});

describe('Wave: an initiation Kolo has given up on before it left', () => {
  it.each(['PAY_IN', 'PAY_OUT'] as const)('%s: Wave receives nothing (NOT_SENT), so it can be sent again', async (direction) => {
    const wave = resolveConnector(f.h.services.connectors, 'WAVE_SN', 'LIVE')!;
    const before = f.sim.requests.length;
    const reference = `ABANDONED-${direction}`;
    const answer = await wave.initiate(
      {
        direction,
        reference,
        rail: { code: 'WAVE_SN', operator: 'WAVE', country: 'SN', currency: 'XOF' },
        amount: 5000,
        currency: 'XOF',
        msisdn: faultMsisdn(MSISDN_PREFIX, direction, '113'),
        description: null,
        initiatedAt: f.h.clock.now(),
        operatorReference: reference,
        callbackUrl: null,
        returnUrl: f.h.baseUrl,
      },
      AbortSignal.abort(),
    );
    expect(answer.kind).toBe('NOT_SENT');
    expect(f.sim.requests.length).toBe(before);
    expect(sessionOf(reference) ?? payoutOf(reference)).toBeUndefined();
  });
});
