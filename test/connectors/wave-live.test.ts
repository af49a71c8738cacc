/**
 * LIVE keys against the Wave simulator, end to end: a direct charge on a redirect rail answers
 * 201 PENDING with `data.redirectUrl` (Wave's launch URL); the customer pays there; Wave's signed
 * webhook triggers a status query → SUCCESS → payment.success. A webhook with a bad or missing
 * signature is refused (401) and changes nothing. A failed attempt keeps the session open; an
 * expired session fails with TIMEOUT. An ambiguous session creation is recovered by the
 * `client_reference` search (never created twice). Payouts: `idempotency-key`, success,
 * `recipient-account-blocked`, insufficient wallet balance.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { waveSignature } from '../../src/connectors/wave/wave-transformers.ts';
import { WAVE_SIM_DEFAULTS, type WaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import { INITIATION_LANDING_MS } from '../../src/payments/initiation-window.ts';
import type { Harness, Tenant } from '../harness.ts';
import type { Receiver } from '../helpers/webhooks.ts';
import { useLiveOperator, waveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { rowOf, settled, waitUntil, webhookTypes } from '../helpers/live.ts';

let sim: WaveSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

const live = useLiveOperator(waveOperator());
// Short names for the setup's objects: useLiveOperator's beforeAll, registered first, has filled them in.
beforeAll(() => ({ sim, receiver, h, t } = live));

const RAIL = 'WAVE_SN';
const chargeData = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', payerAccount }) }), 201);
const transfer = async (beneficiaryAccount: string, amount = 5000) =>
  expectSuccess(
    await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'XOF', amount, beneficiaryAccount }) }),
    201,
  ).reference as string;
const sessionOf = (reference: string) => [...sim.sessions.values()].find((s) => s.client_reference === reference);
const webhooksTo = () => sim.callbacks.filter((c) => c.url.endsWith('/api/v1/callbacks/wave'));

const { pollAfter } = live;

describe('Wave checkout (redirect pay-in) with a LIVE key', () => {
  it('a direct charge answers 201 PENDING with data.redirectUrl; paid on Wave, the signed webhook settles it → payment.success', async () => {
    const data = await chargeData('221771230001');
    expect(data.status).toBe('PENDING');
    const session = sessionOf(data.reference)!;
    expect(data.redirectUrl).toBe(session.wave_launch_url);
    expect(data.redirectUrl).toMatch(new RegExp(`^${sim.url}/c/cos-`));
    const create = sim.requests.find((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST' && JSON.parse(r.body).client_reference === data.reference)!;
    expect(create.headers.authorization).toBe(`Bearer ${WAVE_SIM_DEFAULTS.wallets.SN.checkoutApiKey}`);
    expect(JSON.parse(create.body)).toEqual({
      amount: '5000',
      currency: 'XOF',
      success_url: h.baseUrl,
      error_url: h.baseUrl,
      client_reference: data.reference,
      restrict_payer_mobile: '+221771230001',
    });
    expect((await rowOf(h, data.reference)).operatorReference).toBe(session.id);
    sim.pay(session.id as string);
    expect((await settled(h, data.reference)).status).toBe('SUCCESS');
    expect(webhooksTo().at(-1)).toMatchObject({ status: 200 });
    // The webhook only triggered a status query: the verdict is the session GET's.
    expect(sim.requests.some((r) => r.method === 'GET' && r.path === `/v1/checkout/sessions/${session.id}`)).toBe(true);
    receiver.received.length = 0;
    await deliverOnce(h.services);
    expect(receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data.reference === data.reference)?.event).toBe('payment.success');
  });

  it('a replayed charge (same idempotency key) gives the same redirectUrl again; one session only', async () => {
    const body = chargeBody({ paymentMethod: RAIL, currency: 'XOF', payerAccount: '221771230005', idempotencyKey: 'wave-replay-1' });
    const first = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body }), 201);
    const again = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body }), 201);
    expect(first.redirectUrl).toMatch(/\/c\/cos-/);
    expect(again).toEqual(first);
    expect([...sim.sessions.values()].filter((s) => s.client_reference === first.reference)).toHaveLength(1);
  });

  it('a webhook with a bad or missing signature is refused (401) and changes nothing', async () => {
    sim.options.webhookSignature = 'invalid';
    const data = await chargeData('221771230002');
    const session = sessionOf(data.reference)!;
    sim.pay(session.id as string);
    await waitUntil('the webhook to be answered', () => webhooksTo().some((c) => c.body.includes(data.reference) && c.status !== null));
    expect(webhooksTo().filter((c) => c.body.includes(data.reference)).map((c) => c.status)).toEqual([401]);
    const getsBefore = sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(session.id as string)).length;
    const body = JSON.stringify({ id: 'AE_x', type: 'checkout.session.completed', data: { id: session.id, client_reference: data.reference } });
    const post = (headers: Record<string, string>) =>
      fetch(`${h.baseUrl}/api/v1/callbacks/wave`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ 'Wave-Signature': waveSignature(body, WAVE_SIM_DEFAULTS.webhookSecret, Math.floor(h.clock.now().getTime() / 1000) - 3600) })).status).toBe(401);
    expect((await post({ 'Wave-Signature': 't=1,v1=zz' })).status).toBe(401);
    expect((await post({ 'Wave-Signature': waveSignature(`${body} `, WAVE_SIM_DEFAULTS.webhookSecret, Math.floor(h.clock.now().getTime() / 1000)) })).status).toBe(401);
    await callbacksIdle(h.services);
    expect((await rowOf(h, data.reference)).status).toBe('PENDING');
    expect(sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(session.id as string))).toHaveLength(getsBefore);
    // The same body correctly signed (several v1, one matching: secret rotation) is accepted.
    const good = waveSignature(body, WAVE_SIM_DEFAULTS.webhookSecret, Math.floor(h.clock.now().getTime() / 1000));
    expect((await post({ 'Wave-Signature': `${good},v1=${'0'.repeat(64)}` })).status).toBe(200);
    expect((await settled(h, data.reference)).status).toBe('SUCCESS');
  });

  it('a failed attempt keeps the session open (PENDING); the expired session fails with TIMEOUT naming the last error', async () => {
    const data = await chargeData('221771230601');
    const session = sessionOf(data.reference)!;
    sim.pay(session.id as string);
    await waitUntil('the payment_failed webhook', () => webhooksTo().some((c) => c.body.includes('checkout.session.payment_failed') && c.status === 200));
    await callbacksIdle(h.services);
    expect((await rowOf(h, data.reference)).status).toBe('PENDING');
    session.checkout_status = 'expired';
    await pollAfter(60_000);
    expect(await rowOf(h, data.reference)).toMatchObject({
      status: 'FAILED',
      failureCode: 'TIMEOUT',
      failureReason: 'Wave expired after insufficient-funds: The payer does not have enough funds',
    });
  });

  it('an ambiguous session creation is found by client_reference (never created twice); one that never landed fails NOT_FOUND_AT_PROVIDER once it can no longer land', async () => {
    sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
    const landed = await chargeData('221771230003');
    expect(landed.redirectUrl).toBeUndefined();
    expect(await rowOf(h, landed.reference)).toMatchObject({ status: 'PENDING', operatorReference: landed.reference, initiationOutcome: 'UNKNOWN' });
    await pollAfter(10_000);
    expect(sim.requests.some((r) => r.path === '/v1/checkout/sessions/search')).toBe(true);
    expect((await rowOf(h, landed.reference)).status).toBe('PENDING');
    sim.pay(sessionOf(landed.reference)!.id as string);
    expect((await settled(h, landed.reference)).status).toBe('SUCCESS');
    expect(sim.requests.filter((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST' && JSON.parse(r.body).client_reference === landed.reference)).toHaveLength(1);

    sim.fault = { mode: 'timeout', on: 'initiate', landed: false, remaining: 1 };
    const lost = await chargeData('221771230004');
    await pollAfter(10_000);
    expect((await rowOf(h, lost.reference)).status).toBe('PENDING');
    await pollAfter(INITIATION_LANDING_MS);
    expect(await rowOf(h, lost.reference)).toMatchObject({ status: 'FAILED', failureCode: 'NOT_FOUND_AT_PROVIDER' });
  });
});

describe('Wave payouts with a LIVE key', () => {
  // LIVE pay-outs are funded by settled LIVE pay-ins: one paid checkout session first.
  beforeAll(async () => {
    const funding = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', amount: 500_000, payerAccount: '221771230900' }) }),
      201,
    );
    sim.pay(sessionOf(funding.reference)!.id as string);
    expect((await settled(h, funding.reference)).status).toBe('SUCCESS');
  });

  it('POST /v1/payout with idempotency-key and client_reference → SUCCESS → payout.success', async () => {
    const reference = await transfer('221771230011');
    const call = sim.requests.find((r) => r.path === '/v1/payout' && r.headers['idempotency-key'] === reference)!;
    expect(call.headers.authorization).toBe(`Bearer ${WAVE_SIM_DEFAULTS.wallets.SN.payoutApiKey}`);
    expect(JSON.parse(call.body)).toMatchObject({ currency: 'XOF', receive_amount: '5000', mobile: '+221771230011', client_reference: reference });
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^pt-/);
    await pollAfter(10_000);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
  });

  it('recipient-account-blocked → ACCOUNT_BLOCKED; a wallet too short queues the pay-out for float, never fails it', async () => {
    expect(await rowOf(h, await transfer('221771230602'))).toMatchObject({
      status: 'FAILED',
      failureCode: 'ACCOUNT_BLOCKED',
      failureReason: 'Wave recipient-account-blocked: The recipient account is blocked',
    });
    sim.options.wallets.SN.balance = 1000;
    const short = await transfer('221771230012');
    expect(await rowOf(h, short)).toMatchObject({ status: 'PENDING', failureCode: null, floatQueuedAt: expect.any(Date) });
    expect(await webhookTypes(h, short)).toEqual([]);
  });

  it('a payout still processing is polled until it succeeds', async () => {
    sim.options.decisionDelayMs = 200;
    const reference = await transfer('221771230606');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await waitUntil('Wave to settle', () => [...sim.payouts.values()].some((p) => p.client_reference === reference && p.status === 'succeeded'));
    await pollAfter(30_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    sim.options.decisionDelayMs = 30;
  });
});
