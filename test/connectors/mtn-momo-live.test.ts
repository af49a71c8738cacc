/**
 * LIVE keys against the MTN MoMo simulator, end to end (real Kolo over HTTP, real database,
 * the simulator on a loopback port): charge → push → callback → SUCCESS → payment.success
 * webhook; every decline family; a reason MTN does not document (unknown, not a decline); the
 * payer who never approves; a 500 or a timeout at
 * initiation (PENDING, then resolved by the status query); a lost callback (the poller
 * resolves it); a duplicated callback (one transition, one webhook); an expired token (one
 * refresh); transfers (success, payee not found, our float short); configuration errors.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { transactions } from '../../src/db/schema.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import type { Receiver } from '../helpers/webhooks.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { listAttempts } from '../../src/payments/checkout-attempt-records.ts';
import { INITIATION_LANDING_MS } from '../../src/payments/initiation-window.ts';
import { deliveryCount, eventTrail, mtnEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';

let sim: MtnSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30, delayedMs: 60_000 }),
  env: mtnEnv,
  // Some tests switch MTN to POST callbacks.
  reset: (s) => {
    s.options.callbackMethod = 'PUT';
  },
});
// Short names for the setup's objects: useLiveOperator's beforeAll, registered first, has filled them in.
beforeAll(() => ({ sim, receiver, h, t } = live));

const charge = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount }) }), 201).reference as string;
const transfer = async (beneficiaryAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount }) }), 201).reference as string;
const payIn = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
const payOut = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);

const { pollAfter } = live;

describe('MTN MoMo pay-in (requesttopay) with a LIVE key', () => {
  it('charge → USSD push → callback → SUCCESS → payment.success webhook', async () => {
    const reference = await charge('237677000001');
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(row.callbackToken).toMatch(/^[0-9a-f]{48}$/);

    const push = sim.requests.find((r) => r.path === '/collection/v1_0/requesttopay' && r.headers['x-reference-id'] === row.operatorReference)!;
    expect(push.headers['x-callback-url']).toBe(`${h.baseUrl}/api/v1/callbacks/mtn-momo/${row.callbackToken}`);
    expect(JSON.parse(push.body)).toMatchObject({ amount: '5000', currency: 'XAF', externalId: reference, payer: { partyIdType: 'MSISDN', partyId: '237677000001' } });

    // No poller runs here: only the callback can have triggered the status query.
    const done = await settled(h, reference);
    expect(done.status).toBe('SUCCESS');
    expect(sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!))).toEqual([
      expect.objectContaining({ method: 'PUT', status: 200 }),
    ]);
    expect(await eventTrail(h, reference)).toEqual([
      [null, 'PENDING', 'CREATED'],
      ['PENDING', 'PENDING', 'INITIATED'],
      ['PENDING', 'SUCCESS', 'POLL'],
    ]);
    expect((await payIn(reference)).status).toBe('SUCCESS');

    receiver.received.length = 0;
    await deliverOnce(h.services);
    const hook = receiver.received.find((r) => JSON.parse(r.body).data.reference === reference)!;
    expect(JSON.parse(hook.body).event).toBe('payment.success');
  });

  it('accepts the callback as POST too', async () => {
    sim.options.callbackMethod = 'POST';
    const reference = await charge('237677000002');
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    const row = await rowOf(h, reference);
    expect(sim.callbacks.find((c) => c.url.endsWith(row.callbackToken!))).toMatchObject({ method: 'POST', status: 200 });
  });

  const DECLINES: [string, string, string][] = [
    ['451', 'REJECTED_BY_PAYER', 'MTN APPROVAL_REJECTED'],
    ['455', 'PAYER_NOT_FOUND', 'MTN PAYER_NOT_FOUND'],
    ['456', 'PAYEE_NOT_ALLOWED', 'MTN PAYEE_NOT_ALLOWED_TO_RECEIVE'],
    ['457', 'CONFIGURATION_ERROR', 'MTN NOT_ALLOWED'],
    ['460', 'CONFIGURATION_ERROR', 'MTN INVALID_CURRENCY'],
    ['461', 'PROVIDER_ERROR', 'MTN INTERNAL_PROCESSING_ERROR'],
    ['462', 'PROVIDER_UNAVAILABLE', 'MTN SERVICE_UNAVAILABLE'],
  ];
  it.each(DECLINES)('a payer number ending in %s fails with %s and MTN reason kept', async (suffix, failureCode, failureReason) => {
    const reference = await charge(`237677000${suffix}`);
    const row = await settled(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', failureCode, failureReason });
    const data = await payIn(reference);
    expect(data).toMatchObject({ status: 'FAILED', failureCode, failureReason });
    expect(await webhookTypes(h, reference)).toEqual(['payment.failed']);
  });

  it('a payer who never approves: MTN expires the request (EXPIRED, COULD_NOT_PERFORM_TRANSACTION) → FAILED TIMEOUT', async () => {
    for (const suffix of ['452', '463']) {
      const reference = await charge(`237677000${suffix}`);
      expect(await settled(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    }
  });

  it('a reason MTN does not document (…464 TRANSFERTYPE_UNKNOWN) is unknown: PENDING, then TIMEOUT at the rail deadline, never a decline', async () => {
    const reference = await charge('237677000464');
    await waitUntil('MTN to decide', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status === 'FAILED'));
    await callbacksIdle(h.services);
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(900_000);
    // Failed at the deadline as an ambiguous outcome (the last answer was unknown), never as MTN's decline.
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: expect.stringMatching(/^(TIMEOUT|PROVIDER_UNAVAILABLE)$/) });
  });

  it('ONGOING (…453) stays PENDING at each poll, then fails TIMEOUT at the rail deadline, never before', async () => {
    const reference = await charge('237677000453');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(800_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(100_000);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  });

  it('a 500 at initiation after MTN created the request: PENDING, then the status query finds SUCCESS', async () => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const reference = await charge('237677000003');
    expect((await payIn(reference)).status).toBe('PENDING');
    expect((await eventTrail(h, reference)).at(-1)).toEqual(['PENDING', 'PENDING', 'INITIATION_UNREACHABLE']);
    await waitUntil('MTN to decide', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status !== 'PENDING'));
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    // One initiation only, under one X-Reference-Id.
    const pushes = sim.requests.filter((r) => r.path === '/collection/v1_0/requesttopay' && JSON.parse(r.body).externalId === reference);
    expect(pushes).toHaveLength(1);
  });

  it('a timeout at initiation that MTN processed: PENDING, then SUCCESS by the status query', async () => {
    sim.options.callbacks.drop = true;
    sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
    const reference = await charge('237677000004');
    expect((await payIn(reference)).status).toBe('PENDING');
    await waitUntil('MTN to decide', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status !== 'PENDING'));
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
  });

  it('a 500 at initiation that never landed: 404 proves nothing while it may still land, then → FAILED NOT_FOUND_AT_PROVIDER', async () => {
    sim.fault = { mode: 'error500', on: 'initiate', landed: false, remaining: 1 };
    const reference = await charge('237677000005');
    expect((await payIn(reference)).status).toBe('PENDING');
    expect((await rowOf(h, reference)).initiationOutcome).toBe('UNKNOWN');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    // Past the landing bound (5 minutes after the answer), MTN's 404 means it never landed.
    await pollAfter(INITIATION_LANDING_MS);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'NOT_FOUND_AT_PROVIDER' });
  });

  it('a 404 on a request MTN had acknowledged is not "never landed": PENDING, then TIMEOUT at the rail deadline', async () => {
    sim.options.callbacks.drop = true;
    const reference = await charge('237677000008');
    const row = await rowOf(h, reference);
    expect(row.initiationOutcome).toBe('ACCEPTED');
    sim.resources.delete(`collection:${row.operatorReference}`);
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(900_000);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  });

  it('a lost callback: the poller resolves it', async () => {
    sim.options.callbacks.drop = true;
    const reference = await charge('237677000006');
    await waitUntil('MTN to decide', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status !== 'PENDING'));
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
  });

  it('a duplicated callback: one transition, one webhook', async () => {
    sim.options.callbacks.duplicate = true;
    const reference = await charge('237677000007');
    const row = await rowOf(h, reference);
    await waitUntil('both callbacks answered', () => sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!) && c.status === 200).length === 2);
    await settled(h, reference);
    await callbacksIdle(h.services);
    const trail = await eventTrail(h, reference);
    expect(trail.filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
    expect(await deliveryCount(h, reference)).toBe(1);
  });
});

describe('MTN MoMo pay-out (transfer) with a LIVE key', () => {
  it('checks the payee is active, sends the transfer with the disbursement credentials, SUCCESS → payout webhook', async () => {
    const reference = await transfer('237677000011');
    const row = await rowOf(h, reference);
    const check = sim.requests.find((r) => r.path === '/disbursement/v1_0/accountholder/msisdn/237677000011/active')!;
    expect(check.headers['ocp-apim-subscription-key']).toBe(sim.options.disbursement.subscriptionKey);
    const sent = sim.requests.find((r) => r.path === '/disbursement/v1_0/transfer' && r.headers['x-reference-id'] === row.operatorReference)!;
    expect(sent.headers['ocp-apim-subscription-key']).toBe(sim.options.disbursement.subscriptionKey);
    expect(JSON.parse(sent.body)).toMatchObject({ amount: '5000', currency: 'XAF', externalId: reference, payee: { partyIdType: 'MSISDN', partyId: '237677000011' } });
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect((await payOut(reference)).status).toBe('SUCCESS');
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
  });

  it('payee not found: at the account-holder check (404, nothing sent) or on the transfer (PAYEE_NOT_FOUND)', async () => {
    const unknown = await transfer('237677000450');
    expect(await rowOf(h, unknown)).toMatchObject({ status: 'FAILED', failureCode: 'PAYEE_NOT_FOUND' });
    expect(sim.requests.filter((r) => r.path === '/disbursement/v1_0/transfer' && JSON.parse(r.body).externalId === unknown)).toHaveLength(0);

    const refused = await transfer('237677000457');
    expect(await settled(h, refused)).toMatchObject({ status: 'FAILED', failureCode: 'PAYEE_NOT_FOUND', failureReason: 'MTN PAYEE_NOT_FOUND' });
    expect((await payOut(refused)).failureCode).toBe('PAYEE_NOT_FOUND');
  });

  it('an inactive payee (result false) fails ACCOUNT_INACTIVE; our float short (NOT_ENOUGH_FUNDS) queues the pay-out for float', async () => {
    expect(await rowOf(h, await transfer('237677000451'))).toMatchObject({ status: 'FAILED', failureCode: 'ACCOUNT_INACTIVE' });
    // …455: the account-holder check answers 503 (inconclusive), the transfer goes and MTN refuses it
    // for want of Kolo's disbursement balance: queued again, never failed.
    const short = await transfer('237677000455');
    await waitUntil('the pay-out to be queued for float', async () => (await rowOf(h, short)).floatQueuedAt !== null);
    expect(await rowOf(h, short)).toMatchObject({ status: 'PENDING', failureCode: null });
    expect(await settled(h, await transfer('237677000456'))).toMatchObject({ status: 'FAILED', failureCode: 'LIMIT_EXCEEDED' });
  });
});

describe('MTN tokens, callbacks and configuration', () => {
  const tokenCalls = (product: string) => sim.requests.filter((r) => r.path === `/${product}/token/`).length;

  it('reuses the token per product, and after MTN expires it refreshes exactly once', async () => {
    await settled(h, await charge('237677000021'));
    const before = tokenCalls('collection');
    await settled(h, await charge('237677000022'));
    expect(tokenCalls('collection')).toBe(before);

    sim.options.callbacks.drop = true;
    const reference = await charge('237677000023');
    await waitUntil('MTN to decide', () => [...sim.resources.values()].some((r) => r.body.externalId === reference && r.status !== 'PENDING'));
    sim.expireTokens();
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(tokenCalls('collection')).toBe(before + 1);
  });

  it('refreshes the token before expires_in minus the safety margin, by our clock', async () => {
    await settled(h, await charge('237677000024'));
    const before = tokenCalls('collection');
    h.clock.advance(3600_000 - 59_000);
    await settled(h, await charge('237677000025'));
    expect(tokenCalls('collection')).toBe(before + 1);
  });

  it('unknown, malformed, wrong-operator and replayed callback tokens answer 200 and change nothing', async () => {
    const reference = await charge('237677000026');
    const row = await settled(h, reference);
    const before = await eventTrail(h, reference);
    for (const [method, path] of [
      ['PUT', `/api/v1/callbacks/mtn-momo/${'0'.repeat(48)}`],
      ['POST', '/api/v1/callbacks/mtn-momo/not-a-token'],
      ['POST', `/api/v1/callbacks/orange-money/${row.callbackToken}`],
      ['PUT', `/api/v1/callbacks/mtn-momo/${row.callbackToken}`],
      ['POST', `/api/v1/callbacks/mtn-momo/${row.callbackToken}`],
    ] as const) {
      const res = await h.request(method, path, { raw: '{"status":"FAILED","reason":"APPROVAL_REJECTED"}', headers: { 'content-type': 'application/json' } });
      expect(res.status, path).toBe(200);
    }
    await callbacksIdle(h.services);
    expect(await eventTrail(h, reference)).toEqual(before);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
  });

  it('a callback body claiming failure never sets the status: only MTN status query does', async () => {
    sim.options.callbacks.drop = true;
    sim.options.decisionDelayMs = 60_000;
    try {
      const reference = await charge('237677000027');
      const row = await rowOf(h, reference);
      const res = await h.request('PUT', `/api/v1/callbacks/mtn-momo/${row.callbackToken}`, {
        raw: JSON.stringify({ status: 'FAILED', reason: 'APPROVAL_REJECTED', externalId: reference }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      await callbacksIdle(h.services);
      expect((await rowOf(h, reference)).status).toBe('PENDING');
    } finally {
      sim.options.decisionDelayMs = 30;
    }
  });

  it('LIVE keys get PROVIDER_NOT_FOUND on rails without a configured connector (Orange CM, MTN CI)', async () => {
    expectError(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699000001' }) }), 404, 'PROVIDER_NOT_FOUND');
    const ci = await h.createTenant({ environment: 'LIVE', currency: 'XOF' });
    expectError(
      await h.request('POST', PATHS.charge, { key: ci.key, body: chargeBody({ currency: 'XOF', paymentMethod: 'MTN_MOMO_CI', payerAccount: '2250501234567' }) }),
      404,
      'PROVIDER_NOT_FOUND',
    );
  });
});

describe('MTN with wrong credentials', () => {
  it('fails the charge CONFIGURATION_ERROR at once, and no secret appears in the reason', async () => {
    const bad = await startLiveHarness(mtnEnv(sim, { MTN_MOMO_COLLECTION_API_KEY: 'wrong-secret-api-key-123456' }), receiver.url);
    try {
      const created = await bad.h.request('POST', PATHS.charge, { key: bad.t.key, body: chargeBody({ payerAccount: '237677000031' }) });
      const reference = expectSuccess(created, 201).reference as string;
      const row = await rowOf(bad.h, reference);
      expect(row).toMatchObject({ status: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });
      expect(row.failureReason).toContain('HTTP 401');
      for (const secret of [sim.options.collection.apiKey, sim.options.collection.subscriptionKey, 'wrong-secret-api-key-123456']) {
        expect(row.failureReason).not.toContain(secret);
      }
      const [stored] = await bad.h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
      expect(JSON.stringify(stored)).not.toContain('wrong-secret-api-key-123456');
    } finally {
      await bad.h.close();
    }
  });
});

describe('hosted checkout attempts on MTN with a LIVE key', () => {
  it('each attempt has its own X-Reference-Id and callback token; an attempt whose initiation timed out is resolved by the poller', async () => {
    sim.options.callbacks.drop = true;
    const c = await createCheckout(h, t, { merchantReference: 'LIVE-ATTEMPTS' });
    const b = formClient(h);
    let page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000451' })).status).toBe(303);
    const checkoutId = (await rowOf(h, c.reference)).id;
    await waitUntil('MTN to decide the first attempt', () => [...sim.resources.values()].some((r) => r.body.externalId === `${c.reference}-1` && r.status !== 'PENDING'));
    await pollAfter(10_000);
    sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
    page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000041' })).status).toBe(303);
    const [first, second] = await listAttempts(h.services.db, checkoutId);
    expect(first).toMatchObject({ status: 'FAILED', failureCode: 'REJECTED_BY_PAYER' });
    expect(second).toMatchObject({ status: 'PENDING' });
    expect(second!.operatorReference).not.toBe(first!.operatorReference);
    expect(second!.callbackToken).not.toBe(first!.callbackToken);
    await waitUntil('MTN to decide', () => sim.resources.get(`collection:${second!.operatorReference}`)?.status === 'SUCCESSFUL');
    await pollAfter(10_000);
    expect((await listAttempts(h.services.db, checkoutId))[1]).toMatchObject({ status: 'SUCCEEDED' });
    expect(await rowOf(h, c.reference)).toMatchObject({ status: 'SUCCESS', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000041' });
    expect(sim.requests.filter((r) => r.headers['x-reference-id'] === second!.operatorReference && r.method === 'POST')).toHaveLength(1);
  });
});


describe('MTN MoMo refund with a LIVE key', () => {
  it('a successful charge is refunded in part through the disbursement product, and the payer gets it', async () => {
    const reference = await charge('237677000001');
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    const refund = expectSuccess(await h.request('POST', PATHS.refund, { key: t.key, body: { reference, amount: 2000 } }), 201);
    await waitUntil('MTN to pay the refund', () => [...sim.resources.values()].some((r) => r.body.externalId === refund.reference && r.status === 'SUCCESSFUL'));
    await pollAfter(10_000);
    expect(await rowOf(h, refund.reference)).toMatchObject({ status: 'SUCCESS', beneficiaryAccount: '237677000001', refundOf: (await rowOf(h, reference)).id });
    expect(await payIn(reference)).toMatchObject({ status: 'SUCCESS', refundedAmount: 2000 });
  });
});
