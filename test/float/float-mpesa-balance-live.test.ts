/**
 * M-Pesa's float, LIVE keys against the Daraja simulator (real Kolo over HTTP, real database):
 * Account Balance is asynchronous — Kolo sends the query, Daraja answers "accepted" and posts the
 * Result to the unguessable result URL — and the stored reading is the simulator's Utility
 * Account, moved by its own B2C payments; a pay-out larger than that float makes 0 B2C requests
 * until the simulator's balance is raised and read again, then exactly one; a result posted with a
 * forged token stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MPESA_SIM_DEFAULTS, startMpesaSimulator, type MpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { latestFloatReading } from '../../src/db/queries/float.ts';
import { railFloat, runFloatTick } from '../../src/float/index.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import type { Harness, Tenant } from '../harness.ts';
import { asAccount, createStaffAccount, loginStaff, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { mpesaEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

const RAIL = 'MPESA_KE';
let sim: MpesaSimulator;
let h: Harness;
let t: Tenant;
let receiver: Receiver;
let admin: StaffAccount;

beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness({ ...mpesaEnv(sim), ...DASHBOARD_TEST_ENV }, receiver.url, undefined, 'KES'));
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  const funding = expectSuccess(
    await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 50_000, payerAccount: '254711000900' }) }),
    201,
  ).reference as string;
  expect((await settled(h, funding)).status).toBe('SUCCESS');
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});

const adminToken = async () => (await loginStaff(h, admin)).accessToken;
const balanceQueries = () => sim.requests.filter((r) => r.path === '/mpesa/accountbalance/v1/query');
const b2cSends = (reference: string) =>
  sim.requests.filter((r) => r.path === '/mpesa/b2c/v3/paymentrequest' && JSON.parse(r.body).OriginatorConversationID.startsWith(reference));
/** Waits for the Result of the balance query just sent to be stored as a reading of `amount`. */
const readingOf = async (amount: number) => {
  await waitUntil(`a float reading of ${amount}`, async () => (await latestFloatReading(h.services.db, RAIL))?.amount === amount);
  return (await railFloat(h.services, RAIL))!;
};
const transfer = async (amount: number) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'KES', amount, beneficiaryAccount: '254711000201' }) }), 201)
    .reference as string;

describe('M-Pesa Account Balance', () => {
  it("staff's read sends Account Balance; its Result posted to the result URL is the simulator's Utility Account, moved by its B2C", async () => {
    const queriesBefore = balanceQueries().length;
    const read = await asAccount(h, await adminToken(), 'POST', `/api/v1/admin/float/${RAIL}/read`);
    expect(read.status).toBe(200);
    expect(balanceQueries()).toHaveLength(queriesBefore + 1);
    const query = JSON.parse(balanceQueries().at(-1)!.body);
    expect(query).toMatchObject({ CommandID: 'AccountBalance', PartyA: MPESA_SIM_DEFAULTS.b2cShortCode, IdentifierType: '4' });
    expect(query.ResultURL).toMatch(/\/api\/v1\/callbacks\/balance\/[0-9a-f.]+$/);
    expect(query.ResultURL).not.toMatch(/mpesa|query/i);
    expect(await readingOf(sim.options.orgBalance)).toMatchObject({ hasBalanceQuery: true, operatorBalance: sim.options.orgBalance, currency: 'KES', lastReadError: null });

    // A B2C paid by the simulator moves its balance; the next reading follows.
    const before = sim.options.orgBalance;
    const reference = await transfer(700);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(sim.options.orgBalance).toBe(before - 700);
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect((await readingOf(before - 700)).operatorBalance).toBe(before - 700);
  });

  it('a pay-out larger than the M-Pesa float makes 0 B2C requests until the balance is raised and read again, then exactly one', async () => {
    sim.options.orgBalance = 200;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    await readingOf(200);
    const reference = await transfer(500);
    await waitUntil('the pay-out to be queued', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    // Another reading, still short: nothing goes out.
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    await waitUntil('the second reading', async () => (await latestFloatReading(h.services.db, RAIL))!.readAt.getTime() === h.clock.now().getTime());
    await new Promise((r) => setTimeout(r, 100));
    expect(b2cSends(reference)).toHaveLength(0);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null });

    sim.options.orgBalance = MPESA_SIM_DEFAULTS.orgBalance;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    // The Result arrives, is stored, and the queue is released by it.
    await waitUntil('the B2C to go out', () => b2cSends(reference).length > 0);
    await waitUntil('Daraja to pay it', () => sim.b2c.get(reference)?.resultCode === 0);
    for (let i = 0; i < 5 && (await rowOf(h, reference)).status === 'PENDING'; i++) {
      h.clock.advance(30_000);
      await pollOnce(h.services);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(b2cSends(reference)).toHaveLength(1);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'SUCCESS', operatorTransactionId: sim.b2c.get(reference)!.receipt });
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectLedgerBalanced(h.services.db);
  });

  it('a result posted with a forged or malformed token is answered 200 and stores nothing', async () => {
    const last = await latestFloatReading(h.services.db, RAIL);
    const query = JSON.parse(balanceQueries().at(-1)!.body);
    const genuine = new URL(query.ResultURL).pathname;
    const forged = genuine.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0'));
    const body = { Result: { ResultCode: 0, ResultParameters: { ResultParameter: [{ Key: 'AccountBalance', Value: 'Utility Account|KES|999999999.00|999999999.00|0.00|0.00' }] } } };
    for (const path of [forged, '/api/v1/callbacks/balance/zz', '/api/v1/callbacks/balance/00.00.00.00']) {
      expect((await h.request('POST', path, { body })).status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 100));
    expect((await latestFloatReading(h.services.db, RAIL))!.id).toBe(last!.id);
  });
});
