/**
 * Reconciliation of MPESA_KE with LIVE keys against the Daraja simulator, through Pull
 * Transactions (C2B only, built by the simulator from what it moved): with the connector's shared
 * token (no new token fetched); a clean period opens nothing, B2C pay-outs included (the pull does
 * not list them); a payment Kolo never asked for and an amount difference each open exactly one
 * case; a second run opens nothing; the ledger stays verified after a write-off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMpesaSimulator, type MpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mpesaEnv, rowOf, settled, startLiveHarness } from '../helpers/live.ts';
import { ledgerDiscrepancies, reconciliationStaff, tellMerchants } from '../helpers/reconciliation.ts';

let sim: MpesaSimulator;
let h: Harness;
let t: Tenant;
let staff: Awaited<ReturnType<typeof reconciliationStaff>>;

let receiver: Receiver;

beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness({ ...mpesaEnv(sim), ...DASHBOARD_TEST_ENV }, receiver.url, undefined, 'KES'));
  sim.options.nowMs = () => h.clock.now().getTime();
  staff = await reconciliationStaff(h);
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});

const RAIL = 'MPESA_KE';
const refs = {} as Record<'a' | 'c' | 'p', string>;
let from: Date;
const tokenFetches = () => sim.requests.filter((r) => r.path === '/oauth/v1/generate').length;

describe('M-Pesa reconciliation by Pull Transactions (LIVE, simulator)', () => {
  it('a clean period opens nothing (pay-outs, absent from the pull, included), with the shared token', async () => {
    from = h.clock.now();
    refs.a = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 1500, payerAccount: '254711002101' }) }), 201).reference;
    refs.c = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 900, payerAccount: '254711002102' }) }), 201).reference;
    for (const r of [refs.a, refs.c]) expect((await settled(h, r)).status).toBe('SUCCESS');
    refs.p = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'KES', amount: 300, beneficiaryAccount: '254711002103' }) }), 201).reference;
    expect((await settled(h, refs.p)).status).toBe('SUCCESS');
    await tellMerchants(h);
    h.clock.advance(2 * 3_600_000);

    const clean = await staff.run({ railCode: RAIL, from, to: h.clock.now() });
    expect(clean.status).toBe(201);
    expect(clean.json.data).toMatchObject({ source: 'API', operatorRecords: 2, matched: 2, casesOpened: 0, drift: 0 });
    // The pull's token is the connector's, from the shared store: the next push uses it, no new one fetched.
    const pull = sim.requests.filter((r) => r.path === '/pulltransactions/v1/query').at(-1)!;
    const fetched = tokenFetches();
    const next = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 100, payerAccount: '254711002104' }) }), 201).reference;
    const push = sim.requests.filter((r) => r.path === '/mpesa/stkpush/v1/processrequest').at(-1)!;
    expect(push.headers.authorization).toBe(pull.headers.authorization);
    expect(tokenFetches()).toBe(fetched);
    expect((await settled(h, next)).status).toBe('SUCCESS');
  });

  it('a payment Kolo never asked for and an amount difference open one case each; a rerun opens nothing', async () => {
    sim.statement.plant({ kind: 'UNASKED_PAYMENT', amount: 700, currency: 'KES', msisdn: '254711009999' });
    // Daraja names the payment by its receipt, which Kolo keeps as the operator transaction id.
    const c = await rowOf(h, refs.c);
    const paid = sim.statement.rows().find((r) => r.id === c.operatorTransactionId)!;
    sim.statement.plant({ kind: 'AMOUNT_OF', reference: paid.reference!, amount: 800 });
    const to = new Date(h.clock.now().getTime() + 1000);
    const first = await staff.run({ railCode: RAIL, from, to });
    expect(first.json.data).toMatchObject({ operatorRecords: 4, casesOpened: 2, drift: 700 + 100 });
    const cases = await staff.openCases();
    expect(cases.map((x) => x.kind).sort()).toEqual(['AMOUNT_MISMATCH', 'OPERATOR_ONLY']);
    expect(cases.find((x) => x.kind === 'AMOUNT_MISMATCH')).toMatchObject({ transactionId: c.id, amount: 100 });
    expect((await staff.run({ railCode: RAIL, from, to })).json.data).toMatchObject({ casesOpened: 0, drift: 800 });

    expect((await staff.resolve(cases.find((x) => x.kind === 'AMOUNT_MISMATCH')!.id, 'WRITE_OFF')).status).toBe(200);
    expect(await ledgerDiscrepancies(h)).toEqual([]);
  });
});
