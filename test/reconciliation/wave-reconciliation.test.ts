/**
 * Reconciliation of a Wave rail with LIVE keys against the Wave simulator, through the admin API:
 * the simulator's transaction list (`GET /v1/transactions`) is built from what it did; a clean
 * period opens no case; each planted discrepancy (a payment Kolo never asked for, a success Kolo
 * recorded as failed, a reversal after success, an amount difference, a balance adjustment) and a
 * merchant never told open exactly one case of their kind and nothing else; a second run opens
 * nothing; each resolution posts what it says and the ledger stays verified; SUPPORT reads but
 * cannot run or resolve.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount, operatorFloatAccount, platformAccount } from '../../src/ledger/accounts.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import type { WaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import type { Receiver } from '../helpers/webhooks.ts';
import { asAccount, createStaffAccount, loginStaff, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';
import { useLiveOperator, waveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { rowOf, settled, waveEnv, webhookTypes } from '../helpers/live.ts';

let sim: WaveSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;
let admin: StaffAccount;
let support: StaffAccount;

const live = useLiveOperator({ ...waveOperator(), env: (s: WaveSimulator) => ({ ...waveEnv(s), ...DASHBOARD_TEST_ENV }) });
beforeAll(async () => {
  ({ sim, receiver, h, t } = live);
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
});

const RAIL = 'WAVE_SN';
/** A request as `who`, logged in now (the tests move the clock past an access token's life). */
const as = async (who: StaffAccount, method: string, path: string, body?: unknown) => asAccount(h, (await loginStaff(h, who)).accessToken, method, path, body === undefined ? {} : { body });
const asAdmin = (method: string, path: string, body?: unknown) => as(admin, method, path, body);
const asSupport = (method: string, path: string, body?: unknown) => as(support, method, path, body);
const sessionOf = (reference: string) => [...sim.sessions.values()].find((s) => s.client_reference === reference)!;

async function payIn(payerAccount: string, amount: number): Promise<string> {
  const data = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', amount, payerAccount }) }), 201);
  sim.pay(sessionOf(data.reference).id as string);
  return data.reference as string;
}
async function payOut(beneficiaryAccount: string, amount: number): Promise<string> {
  const data = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'XOF', amount, beneficiaryAccount }) }), 201);
  return data.reference as string;
}
/** Delivers every due webhook (the merchant's receiver answers 200 unless told otherwise). */
async function tellMerchants(): Promise<void> {
  for (let i = 0; i < 20 && (await deliverOnce(h.services)).claimed > 0; i++);
}
const run = async (from: Date, to: Date) => asAdmin('POST', '/api/v1/admin/reconciliation/runs', { railCode: RAIL, from: from.toISOString(), to: to.toISOString() });
const openCases = async () => (await asAdmin('GET', '/api/v1/admin/reconciliation/cases?status=OPEN&size=100')).json.data.content as { id: string; kind: string; amount: number; transactionId: string | null; evidence: Record<string, any> }[];
const resolve = (id: string, action: string, who = admin) => as(who, 'POST', `/api/v1/admin/reconciliation/cases/${id}/resolution`, { action, note: `test ${action}` });
const balanceOf = (key: string) => accountBalance(h.services.db, key);
const expectLedgerClean = async () => expect((await verifyLedger(h.services.db)).discrepancies).toEqual([]);

let from: Date;
const refs = {} as Record<'a' | 'b' | 'c' | 'd' | 'f' | 'late' | 'n', string>;

describe('Wave reconciliation (LIVE, simulator)', () => {
  it('a clean period opens no case; the simulator lists what it moved', async () => {
    from = h.clock.now();
    refs.a = await payIn('221771231001', 50_000);
    refs.c = await payIn('221771231002', 20_000);
    refs.d = await payIn('221771231003', 10_000);
    for (const r of [refs.a, refs.c, refs.d]) expect((await settled(h, r)).status).toBe('SUCCESS');
    refs.b = await payOut('221771231004', 5000);
    await live.pollAfter(10_000);
    expect((await settled(h, refs.b)).status).toBe('SUCCESS');
    refs.f = await payOut('221771231602', 5000);
    expect((await rowOf(h, refs.f)).status).toBe('FAILED');
    // A pay-in the payer could not pay, closed as failed once Wave's session expired.
    const late = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', amount: 3000, payerAccount: '221771231601' }) }), 201);
    refs.late = late.reference as string;
    sessionOf(refs.late).checkout_status = 'expired';
    await live.pollAfter(60_000);
    expect((await rowOf(h, refs.late)).status).toBe('FAILED');
    await tellMerchants();
    h.clock.advance(2 * 3_600_000);

    const clean = await run(from, h.clock.now());
    expect(clean.status).toBe(201);
    expect(clean.json.data).toMatchObject({ railCode: RAIL, source: 'API', operatorRecords: 4, casesOpened: 0, drift: 0, currency: 'XOF' });
    expect(sim.requests.some((r) => r.method === 'GET' && r.path === '/v1/transactions')).toBe(true);
    expect(await openCases()).toEqual([]);
  });

  it('each planted discrepancy opens exactly one case of its kind, and nothing else; a second run opens nothing', async () => {
    sim.statement.plant({ kind: 'UNASKED_PAYMENT', amount: 7000, currency: 'XOF', msisdn: '221771239999' });
    sim.statement.plant({ kind: 'SUCCESS_OF', reference: refs.f! });
    sim.statement.plant({ kind: 'SUCCESS_OF', reference: refs.late! });
    sim.statement.plant({ kind: 'REVERSAL_OF', reference: refs.c! });
    sim.statement.plant({ kind: 'AMOUNT_OF', reference: refs.d!, amount: 9000 });
    sim.statement.plant({ kind: 'ADJUSTMENT', amount: -1500, currency: 'XOF' });
    // A pay-in whose webhook the merchant's server refused, and which it never read in the feed.
    receiver.fallback = { status: 500, body: 'down' };
    refs.n = await payIn('221771231005', 4000);
    expect((await settled(h, refs.n)).status).toBe('SUCCESS');
    await tellMerchants();
    receiver.fallback = { status: 200, body: 'ok' };
    h.clock.advance(2 * 3_600_000);

    const first = await run(from, h.clock.now());
    expect(first.status).toBe(201);
    const cases = await openCases();
    const kinds = cases.map((c) => c.kind).sort();
    expect(kinds).toEqual(['AMOUNT_MISMATCH', 'BALANCE_DRIFT', 'MERCHANT_NOT_TOLD', 'OPERATOR_ONLY', 'STATUS_MISMATCH', 'STATUS_MISMATCH', 'STATUS_MISMATCH']);
    expect(first.json.data.casesOpened).toBe(7);
    const byTx = async (ref: string) => {
      const id = (await rowOf(h, ref)).id;
      return cases.filter((c) => c.transactionId === id).map((c) => c.kind);
    };
    expect(await byTx(refs.f!)).toEqual(['STATUS_MISMATCH']);
    expect(await byTx(refs.late!)).toEqual(['STATUS_MISMATCH']);
    expect(await byTx(refs.c!)).toEqual(['STATUS_MISMATCH']);
    expect(await byTx(refs.d!)).toEqual(['AMOUNT_MISMATCH']);
    expect(await byTx(refs.n!)).toEqual(['MERCHANT_NOT_TOLD']);
    expect(cases.find((c) => c.kind === 'AMOUNT_MISMATCH')).toMatchObject({ amount: 1000 });
    // Drift: the sum of the open cases' amounts.
    expect(first.json.data.drift).toBe(7000 + 5000 + 3000 + 20_000 + 1000 + 1500 + 0);

    // While its case is open, the status answer says so (the status unchanged), and so does the dashboard.
    const inReview = expectSuccess(await h.request('GET', PATHS.payInStatus(refs.d), { key: t.key }), 200);
    expect(inReview).toMatchObject({ status: 'SUCCESS', reconciliation: 'IN_REVIEW' });
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(refs.a), { key: t.key }), 200)).not.toHaveProperty('reconciliation');
    const detail = await asAdmin('GET', `/api/v1/admin/merchants/${t.merchantId}/transactions-in/${(await rowOf(h, refs.d)).id}`);
    expect(detail.json.data).toMatchObject({ status: 'SUCCESS', isInReconciliation: true });

    const second = await run(from, h.clock.now());
    expect(second.json.data).toMatchObject({ casesOpened: 0, drift: first.json.data.drift });
    expect(await openCases()).toHaveLength(7);
  });

  it('SUPPORT reads runs and cases but cannot run or resolve (403 ACCESS_DENIED)', async () => {
    expect((await asSupport('GET', '/api/v1/admin/reconciliation/runs')).json.data.totalElements).toBe(3);
    const [one] = await openCases();
    expect((await asSupport('GET', `/api/v1/admin/reconciliation/cases/${one!.id}`)).status).toBe(200);
    const refused = await resolve(one!.id, 'ACCEPT', support);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('ACCESS_DENIED');
    expect((await asSupport('POST', '/api/v1/admin/reconciliation/runs', { railCode: RAIL, from: from.toISOString(), to: h.clock.now().toISOString() })).status).toBe(403);
    expect(await openCases()).toHaveLength(7);
  });

  it('each resolution posts what it says; the ledger stays verified; a resolved case cannot be resolved again', async () => {
    const cases = await openCases();
    const of = async (kind: string, ref?: string) => {
      const id = ref ? (await rowOf(h, ref)).id : null;
      return cases.find((c) => c.kind === kind && (id === null || c.transactionId === id))!;
    };
    const loss = platformAccount('LOSS', 'LIVE', 'XOF').key;
    const float = operatorFloatAccount(RAIL, 'LIVE', 'XOF').key;
    const available = merchantAccount(t.applicationId, 'LIVE', 'XOF', 'AVAILABLE').key;

    // A balance adjustment of −1500 written off: the float loses 1500, LOSS gains it.
    const floatBefore = await balanceOf(float);
    expect((await resolve((await of('BALANCE_DRIFT')).id, 'WRITE_OFF')).json.data).toMatchObject({ status: 'RESOLVED', resolution: 'WRITE_OFF', resolutionNote: 'test WRITE_OFF' });
    expect(await balanceOf(loss)).toBe(1500);
    expect(await balanceOf(float)).toBe(floatBefore - 1500);
    await expectLedgerClean();

    // A reversal of pay-in C: its net comes back out of the merchant's available balance.
    const c = await rowOf(h, refs.c!);
    const availableBefore = await balanceOf(available);
    expect((await resolve((await of('STATUS_MISMATCH', refs.c)).id, 'RECORD_REVERSAL')).status).toBe(200);
    expect(await balanceOf(available)).toBe(availableBefore - (c.amount - (c.feeAmount ?? 0)));
    expect(await balanceOf(float)).toBe(floatBefore - 1500 - 20_000);
    await expectLedgerClean();

    // The operator's success of a pay-in Kolo closed as failed: the late-success path.
    const lateCase = await of('STATUS_MISMATCH', refs.late);
    expect((await resolve(lateCase.id, 'APPLY_OPERATOR_SUCCESS')).status).toBe(200);
    expect(await rowOf(h, refs.late!)).toMatchObject({ status: 'FAILED', isLateSuccess: true });
    expect(await webhookTypes(h, refs.late!)).toContain('payment.late_success');
    expect(await balanceOf(float)).toBe(floatBefore - 1500 - 20_000 + 3000);
    await expectLedgerClean();

    // A pay-out paid by Wave but failed at Kolo: reserved again from the merchant and paid.
    const paidOut = await of('STATUS_MISMATCH', refs.f);
    const f = await rowOf(h, refs.f!);
    const availableBeforePayOut = await balanceOf(available);
    expect((await resolve(paidOut.id, 'APPLY_OPERATOR_SUCCESS')).status).toBe(200);
    expect(await rowOf(h, refs.f!)).toMatchObject({ status: 'FAILED', isLateSuccess: true });
    expect(await balanceOf(available)).toBe(availableBeforePayOut - f.reservedAmount!);
    expect(await balanceOf(float)).toBe(floatBefore - 1500 - 20_000 + 3000 - 5000);
    expect(await webhookTypes(h, refs.f!)).toEqual(['payout.failed', 'payout.late_success']);
    expect(await balanceOf(loss)).toBe(1500);
    await expectLedgerClean();

    // Accept: nothing posted.
    const lossBefore = await balanceOf(loss);
    expect((await resolve((await of('AMOUNT_MISMATCH')).id, 'ACCEPT')).status).toBe(200);
    expect(await balanceOf(loss)).toBe(lossBefore);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(refs.d), { key: t.key }), 200)).not.toHaveProperty('reconciliation');
    const again = await resolve((await of('AMOUNT_MISMATCH')).id, 'ACCEPT');
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('RECONCILIATION_CASE_CLOSED');

    // Money Wave received that Kolo never asked for, written off: a gain (LOSS credited).
    expect((await resolve((await of('OPERATOR_ONLY')).id, 'WRITE_OFF')).status).toBe(200);
    expect(await balanceOf(loss)).toBe(lossBefore - 7000);
    await expectLedgerClean();

    // Every resolution is in the audit log with its actor and note.
    const audit = await asAdmin('GET', '/api/v1/admin/audit-log?size=50');
    const entries = (audit.json.data.content as { action: string; targetType: string }[]).filter((e) => e.targetType === 'RECONCILIATION_CASE');
    expect(entries.map((e) => e.action).sort()).toEqual([
      'RECONCILIATION_ACCEPT',
      'RECONCILIATION_APPLY_OPERATOR_SUCCESS',
      'RECONCILIATION_APPLY_OPERATOR_SUCCESS',
      'RECONCILIATION_RECORD_REVERSAL',
      'RECONCILIATION_WRITE_OFF',
      'RECONCILIATION_WRITE_OFF',
    ]);

    // Only MERCHANT_NOT_TOLD is left open; a rerun opens nothing, and the drift is what is open.
    expect((await openCases()).map((x) => x.kind)).toEqual(['MERCHANT_NOT_TOLD']);
    const rerun = await run(from, h.clock.now());
    expect(rerun.json.data).toMatchObject({ casesOpened: 0, drift: 0 });
  });
});

describe('the daily reconciliation', () => {
  it('reconciles the previous UTC day of each LIVE rail with an API from the configured hour, once', async () => {
    const { dailyReconciliationOnce } = await import('../../src/jobs/reconciliation.ts');
    const runsBefore = (await asAdmin('GET', '/api/v1/admin/reconciliation/runs?size=100')).json.data.totalElements as number;
    // Next day, 02:00 UTC: before RECONCILIATION_HOUR_UTC (3 by default), nothing runs.
    const now = h.clock.now();
    const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    h.clock.advance(nextDay + 2 * 3_600_000 - now.getTime());
    expect(await dailyReconciliationOnce(h.services)).toEqual([]);
    h.clock.advance(3_600_000);
    expect(await dailyReconciliationOnce(h.services)).toEqual(['WAVE_CI', RAIL]);
    expect(await dailyReconciliationOnce(h.services)).toEqual([]);
    const runs = (await asAdmin('GET', `/api/v1/admin/reconciliation/runs?railCode=${RAIL}`)).json.data;
    expect(runs.totalElements).toBe(runsBefore + 1);
    expect(runs.content[0]).toMatchObject({ source: 'API', periodFrom: new Date(nextDay - 86_400_000).toISOString(), periodTo: new Date(nextDay).toISOString() });
    expect(runs.content[0].operatorRecords).toBeGreaterThan(0);
  });
});
