/**
 * Pay-outs wait for float, LIVE keys against the MTN MoMo simulator (real Kolo over HTTP, real
 * database): a pay-out larger than the rail's float sends nothing to MTN until the simulator's
 * disbursement balance is raised and read, then exactly one transfer; a queued pay-out cancelled
 * by its merchant releases exactly its reservation; one that waits past its maximum wait fails
 * FLOAT_WAIT_EXPIRED; MTN's `NOT_ENOUGH_FUNDS` (its wallet short) queues the pay-out again instead
 * of failing it; a float below the low watermark notifies staff once over several reads, and once
 * on recovery.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { sentMails } from '../../src/dashboard/mail.ts';
import { runFloatTick } from '../../src/float/index.ts';
import { auditLog } from '../../src/db/schema-dashboard.ts';
import type { Harness, Tenant } from '../harness.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { eventTrail, mtnEnv, rowOf, settled, waitUntil, webhookTypes } from '../helpers/live.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { asAccount, createDashboardAccount, createStaffAccount, loginStaff, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { eq } from 'drizzle-orm';

const RAIL = 'MTN_MOMO_CM';
let sim: MtnSimulator;
let h: Harness;
let t: Tenant;
let admin: StaffAccount;

const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  env: (s) => ({ ...mtnEnv(s), ...DASHBOARD_TEST_ENV, FLOAT_WATERMARKS: `${RAIL}=200000:50000`, FLOAT_QUEUE_MAX_WAIT_MINUTES: '60' }),
});
beforeAll(async () => {
  ({ sim, h, t } = live);
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  // LIVE pay-outs are funded by settled LIVE pay-ins.
  const funding = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 900_000 }) }), 201).reference as string;
  expect((await settled(h, funding)).status).toBe('SUCCESS');
});

const transfer = async (amount: number, beneficiaryAccount = '237677000001') =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount, beneficiaryAccount }) }), 201).reference as string;
const payOut = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);
/** Transfers MTN received for `reference`. */
const transfersSent = (reference: string) =>
  sim.requests.filter((r) => r.method === 'POST' && r.path === '/disbursement/v1_0/transfer' && JSON.parse(r.body).externalId === reference);
/** Staff read the rail's balance now, through the admin API. */
const readFloat = async () => expectSuccess(await asAccount(h, await adminToken(), 'POST', `/api/v1/admin/float/${RAIL}/read`), 200);
/** A fresh access token of the admin (tests move the clock past a token's life). */
const adminToken = async () => (await loginStaff(h, admin)).accessToken;
const floatMails = () => sentMails(h.services.config).filter((m) => m.subject.includes(`float ${RAIL}`));

describe('pay-outs wait for float', () => {
  it('a pay-out larger than the float makes 0 operator requests until the balance is raised, then exactly one', async () => {
    sim.options.balances.disbursement = 300_000;
    expect(await readFloat()).toMatchObject({ railCode: RAIL, operatorBalance: 300_000, sendable: 300_000 });
    const before = await tenantBalances(h, t, 'LIVE');
    const reference = await transfer(400_000);
    expect(await payOut(reference)).toMatchObject({ status: 'PENDING', queuedForFloat: true, heldAmount: 400_000 });
    expect(transfersSent(reference)).toHaveLength(0);
    expect((await tenantBalances(h, t, 'LIVE')).reserved).toBe(before.reserved + 400_000);

    // Later reads of the same balance send nothing.
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(transfersSent(reference)).toHaveLength(0);
    expect((await rowOf(h, reference)).status).toBe('PENDING');

    sim.options.balances.disbursement = 1_000_000;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(transfersSent(reference)).toHaveLength(1);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(transfersSent(reference)).toHaveLength(1);
    expect((await payOut(reference)).queuedForFloat).toBe(false);
    expect((await eventTrail(h, reference)).map((e) => e[2])).toEqual(['CREATED', 'FLOAT_QUEUED', 'FLOAT_RELEASED', 'INITIATED', 'POLL']);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectLedgerBalanced(h.services.db);
  });

  it('the merchant cancels a queued pay-out: FAILED PAYOUT_CANCELLED, exactly its reservation released, webhook', async () => {
    sim.options.balances.disbursement = 1000;
    await readFloat();
    const before = await tenantBalances(h, t, 'LIVE');
    const reference = await transfer(5000);
    expect((await payOut(reference)).queuedForFloat).toBe(true);
    const reservedWhileQueued = (await tenantBalances(h, t, 'LIVE')).reserved;
    expect(reservedWhileQueued).toBe(before.reserved + 5000);

    // Another merchant cannot see it, let alone cancel it.
    const other = await h.createTenant({ environment: 'LIVE' });
    expectError(await h.request('POST', `/api/v1/pay-out/${reference}/cancel`, { key: other.key }), 404, 'TRANSACTION_NOT_FOUND');

    const cancelled = expectSuccess(await h.request('POST', `/api/v1/pay-out/${reference}/cancel`, { key: t.key }), 200);
    expect(cancelled).toMatchObject({ reference, status: 'FAILED', failureCode: 'PAYOUT_CANCELLED', heldAmount: 0, queuedForFloat: false });
    expect(await tenantBalances(h, t, 'LIVE')).toEqual(before);
    expect(transfersSent(reference)).toHaveLength(0);
    expect(await webhookTypes(h, reference)).toEqual(['payout.failed']);
    expectError(await h.request('POST', `/api/v1/pay-out/${reference}/cancel`, { key: t.key }), 409, 'PAYOUT_NOT_CANCELLABLE');
    await expectLedgerBalanced(h.services.db);
  });

  it('a pay-out sent to MTN cannot be cancelled', async () => {
    sim.options.balances.disbursement = 1_000_000;
    await readFloat();
    const reference = await transfer(1000);
    expect(transfersSent(reference)).toHaveLength(1);
    expectError(await h.request('POST', `/api/v1/pay-out/${reference}/cancel`, { key: t.key }), 409, 'PAYOUT_NOT_CANCELLABLE');
    expect((await settled(h, reference)).status).toBe('SUCCESS');
  });

  it('a queued pay-out past its maximum wait fails FLOAT_WAIT_EXPIRED and releases its reservation', async () => {
    sim.options.balances.disbursement = 1000;
    await readFloat();
    const before = await tenantBalances(h, t, 'LIVE');
    const reference = await transfer(6000);
    h.clock.advance(59 * 60_000);
    await runFloatTick(h.services);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    h.clock.advance(2 * 60_000);
    await runFloatTick(h.services);
    expect(await payOut(reference)).toMatchObject({ status: 'FAILED', failureCode: 'FLOAT_WAIT_EXPIRED', heldAmount: 0 });
    expect(await tenantBalances(h, t, 'LIVE')).toEqual(before);
    expect(transfersSent(reference)).toHaveLength(0);
    expect(await webhookTypes(h, reference)).toEqual(['payout.failed']);
    await expectLedgerBalanced(h.services.db);
  });

  it("MTN's NOT_ENOUGH_FUNDS (its wallet short) queues the pay-out again, never fails it; it goes out once the float is back", async () => {
    sim.options.balances.disbursement = 1_000_000;
    await readFloat();
    // The wallet empties behind Kolo's back after the reading.
    sim.options.balances.disbursement = 100;
    const reference = await transfer(7000);
    await waitUntil('MTN to refuse the transfer', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status === 'FAILED'));
    await waitUntil('Kolo to queue it again', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    expect(await payOut(reference)).toMatchObject({ status: 'PENDING', queuedForFloat: true, failureCode: null });
    expect((await eventTrail(h, reference)).map((e) => e[2])).toContain('FLOAT_REQUEUED');
    expect(await webhookTypes(h, reference)).toEqual([]);
    // The rail counts as empty until a new reading: nothing else goes out.
    await runFloatTick(h.services);
    expect(transfersSent(reference)).toHaveLength(1);

    sim.options.balances.disbursement = 1_000_000;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(transfersSent(reference)).toHaveLength(2);
    // A new X-Reference-Id for the new send.
    const [first, second] = transfersSent(reference);
    expect(first!.headers['x-reference-id']).not.toBe(second!.headers['x-reference-id']);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectLedgerBalanced(h.services.db);
  });
});

describe('float watermarks', () => {
  it('below the low watermark notifies staff once over several reads, and once on recovery', async () => {
    sim.options.balances.disbursement = 1_000_000;
    await readFloat();
    const mailsBefore = floatMails().length;
    sim.options.balances.disbursement = 150_000;
    for (let i = 0; i < 3; i++) expect(await readFloat()).toMatchObject({ state: 'LOW', notifiedState: 'LOW' });
    expect(floatMails().slice(mailsBefore).map((m) => m.subject)).toEqual([`Kolo : float ${RAIL} bas (LOW)`]);
    expect(floatMails().at(-1)!.to).toBe(admin.email);

    sim.options.balances.disbursement = 600_000;
    for (let i = 0; i < 2; i++) expect(await readFloat()).toMatchObject({ state: 'OK' });
    expect(floatMails().slice(mailsBefore).map((m) => m.subject)).toEqual([`Kolo : float ${RAIL} bas (LOW)`, `Kolo : float ${RAIL} rétabli (OK)`]);
    const audit = await h.services.db.select().from(auditLog).where(eq(auditLog.action, 'FLOAT_STATE_CHANGED'));
    expect(audit.map((a) => (a.after as { state: string }).state).slice(-2)).toEqual(['LOW', 'OK']);
  });

  it('staff read the float of each LIVE rail; a merchant may not', async () => {
    const list = expectSuccess(await asAccount(h, await adminToken(), 'GET', '/api/v1/admin/float'), 200);
    expect(list.find((f: { railCode: string }) => f.railCode === RAIL)).toMatchObject({ lowWatermark: 200_000, criticalWatermark: 50_000, hasBalanceQuery: true });
    const merchant = await createDashboardAccount(h);
    expect((await asAccount(h, merchant.accessToken, 'GET', '/api/v1/admin/float')).status).toBe(403);
    const support = await createStaffAccount(h, { role: 'SUPPORT' });
    expect((await asAccount(h, support.accessToken, 'POST', `/api/v1/admin/float/${RAIL}/read`)).status).toBe(403);
  });
});
