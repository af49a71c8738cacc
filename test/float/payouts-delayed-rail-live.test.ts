/**
 * Pay-outs wait while their rail is DELAYED, LIVE keys against the MTN MoMo simulator (real Kolo
 * over HTTP, real database): repeated 5xx answers to transfers turn the rail DELAYED for pay-outs
 * (public in the configuration); new pay-outs then wait in the queue with 0 requests to MTN, the
 * float job keeps them while the rail is DELAYED, and once the failing traffic has left the
 * window they go out exactly once each and succeed. Ends with the ledger's invariants.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { runFloatTick } from '../../src/float/index.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { AVAILABILITY_WINDOW_MS } from '../../src/rails/index.ts';
import type { Harness, Tenant } from '../harness.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mtnEnv, rowOf, settled } from '../helpers/live.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

const RAIL = 'MTN_MOMO_CM';
let sim: MtnSimulator;
let h: Harness;
let t: Tenant;

const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  env: (s) => ({ ...mtnEnv(s), FLOAT_QUEUE_MAX_WAIT_MINUTES: '120' }),
});
beforeAll(async () => {
  ({ sim, h, t } = live);
  const funding = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 900_000 }) }), 201).reference as string;
  expect((await settled(h, funding)).status).toBe('SUCCESS');
});

const transfer = async (amount = 10_000) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount, beneficiaryAccount: '237677000001' }) }), 201).reference as string;
const payOut = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);
const transfersSent = (reference: string) =>
  sim.requests.filter((r) => r.method === 'POST' && r.path === '/disbursement/v1_0/transfer' && JSON.parse(r.body).externalId === reference);
const payOutAvailability = async () => {
  const data = expectSuccess(await h.request('GET', '/api/v1/configuration', { key: t.key }), 200);
  return (data.rails as { code: string; payOut: { availability: string } }[]).find((r) => r.code === RAIL)!.payOut.availability;
};

describe('pay-outs on a DELAYED rail', () => {
  it('turns DELAYED under repeated 5xx; pay-outs then wait with 0 requests, and go out exactly once each when it recovers', async () => {
    // Seven transfers answered, then three whose transfer MTN answers 500 (not processed): 30 % errors.
    const answered = [];
    for (let i = 0; i < 7; i++) answered.push(await transfer());
    sim.fault = { mode: 'error500', on: 'initiate', landed: false, remaining: 3 };
    const failing = [];
    for (let i = 0; i < 3; i++) failing.push(await transfer());
    for (const reference of failing) expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    h.clock.advance(10_000);
    expect(await payOutAvailability()).toBe('DELAYED');

    const waiting = [await transfer(), await transfer(), await transfer()];
    for (const reference of waiting) {
      expect(await payOut(reference)).toMatchObject({ status: 'PENDING', queuedForFloat: true });
      expect(transfersSent(reference)).toHaveLength(0);
    }
    // Still DELAYED: the float job keeps them.
    await runFloatTick(h.services);
    for (const reference of waiting) expect(transfersSent(reference)).toHaveLength(0);

    // The failing transfers settle (MTN never had them), and the window moves past them.
    for (let i = 0; i < 5; i++) {
      h.clock.advance(60_000);
      await pollOnce(h.services);
    }
    for (const reference of failing) expect((await rowOf(h, reference)).status).toBe('FAILED');
    h.clock.advance(AVAILABILITY_WINDOW_MS);
    expect(await payOutAvailability()).toBe('OPERATIONAL');

    for (let pass = 0; pass < 5 && waiting.some((r) => transfersSent(r).length === 0); pass++) await runFloatTick(h.services);
    for (const reference of waiting) expect(transfersSent(reference)).toHaveLength(1);
    for (const reference of waiting) expect((await settled(h, reference)).status).toBe('SUCCESS');
    // Later passes send nothing again.
    await runFloatTick(h.services);
    h.clock.advance(60_000);
    await pollOnce(h.services);
    for (const reference of waiting) expect(transfersSent(reference)).toHaveLength(1);
    for (const reference of answered) expect(transfersSent(reference)).toHaveLength(1);
    await expectLedgerBalanced(h.services.db);
  });
});
