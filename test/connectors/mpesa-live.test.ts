/**
 * LIVE keys against the M-Pesa Daraja simulator, end to end: charge → OAuth → STK push →
 * callback (a hint) → STK Query → SUCCESS → payment.success; 1032 cancelled, 1037 timeout and the
 * other result codes; a lost callback (the poller's STK Query resolves it, "being processed"
 * kept PENDING); a duplicated callback (one transition); an ambiguous push (never pushed again:
 * the callback names the CheckoutRequestID, which is then queried); "Unable to lock subscriber";
 * an expired token; B2C pay-outs (success, insufficient organisation balance, a lost result
 * resolved by a Transaction Status Query, a result naming another pay-out ignored).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { DARAJA_TEST_MSISDN, MPESA_SIM_DEFAULTS, startMpesaSimulator, type MpesaSimulator } from '../../src/simulators/mpesa/mpesa-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { deliveryCount, eventTrail, mpesaEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';

let sim: MpesaSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness(mpesaEnv(sim), receiver.url, undefined, 'KES'));
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});
beforeEach(() => {
  sim.fault = null;
  sim.options.decisionDelayMs = 30;
  sim.options.orgBalance = MPESA_SIM_DEFAULTS.orgBalance;
  sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
});

const RAIL = 'MPESA_KE';
const charge = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 150, payerAccount }) }), 201)
    .reference as string;
const transfer = async (beneficiaryAccount: string, amount = 500) =>
  expectSuccess(
    await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'KES', amount, beneficiaryAccount }) }),
    201,
  ).reference as string;
const pushes = (phone: string) => sim.requests.filter((r) => r.path === '/mpesa/stkpush/v1/processrequest' && JSON.parse(r.body).PhoneNumber === phone);
const queries = (checkoutRequestId: string) =>
  sim.requests.filter((r) => r.path === '/mpesa/stkpushquery/v1/query' && JSON.parse(r.body).CheckoutRequestID === checkoutRequestId);

async function pollAfter(ms: number) {
  h.clock.advance(ms);
  return pollOnce(h.services);
}

describe('M-Pesa STK push with a LIVE key', () => {
  it('charge → STK push (Password/Timestamp rule) → callback → STK Query → SUCCESS → payment.success', async () => {
    const data = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 150, payerAccount: DARAJA_TEST_MSISDN }) }),
      201,
    );
    // A push rail never carries the redirect extension.
    expect(data).not.toHaveProperty('redirectUrl');
    const reference = data.reference as string;
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^ws_CO_/);
    const [push] = pushes(DARAJA_TEST_MSISDN);
    expect(push!.headers.authorization).toMatch(/^Bearer /);
    expect(push!.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(push!.body);
    expect(body.Timestamp).toMatch(/^\d{14}$/);
    expect(body).toEqual({
      BusinessShortCode: '174379',
      Password: Buffer.from(`174379${MPESA_SIM_DEFAULTS.passkey}${body.Timestamp}`).toString('base64'),
      Timestamp: body.Timestamp,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 150,
      PartyA: DARAJA_TEST_MSISDN,
      PartyB: '174379',
      PhoneNumber: DARAJA_TEST_MSISDN,
      CallBackURL: `${h.baseUrl}/api/v1/callbacks/daraja/${row.callbackToken}`,
      AccountReference: reference.replace(/[^A-Za-z0-9]/g, '').slice(-12),
      TransactionDesc: 'Paiement Kolo',
    });
    expect(body.CallBackURL).not.toMatch(/mpesa/i);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    // The callback was only a hint: the verdict came from an STK Query.
    expect(queries(row.operatorReference!).length).toBeGreaterThanOrEqual(1);
    expect(sim.callbacks.find((c) => c.url.endsWith(row.callbackToken!))).toMatchObject({ method: 'POST', status: 200 });
    receiver.received.length = 0;
    await deliverOnce(h.services);
    expect(receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data.reference === reference)?.event).toBe('payment.success');
  });

  const DECLINES: [string, string, string][] = [
    ['032', 'REJECTED_BY_PAYER', 'M-Pesa 1032: Request cancelled by user'],
    ['037', 'TIMEOUT', 'M-Pesa 1037: DS timeout user cannot be reached'],
    ['001', 'INSUFFICIENT_FUNDS', 'M-Pesa 1: The balance is insufficient for the transaction.'],
    ['201', 'WRONG_PIN', 'M-Pesa 2001: The initiator information is invalid.'],
    ['019', 'TIMEOUT', 'M-Pesa 1019: Transaction has expired'],
    ['025', 'PROVIDER_ERROR', 'M-Pesa 1025: An error occurred while sending a push request'],
  ];
  it.each(DECLINES)('a payer number ending in %s fails with %s', async (suffix, failureCode, failureReason) => {
    const reference = await charge(`254711000${suffix}`);
    expect(await settled(h, reference)).toMatchObject({ status: 'FAILED', failureCode, failureReason });
    expect(await webhookTypes(h, reference)).toEqual(['payment.failed']);
  });

  it('a lost callback: "being processed" stays PENDING, then the poller\'s STK Query resolves it', async () => {
    sim.options.callbacks.drop = true;
    sim.options.decisionDelayMs = 400;
    const reference = await charge('254711000101');
    const row = await rowOf(h, reference);
    await pollAfter(10_000);
    expect(queries(row.operatorReference!)).toHaveLength(1);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await waitUntil('Daraja to decide', () => sim.stk.get(row.operatorReference!)?.resultCode === 0);
    await pollAfter(30_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(pushes('254711000101')).toHaveLength(1);
  });

  it('a duplicated callback: one transition, one webhook', async () => {
    sim.options.callbacks = { delayMs: 0, duplicate: true, drop: false };
    const reference = await charge('254711000102');
    const row = await rowOf(h, reference);
    await waitUntil('both callbacks answered', () => sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!) && c.status === 200).length === 2);
    await settled(h, reference);
    await callbacksIdle(h.services);
    expect((await eventTrail(h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
    expect(await deliveryCount(h, reference)).toBe(1);
  });

  it('an STK push whose answer is lost is never pushed again: the callback names the CheckoutRequestID, which is queried', async () => {
    sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
    sim.options.decisionDelayMs = 1500;
    const reference = await charge('254711000103');
    const first = await rowOf(h, reference);
    expect(first).toMatchObject({ status: 'PENDING', operatorReference: reference, initiationOutcome: 'UNKNOWN' });
    expect((await eventTrail(h, reference)).at(-1)).toEqual(['PENDING', 'PENDING', 'INITIATION_UNREACHABLE']);
    // The poller cannot ask Daraja about a push it cannot name, and never pushes again.
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    const row = await settled(h, reference);
    expect(row.status).toBe('SUCCESS');
    const [checkoutRequestId] = [...sim.stk.values()].filter((s) => s.phone === '254711000103').map((s) => s.checkoutRequestId);
    expect(row.operatorReference).toBe(checkoutRequestId);
    expect(queries(checkoutRequestId!).length).toBeGreaterThanOrEqual(1);
    expect(pushes('254711000103')).toHaveLength(1);
  });

  it('"Unable to lock subscriber": the second charge fails at once; a new push goes only once the first prompt is dead', async () => {
    sim.options.decisionDelayMs = 600;
    const first = await charge('254711000104');
    const second = await charge('254711000104');
    expect(await rowOf(h, second)).toMatchObject({
      status: 'FAILED',
      failureCode: 'PROVIDER_UNAVAILABLE',
      failureReason: 'M-Pesa 500.001.1001: Unable to lock subscriber, a transaction is already in process for the current subscriber',
    });
    expect((await settled(h, first)).status).toBe('SUCCESS');
    const third = await charge('254711000104');
    expect((await settled(h, third)).status).toBe('SUCCESS');
    expect(pushes('254711000104')).toHaveLength(3);
  });

  it('an expired token is refreshed exactly once (404.001.03)', async () => {
    await settled(h, await charge('254711000105'));
    const tokenCalls = () => sim.requests.filter((r) => r.path === '/oauth/v1/generate').length;
    const before = tokenCalls();
    sim.expireTokens();
    expect((await settled(h, await charge('254711000106'))).status).toBe('SUCCESS');
    expect(tokenCalls()).toBe(before + 1);
  });
});

describe('M-Pesa B2C pay-out with a LIVE key', () => {
  // LIVE pay-outs are funded by settled LIVE pay-ins (issue 11): one large STK payment first.
  beforeAll(async () => {
    const funding = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 50_000, payerAccount: '254711000900' }) }),
      201,
    ).reference as string;
    expect((await settled(h, funding)).status).toBe('SUCCESS');
  });

  it('B2C v3 with our reference as OriginatorConversationID → Result → SUCCESS → payout.success', async () => {
    const reference = await transfer(DARAJA_TEST_MSISDN);
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^AG_/);
    const call = sim.requests.find((r) => r.path === '/mpesa/b2c/v3/paymentrequest' && JSON.parse(r.body).OriginatorConversationID === reference)!;
    const callbackUrl = `${h.baseUrl}/api/v1/callbacks/daraja/${row.callbackToken}`;
    expect(JSON.parse(call.body)).toMatchObject({
      InitiatorName: 'testapi',
      SecurityCredential: MPESA_SIM_DEFAULTS.securityCredential,
      CommandID: 'BusinessPayment',
      Amount: 500,
      PartyA: '600996',
      PartyB: DARAJA_TEST_MSISDN,
      ResultURL: callbackUrl,
      QueueTimeOutURL: callbackUrl,
    });
    const done = await settled(h, reference);
    expect(done.status).toBe('SUCCESS');
    expect(done.operatorReference).toBe(sim.b2c.get(reference)!.receipt);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
  });

  it('insufficient organisation balance → MERCHANT_INSUFFICIENT_FUNDS', async () => {
    sim.options.orgBalance = 100;
    const reference = await transfer('254711000201', 500);
    expect(await settled(h, reference)).toMatchObject({
      status: 'FAILED',
      failureCode: 'MERCHANT_INSUFFICIENT_FUNDS',
      failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.',
    });
    expect(await webhookTypes(h, reference)).toEqual(['payout.failed']);
  });

  it('a lost Result: the poller sends a Transaction Status Query whose Result settles it', async () => {
    sim.options.callbacks.drop = true;
    const reference = await transfer('254711000202');
    await waitUntil('Daraja to pay', () => sim.b2c.get(reference)?.resultCode === 0);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    sim.options.callbacks.drop = false;
    await pollAfter(10_000);
    const tsq = sim.requests.filter((r) => r.path === '/mpesa/transactionstatus/v1/query');
    expect(JSON.parse(tsq.at(-1)!.body)).toMatchObject({ CommandID: 'TransactionStatusQuery', OriginatorConversationID: reference, IdentifierType: '4' });
    const row = await settled(h, reference);
    expect(row.status).toBe('SUCCESS');
    expect(row.operatorReference).toBe(sim.b2c.get(reference)!.receipt);
  });

  it('a Result posted on the path naming another pay-out changes nothing', async () => {
    sim.options.callbacks.drop = true;
    const reference = await transfer('254711000203');
    const row = await rowOf(h, reference);
    const forged = {
      Result: { ResultType: 0, ResultCode: 1, ResultDesc: 'forged', OriginatorConversationID: 'someone-else', ConversationID: 'AG_forged', TransactionID: 'X' },
    };
    const answer = await fetch(`${h.baseUrl}/api/v1/callbacks/daraja/${row.callbackToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forged),
    });
    expect(answer.status).toBe(200);
    await callbacksIdle(h.services);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
  });
});
