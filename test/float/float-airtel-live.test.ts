/**
 * Airtel Money's float, LIVE keys against the Airtel simulator (real Kolo over HTTP, real
 * database): staff read the disbursement wallet's balance (`GET /standard/v1/users/balance`) and
 * it is the simulator's, moved by what it did; a pay-out larger than it makes no disbursement
 * request until the balance is raised and read again, then exactly one; Airtel's "not enough
 * balance" (`DP00900001007`, its wallet short) queues the pay-out instead of failing it, and a
 * resend under a new transaction id pays it once the float is back.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AIRTEL_SIM_DEFAULTS, startAirtelSimulator, type AirtelSimulator } from '../../src/connectors/airtel-money/simulator/airtel-simulator.ts';
import { providers } from '../../src/db/schema.ts';
import { runFloatTick } from '../../src/float/index.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createStaffAccount, loginStaff, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { eventTrail, rowOf, waitUntil, webhookTypes } from '../helpers/live.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';

const RAIL = 'AIRTEL_MONEY_CG';
let sim: AirtelSimulator;
let h: Harness;
let t: Tenant;
let admin: StaffAccount;

beforeAll(async () => {
  sim = await startAirtelSimulator({ decisionDelayMs: 10 });
  h = await startHarness({
    ...DASHBOARD_TEST_ENV,
    CONNECTOR_TIMEOUT_MS: '1000',
    AIRTEL_MONEY_BASE_URL: sim.url,
    AIRTEL_MONEY_CLIENT_ID: AIRTEL_SIM_DEFAULTS.clientId,
    AIRTEL_MONEY_CLIENT_SECRET: AIRTEL_SIM_DEFAULTS.clientSecret,
    AIRTEL_MONEY_PIN: AIRTEL_SIM_DEFAULTS.pin,
    AIRTEL_MONEY_PUBLIC_KEY: sim.publicKey,
    AIRTEL_MONEY_COUNTRIES: 'CG',
  });
  sim.options.now = () => h.clock.now().getTime();
  sim.options.callbackUrl = `${h.baseUrl}/api/v1/callbacks/airtel`;
  await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, RAIL));
  t = await h.createTenant({ environment: 'LIVE' });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  // LIVE pay-outs are funded by settled LIVE pay-ins.
  const funding = expectSuccess(
    await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 500_000, currency: 'XAF', paymentMethod: RAIL, payerAccount: '242051000001' } }),
    201,
  ).reference as string;
  await waitUntil('the funding charge', async () => (await rowOf(h, funding)).status === 'SUCCESS');
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
});

const adminToken = async () => (await loginStaff(h, admin)).accessToken;
/** Staff read the rail's balance now, through the admin API. */
const readFloat = async () => expectSuccess(await asAccount(h, await adminToken(), 'POST', `/api/v1/admin/float/${RAIL}/read`), 200);
const transfer = async (amount: number, beneficiaryAccount = '242051000007') =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: { amount, currency: 'XAF', paymentMethod: RAIL, beneficiaryAccount, beneficiaryName: 'Awa' } }), 201)
    .reference as string;
/** Disbursements Airtel received for `reference` (any resend id included). */
const disbursements = (reference: string) =>
  sim.requests.filter((r) => r.method === 'POST' && r.path === '/standard/v1/disbursements/' && JSON.parse(r.body).reference === reference);
const settle = async (reference: string) => {
  for (let i = 0; i < 10 && (await rowOf(h, reference)).status === 'PENDING'; i++) {
    h.clock.advance(10_000);
    await pollOnce(h.services);
    await new Promise((r) => setTimeout(r, 50));
  }
  return rowOf(h, reference);
};

describe('Airtel Money float', () => {
  it("reads the disbursement wallet's balance: the simulator's, moved by what it did", async () => {
    const before = sim.options.balances.CG!;
    const reference = await transfer(3000);
    expect((await settle(reference)).status).toBe('SUCCESS');
    expect(sim.options.balances.CG).toBe(before - 3000);
    const float = await readFloat();
    expect(float).toMatchObject({ railCode: RAIL, hasBalanceQuery: true, operatorBalance: before - 3000, currency: 'XAF', lastReadError: null });
    const call = sim.requests.filter((r) => r.path === '/standard/v1/users/balance').at(-1)!;
    expect(call.headers).toMatchObject({ 'x-country': 'CG', 'x-currency': 'XAF' });
  });

  it('a pay-out larger than the float makes 0 disbursement requests until the balance is raised and read, then exactly one', async () => {
    sim.options.balances.CG = 2000;
    await readFloat();
    const reference = await transfer(5000);
    await waitUntil('the pay-out to be queued', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(disbursements(reference)).toHaveLength(0);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null });

    sim.options.balances.CG = 1_000_000;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(disbursements(reference)).toHaveLength(1);
    expect((await settle(reference)).status).toBe('SUCCESS');
    expect(disbursements(reference)).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectLedgerBalanced(h.services.db);
  });

  it("Airtel's 'not enough balance' (DP00900001007) queues the pay-out, never fails it; a resend under a new id pays it once the float is back", async () => {
    sim.options.balances.CG = 1_000_000;
    await readFloat();
    // The wallet empties behind Kolo's back after the reading.
    sim.options.balances.CG = 100;
    const before = await tenantBalances(h, t, 'LIVE', 'XAF');
    const reference = await transfer(4000);
    await waitUntil('Kolo to queue it again', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null, floatResends: 1 });
    expect((await eventTrail(h, reference)).map((e) => e[2])).toContain('FLOAT_REQUEUED');
    expect(await webhookTypes(h, reference)).toEqual([]);
    expect(sim.transactions.get(reference)).toMatchObject({ status: 'TF', message: 'Not enough balance' });
    expect(sim.options.balances.CG).toBe(100);
    // The rail counts as empty until a new reading: nothing else goes out.
    await runFloatTick(h.services);
    expect(disbursements(reference)).toHaveLength(1);

    sim.options.balances.CG = 1_000_000;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    const sent = disbursements(reference);
    expect(sent.map((r) => JSON.parse(r.body).transaction.id)).toEqual([reference, `${reference}-R1`]);
    const row = await settle(reference);
    expect(row).toMatchObject({ status: 'SUCCESS', operatorTransactionId: sim.transactions.get(`${reference}-R1`)!.airtelMoneyId });
    expect(sim.options.balances.CG).toBe(1_000_000 - 4000);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    expect((await tenantBalances(h, t, 'LIVE', 'XAF')).reserved).toBe(before.reserved);
    await expectLedgerBalanced(h.services.db);
  });
});
