/**
 * Rails are independent: with MTN answering its status queries slowly and both operators' callbacks
 * lost, the poller's questions to Orange are answered and written while MTN's are still waiting,
 * and the next claim leaves MTN's work alone once its lane is full. LIVE keys against the MTN and
 * Orange simulators; the poller's lanes as the running service uses them (`dispatchOnce`, which
 * does not wait for the answers).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startOrangeSimulator, type OrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import { DecisionWriter, dispatchOnce, laneLimitsOf, type PollerWork } from '../../src/jobs/status-poller.ts';
import { OperatorLanes } from '../../src/jobs/operator-lanes.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import type { Harness, Tenant } from '../harness.ts';
import { chargeBody, expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { mtnEnv, orangeEnv, rowOf, startLiveHarness, waitUntil } from '../helpers/live.ts';

const MTN_STATUS_MS = 3000;
let mtn: MtnSimulator;
let orange: OrangeSimulator;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  const lost = { delayMs: 0, duplicate: false, drop: true };
  mtn = await startMtnSimulator({ decisionDelayMs: 30, callbacks: lost, latencyMs: { token: 0, check: 0, prepare: 0, initiate: 0, status: MTN_STATUS_MS } });
  orange = await startOrangeSimulator({ decisionDelayMs: 30, callbacks: lost });
  ({ h, t } = await startLiveHarness(
    { ...mtnEnv(mtn), ...orangeEnv(orange), CONNECTOR_TIMEOUT_MS: '10000', POLLER_OPERATOR_CONCURRENCY: '2', POLLER_OPERATOR_RATE: '50' },
    'http://127.0.0.1:9/hooks',
  ));
});
afterAll(async () => {
  await h?.close();
  await mtn?.close();
  await orange?.close();
});

const charge = async (paymentMethod: string, payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod, payerAccount, amount: 1000 }) }), 201).reference as string;

it('a slow operator delays only its own rail: Orange payments whose callback was lost settle while MTN is still answering', async () => {
  const mtnRefs = [await charge('MTN_MOMO_CM', '237677000001'), await charge('MTN_MOMO_CM', '237677000002'), await charge('MTN_MOMO_CM', '237677000003')];
  const orangeRefs = [await charge('ORANGE_MONEY_CM', '237699000001'), await charge('ORANGE_MONEY_CM', '237699000002')];
  await waitUntil('both operators to decide', () => orange.moved().length === 2 && mtn.moved().length === 3);
  h.clock.advance(2500); // the first poll is due

  const work: PollerWork = { lanes: new OperatorLanes(laneLimitsOf(h.services.config)), writer: new DecisionWriter(h.services), abandoned: { rows: [], attempts: [] } };
  const started = Date.now();
  const tick = await dispatchOnce(h.services, work);
  // All five were claimed but one MTN question waits in its lane (2 at once).
  expect(tick.claimed).toBe(5);
  expect(Date.now() - started).toBeLessThan(MTN_STATUS_MS);
  expect(work.lanes.load().MTN_MOMO).toEqual({ running: 2, waiting: 1 });

  await waitUntil('Orange payments to settle', async () => (await Promise.all(orangeRefs.map((r) => rowOf(h, r)))).every((r) => r.status === 'SUCCESS'));
  expect(Date.now() - started).toBeLessThan(MTN_STATUS_MS);
  expect((await Promise.all(mtnRefs.map((r) => rowOf(h, r)))).map((r) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);

  // MTN's answers come in their own time, and every payment ends paid.
  await waitUntil('MTN payments to settle', async () => (await Promise.all(mtnRefs.map((r) => rowOf(h, r)))).every((r) => r.status === 'SUCCESS'), 1000);
  await work.lanes.stop();
  await work.writer.idle();
  expect((await verifyLedger(h.services.db)).discrepancies).toEqual([]);
});
