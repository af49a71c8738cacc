/**
 * M-Pesa's balance queries back off while Daraja gives no balance, LIVE keys against the Daraja
 * simulator (real Kolo over HTTP, real database), the float job's passes run every minute of the
 * test clock, and every 15 s where that matters: Account Balance queries accepted whose Result never comes, and queries answered
 * with errors (the simulator's fault switch), are sent again after FLOAT_READ_INTERVAL_MS, then
 * twice, four times it… up to FLOAT_READ_BACKOFF_MAX_MS — never once per pass; the first balance
 * stored brings the usual interval back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMpesaSimulator, type MpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { latestFloatReading } from '../../src/db/queries/float.ts';
import { railFloat, runFloatTick, unansweredBalanceQueries } from '../../src/float/index.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { mpesaEnv, startLiveHarness, waitUntil } from '../helpers/live.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import type { Harness } from '../harness.ts';

const RAIL = 'MPESA_KE';
const MINUTE = 60_000;
/** A pass of the float job every minute of the test clock (the job's passes are at most 15 s apart). */
const PASS_MS = MINUTE;

let sim: MpesaSimulator;
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  // Interval 5 min (the default), back-off bounded at 20 min.
  const env = { ...mpesaEnv(sim), ...DASHBOARD_TEST_ENV, FLOAT_READ_INTERVAL_MS: String(5 * MINUTE), FLOAT_READ_BACKOFF_MAX_MS: String(20 * MINUTE) };
  ({ h } = await startLiveHarness(env, receiver.url, undefined, 'KES'));
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});

const balanceQueries = () => sim.requests.filter((r) => r.path === '/mpesa/accountbalance/v1/query').length;

/**
 * Runs the float job's passes, one every `stepMs` of the test clock, for `minutes`; returns the
 * minutes (from the start) at which a balance query went out. The test clock moves a minute in
 * a few real milliseconds, while a Result comes back in real time: with `awaitResults` (the
 * operator answers every query), each pass that sent a query waits for its Result to be stored
 * before the clock moves on, as a Result a few seconds late would be in service.
 */
async function passes(minutes: number, stepMs = PASS_MS, options: { awaitResults?: boolean } = {}): Promise<number[]> {
  const start = h.clock.now().getTime();
  const sentAt: number[] = [];
  for (let i = 0; i < (minutes * MINUTE) / stepMs; i++) {
    const before = balanceQueries();
    await runFloatTick(h.services);
    if (balanceQueries() > before) {
      sentAt.push((h.clock.now().getTime() - start) / MINUTE);
      if (options.awaitResults) await waitUntil('the Result of that query to be stored', () => unansweredBalanceQueries(h.services, RAIL) === 0);
    }
    h.clock.advance(stepMs);
  }
  return sentAt;
}
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('M-Pesa Account Balance back-off', () => {
  it('queries accepted whose Result never comes: asked again after 5, 10, 20, 20 minutes; the next Result brings back the interval', { timeout: 120_000 }, async () => {
    // Daraja accepts every query, and its Results are lost.
    sim.options.callbacks.drop = true;
    // Passes every 15 s: one query in the first 5 minutes, not one per pass.
    expect(await passes(5, 15_000)).toEqual([0]);
    const sent = await passes(55);
    expect(sent).toEqual([0, 10, 30, 50]);
    expect(unansweredBalanceQueries(h.services, RAIL)).toBe(5);
    expect((await railFloat(h.services, RAIL))!.state).toBe('UNKNOWN');

    // Results arrive again: the next query (20 minutes after the last) is answered, then every 5 minutes.
    sim.options.callbacks.drop = false;
    const start = h.clock.now().getTime();
    let answeredAt = -1;
    for (let i = 0; i < (40 * MINUTE) / PASS_MS; i++) {
      const before = balanceQueries();
      await runFloatTick(h.services);
      if (balanceQueries() > before && answeredAt < 0) {
        answeredAt = (h.clock.now().getTime() - start) / MINUTE;
        await waitUntil('the Result to be stored', async () => (await latestFloatReading(h.services.db, RAIL))?.amount === sim.options.orgBalance);
        expect(unansweredBalanceQueries(h.services, RAIL)).toBe(0);
        break;
      }
      h.clock.advance(PASS_MS);
    }
    // 55 + 20 = 75 minutes after the first query: 15 minutes into this phase.
    expect(answeredAt).toBe(15);
    h.clock.advance(PASS_MS);
    const after = await passes(16, PASS_MS, { awaitResults: true });
    expect(gaps(after)).toEqual([5, 5]);
    expect((await railFloat(h.services, RAIL))!).toMatchObject({ operatorBalance: sim.options.orgBalance, lastReadError: null });
    await expectLedgerBalanced(h.services.db);
  });

  it('queries answered with errors (the fault switch: HTTP 500) back off the same way, bounded at 20 minutes; a balance ends it', { timeout: 120_000 }, async () => {
    sim.options.callbacks.drop = false;
    sim.fault = { mode: 'error500', on: 'status', landed: false };
    const sent = await passes(60);
    expect(gaps(sent)).toEqual([5, 10, 20, 20]);
    expect(unansweredBalanceQueries(h.services, RAIL)).toBe(5);
    const errored = await railFloat(h.services, RAIL);
    expect(errored!.lastReadError).toMatch(/HTTP 500/);

    sim.fault = null;
    const recovered = await passes(45, PASS_MS, { awaitResults: true });
    // The fault lifted, the next query is answered: its Result is stored, then every 5 minutes.
    expect((await latestFloatReading(h.services.db, RAIL))?.amount).toBe(sim.options.orgBalance);
    expect(unansweredBalanceQueries(h.services, RAIL)).toBe(0);
    // The first query 20 minutes after the last failed one, then every 5 minutes.
    expect(recovered[0]! + 60 - sent.at(-1)!).toBe(20);
    expect(gaps(recovered)).toEqual([5, 5, 5, 5, 5]);
    await expectLedgerBalanced(h.services.db);
  });

  it('a Result that comes after the next query went out leaves that query unanswered: the following query waits the usual interval after it', { timeout: 60_000 }, async () => {
    // The first query's Result comes a second late (real time); the second query's is lost.
    sim.options.callbacks.delayMs = 1000;
    h.clock.advance(5 * MINUTE);
    const before = balanceQueries();
    await runFloatTick(h.services);
    expect(balanceQueries()).toBe(before + 1);
    const firstSentAt = h.clock.now().getTime();
    await sleep(200); // past the simulator's decision: the first Result is on its way
    sim.options.callbacks.drop = true;
    h.clock.advance(5 * MINUTE);
    await runFloatTick(h.services);
    expect(balanceQueries()).toBe(before + 2);

    await waitUntil('the first Result to be stored', async () => (await latestFloatReading(h.services.db, RAIL))?.readAt.getTime() === firstSentAt);
    // The stored balance is six minutes old at the next pass, and the second query is unanswered:
    // no query then; the next one 5 minutes after the second.
    sim.options.callbacks.delayMs = 0;
    sim.options.callbacks.drop = false;
    h.clock.advance(MINUTE);
    expect(await passes(5, PASS_MS, { awaitResults: true })).toEqual([4]);
    expect(balanceQueries()).toBe(before + 3);
  });
});
