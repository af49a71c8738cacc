/**
 * "Ask the operator now" on a LIVE MTN MoMo pay-in, against the MTN simulator (callbacks
 * dropped, so only Kolo's own status queries can settle it): when MTN's status query answers a
 * 500 or does not answer before Kolo's timeout, the transaction stays PENDING and no money moves,
 * although MTN has in fact paid it; once MTN answers, the same check settles it as SUCCESS.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import { STATUS_CHECK_INTERVAL_MS } from '../../src/dashboard/status-check.ts';
import { openSession } from '../../src/dashboard/tokens.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { asAccount } from '../helpers/dashboard.ts';
import { expectSuccess } from '../helpers/merchant-api.ts';
import { mtnEnv, startLiveHarness, waitUntil } from '../helpers/live.ts';

let sim: MtnSimulator;
let h: Harness;
let t: Tenant;
let token: string;

beforeAll(async () => {
  sim = await startMtnSimulator({ decisionDelayMs: 30, callbacks: { delayMs: 0, duplicate: false, drop: true } });
  ({ h, t } = await startLiveHarness(mtnEnv(sim), 'http://127.0.0.1:9/hooks'));
  const [account] = await h.services.db.select().from(accounts).where(eq(accounts.id, t.merchantId));
  token = (await openSession(h.services, account!)).accessToken;
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
});

const check = (reference: string) => asAccount(h, token, 'POST', `/api/v1/merchants/transactions/${reference}/status-check`);
/** MTN status queries received so far. */
const statusQueries = () => sim.requests.filter((r) => r.method === 'GET' && r.path.includes('/requesttopay/')).length;
const ledgerLines = async () => expectSuccess(await asAccount(h, token, 'GET', '/api/v1/merchants/balance?environment=LIVE'), 200);

describe('asking MTN now about a LIVE pay-in', () => {
  it('a 500 or a timeout from the status query leaves it PENDING with no money moved; MTN answering settles it', async () => {
    const created = await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000105' },
    });
    expect(created.status, created.text).toBe(201);
    const reference = created.json.data.reference as string;
    await waitUntil(`MTN to pay ${reference}`, () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status === 'SUCCESSFUL'));
    const before = await ledgerLines();

    sim.fault = { mode: 'error500', on: 'status', landed: true };
    const asked = statusQueries();
    const after500 = expectSuccess(await check(reference), 200);
    expect(statusQueries()).toBe(asked + 1);
    expect(after500).toMatchObject({ reference, status: 'PENDING', completedAt: null });

    h.clock.advance(STATUS_CHECK_INTERVAL_MS + 1000);
    sim.fault = { mode: 'timeout', on: 'status', landed: true };
    expect(expectSuccess(await check(reference), 200)).toMatchObject({ reference, status: 'PENDING' });
    expect(statusQueries()).toBe(asked + 2);
    // Neither answer moved money, nor wrote a status change.
    expect(await ledgerLines()).toEqual(before);
    expect(after500.events.map((e: { toStatus: string }) => e.toStatus)).not.toContain('FAILED');

    h.clock.advance(STATUS_CHECK_INTERVAL_MS + 1000);
    sim.fault = null;
    const paid = expectSuccess(await check(reference), 200);
    expect(paid).toMatchObject({ reference, status: 'SUCCESS' });
    expect(await ledgerLines()).not.toEqual(before);
  });
});
