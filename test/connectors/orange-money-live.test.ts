/**
 * LIVE keys against the Orange Money Cameroon simulator, end to end: charge → mp/init → mp/pay
 * (USSD push) → notification → status query → SUCCESS → payment.success; each decline family
 * (declines at `pay` are HTTP 417 with the reason, read as definite); the customer who cancels or
 * never answers; a 500 or timeout on `pay` (the payToken is queried, `pay` is never resent); `init`
 * unreachable (nothing pushed, prepared again later); lost and duplicated notifications; an expired
 * token; cash-in transfers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { ORANGE_SIM_DEFAULTS, startOrangeSimulator, type OrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import type { Receiver } from '../helpers/webhooks.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { deliveryCount, eventTrail, orangeEnv, rowOf, settled, waitUntil, webhookTypes } from '../helpers/live.ts';

let sim: OrangeSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

const live = useLiveOperator({ startSimulator: () => startOrangeSimulator({ decisionDelayMs: 30 }), env: orangeEnv });
// Short names for the setup's objects: useLiveOperator's beforeAll, registered first, has filled them in.
beforeAll(() => ({ sim, receiver, h, t } = live));

const RAIL = 'ORANGE_MONEY_CM';
const charge = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, payerAccount }) }), 201).reference as string;
const transfer = async (beneficiaryAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, beneficiaryAccount }) }), 201)
    .reference as string;
const payIn = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
const pays = (payToken: string) => sim.requests.filter((r) => r.path.endsWith('/pay') && JSON.parse(r.body).payToken === payToken);

const { pollAfter } = live;

describe('Orange Money pay-in (mp) with a LIVE key', () => {
  it('charge → mp/init → mp/pay → notification → SUCCESS → payment.success webhook', async () => {
    const reference = await charge('237699000001');
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^MP/);
    const init = sim.requests.find((r) => r.path === '/omcoreapis/1.0.2/mp/init')!;
    expect(init.body).toBe('');
    const [pay] = pays(row.operatorReference!);
    expect(pay!.headers['x-auth-token']).toBe(Buffer.from(`${ORANGE_SIM_DEFAULTS.apiUsername}:${ORANGE_SIM_DEFAULTS.apiPassword}`).toString('base64'));
    expect(pay!.headers.authorization).toMatch(/^Bearer /);
    expect(JSON.parse(pay!.body)).toEqual({
      notifUrl: `${h.baseUrl}/api/v1/callbacks/orange-money/${row.callbackToken}`,
      channelUserMsisdn: ORANGE_SIM_DEFAULTS.channelMsisdn,
      amount: '5000',
      subscriberMsisdn: '699000001',
      pin: ORANGE_SIM_DEFAULTS.pin,
      orderId: reference,
      description: reference,
      payToken: row.operatorReference,
    });
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(sim.callbacks.find((c) => c.url.endsWith(row.callbackToken!))).toMatchObject({ method: 'POST', status: 200 });
    expect((await payIn(reference)).status).toBe('SUCCESS');
    receiver.received.length = 0;
    await deliverOnce(h.services);
    expect(receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data.reference === reference)?.event).toBe('payment.success');
  });

  const DECLINES: [string, string, string][] = [
    ['601', 'INSUFFICIENT_FUNDS', 'Orange Money 60019: Le solde du compte du payeur est insuffisant'],
    ['602', 'PAYER_NOT_FOUND', 'Orange Money 60012: Beneficiaire introuvable'],
    ['603', 'ACCOUNT_BLOCKED', 'Orange Money 60013: Utilisateur bloque'],
    ['604', 'LIMIT_EXCEEDED', 'Orange Money 60014: Vous avez saisi un montant superieur au montant maximum autorise'],
    ['605', 'REJECTED_BY_PAYER', 'Orange Money CANCELLED'],
    ['606', 'TIMEOUT', 'Orange Money EXPIRED'],
    ['608', 'INSUFFICIENT_FUNDS', 'Orange Money 60019: Le solde du compte du payeur est insuffisant'],
    ['609', 'WRONG_PIN', 'Orange Money: Code PIN incorrect'],
  ];
  it.each(DECLINES)('a payer number ending in %s fails with %s', async (suffix, failureCode, failureReason) => {
    const reference = await charge(`237699000${suffix}`);
    expect(await settled(h, reference)).toMatchObject({ status: 'FAILED', failureCode, failureReason });
    // Declined at `pay` (HTTP 417) or later: never read as "unreachable".
    expect((await eventTrail(h, reference)).map(([, , cause]) => cause)).not.toContain('INITIATION_UNREACHABLE');
    expect(await webhookTypes(h, reference)).toEqual(['payment.failed']);
  });

  it('a 500 on mp/pay after Orange took it: PENDING, the payToken is queried, pay is never resent', async () => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const reference = await charge('237699000002');
    const row = await rowOf(h, reference);
    expect((await eventTrail(h, reference)).at(-1)).toEqual(['PENDING', 'PENDING', 'INITIATION_UNREACHABLE']);
    await waitUntil('Orange to decide', () => sim.transactions.get(row.operatorReference!)?.data.status === 'SUCCESSFULL');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(pays(row.operatorReference!)).toHaveLength(1);
  });

  it('a timeout on mp/pay that never landed: the payToken stays INITIATED until Orange expires it, never re-pushed', async () => {
    sim.fault = { mode: 'timeout', on: 'initiate', landed: false, remaining: 1 };
    const reference = await charge('237699000003');
    const row = await rowOf(h, reference);
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(pays(row.operatorReference!)).toHaveLength(1);
    // Orange reports an unpaid payToken EXPIRED itself (≥ 7 min; shortened here).
    sim.options.payTokenTtlMs = 0;
    try {
      await pollAfter(30_000);
    } finally {
      sim.options.payTokenTtlMs = ORANGE_SIM_DEFAULTS.payTokenTtlMs;
    }
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  });

  it('mp/init unreachable: nothing was pushed, the poller prepares and sends it later under a fresh payToken', async () => {
    sim.fault = { mode: 'error500', on: 'prepare', landed: false, remaining: 1 };
    const reference = await charge('237699000004');
    const first = await rowOf(h, reference);
    expect(first).toMatchObject({ status: 'PENDING', operatorReference: null, initiatedAt: null });
    expect((await eventTrail(h, reference)).at(-1)).toEqual(['PENDING', 'PENDING', 'INITIATION_UNREACHABLE']);
    await pollAfter(10_000);
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^MP/);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
  });

  it('a lost notification: the poller resolves it; a duplicated one: one transition, one webhook', async () => {
    sim.options.callbacks.drop = true;
    const lost = await charge('237699000005');
    const lostRow = await rowOf(h, lost);
    await waitUntil('Orange to decide', () => sim.transactions.get(lostRow.operatorReference!)?.data.status === 'SUCCESSFULL');
    expect((await rowOf(h, lost)).status).toBe('PENDING');
    await pollAfter(10_000);
    expect((await rowOf(h, lost)).status).toBe('SUCCESS');

    sim.options.callbacks = { delayMs: 0, duplicate: true, drop: false };
    const dup = await charge('237699000006');
    const dupRow = await rowOf(h, dup);
    await waitUntil('both notifications answered', () => sim.callbacks.filter((c) => c.url.endsWith(dupRow.callbackToken!) && c.status === 200).length === 2);
    await settled(h, dup);
    await callbacksIdle(h.services);
    expect((await eventTrail(h, dup)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, dup)).toEqual(['payment.success']);
    expect(await deliveryCount(h, dup)).toBe(1);
  });

  it('an expired token is refreshed exactly once', async () => {
    await settled(h, await charge('237699000007'));
    const tokenCalls = () => sim.requests.filter((r) => r.path === '/token').length;
    const before = tokenCalls();
    sim.expireTokens();
    expect((await settled(h, await charge('237699000008'))).status).toBe('SUCCESS');
    expect(tokenCalls()).toBe(before + 1);
  });
});

describe('Orange Money pay-out (cashin) with a LIVE key', () => {
  it('cashin/init + cashin/pay → SUCCESS → payout.success', async () => {
    const reference = await transfer('237699000011');
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^CI/);
    const [pay] = pays(row.operatorReference!);
    expect(pay!.path).toBe('/omcoreapis/1.0.2/cashin/pay');
    expect(JSON.parse(pay!.body)).toMatchObject({ subscriberMsisdn: '699000011', amount: '5000', orderId: reference });
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
  });

  it('payee not found fails; our balance short queues the pay-out for float, never fails it', async () => {
    expect(await rowOf(h, await transfer('237699000602'))).toMatchObject({ status: 'FAILED', failureCode: 'PAYEE_NOT_FOUND' });
    const short = await transfer('237699000601');
    expect(await rowOf(h, short)).toMatchObject({ status: 'PENDING', failureCode: null, floatQueuedAt: expect.any(Date) });
    expect(await webhookTypes(h, short)).toEqual([]);
  });
});
