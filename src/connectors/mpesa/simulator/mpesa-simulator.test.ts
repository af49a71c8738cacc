/**
 * The Daraja simulator speaks Daraja's contract (Safaricom Daraja 3.0 pages): OAuth with
 * `expires_in` a number (a string on request), each new token invalidating the previous one,
 * Daraja's error envelope (each API's invalid-token code, `400.002.02` no JSON content type or a
 * bad field, `500.001.1001` wrong Password and "Unable to lock subscriber", `500.002.1001` a
 * repeated OriginatorConversationID), the Password rule, STK Query "being processed" then the
 * documented answer, the `Body.stkCallback` body, B2C (a wrong SecurityCredential accepted, then
 * Result 2001), the Transaction Status Query by `OriginalConversationID` only, and the fault modes,
 * each followed by what it moved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DARAJA_TEST_MSISDN, MPESA_SIM_DEFAULTS, startMpesaSimulator, type MpesaSimulator } from './mpesa-simulator.ts';

let sim: MpesaSimulator;
let server: http.Server;
let callbackUrl: string;
const received: { url: string; body: string }[] = [];

beforeAll(async () => {
  // Long enough that the "still open" checks below run before the decision, even on a loaded machine.
  sim = await startMpesaSimulator({ decisionDelayMs: 1500 });
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ url: req.url!, body });
      res.end('{"ResultCode":0,"ResultDesc":"Accepted"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/callbacks/daraja/abc`;
});
afterAll(async () => {
  await sim.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const d = MPESA_SIM_DEFAULTS;
async function token(): Promise<string> {
  const res = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, {
    headers: { authorization: `Basic ${Buffer.from(`${d.consumerKey}:${d.consumerSecret}`).toString('base64')}` },
  });
  const body = (await res.json()) as { access_token: string; expires_in: unknown };
  expect(body.expires_in).toBe(3599);
  return body.access_token;
}
async function waitFor<T>(what: () => T | undefined): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = what();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('gave up waiting');
}
const resultFor = (id: string) => waitFor(() => received.find((r) => r.body.includes('"Result"') && r.body.includes(id)));
const timestamp = '20240101120000';
const password = (ts = timestamp) => Buffer.from(`${d.shortCode}${d.passkey}${ts}`).toString('base64');
const stkBody = (phone: string, overrides: Record<string, unknown> = {}) => ({
  BusinessShortCode: d.shortCode,
  Password: password(),
  Timestamp: timestamp,
  TransactionType: 'CustomerPayBillOnline',
  Amount: 1,
  PartyA: phone,
  PartyB: d.shortCode,
  PhoneNumber: phone,
  CallBackURL: callbackUrl,
  AccountReference: 'INV123',
  TransactionDesc: 'Order 123',
  ...overrides,
});
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('Daraja simulator', () => {
  it('refuses a bad Basic, a bad bearer and a missing JSON content type in Daraja envelopes', async () => {
    const basic = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { headers: { authorization: 'Basic eDp5' } });
    expect(basic.status).toBe(400);
    expect(await basic.json()).toMatchObject({ errorCode: '400.008.01' });
    const bearer = await fetch(`${sim.url}/mpesa/stkpush/v1/processrequest`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    expect(bearer.status).toBe(404);
    expect(await bearer.json()).toMatchObject({ errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN), { 'content-type': 'text/plain' })).toMatchObject({ status: 400, json: { errorCode: '400.002.02' } });
  });

  it('checks the Password rule and the field rules (AccountReference ≤ 12, no "mpesa" in the callback URL)', async () => {
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN, { Password: password('20240101120001') }))).toMatchObject({
      status: 500,
      json: { errorCode: '500.001.1001' },
    });
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN, { AccountReference: 'X'.repeat(13) }))).toMatchObject({ status: 400 });
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN, { CallBackURL: 'https://x.example/mpesa/cb' }))).toMatchObject({
      status: 400,
      json: { errorMessage: 'Bad Request - Invalid CallBackURL' },
    });
  });

  it('STK push → "being processed" → callback with metadata items → documented STK Query answer; a second push while open is locked', async () => {
    const push = await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN));
    expect(push).toMatchObject({ status: 200, json: { ResponseCode: '0', ResponseDescription: 'Success. Request accepted for processing' } });
    const id = push.json.CheckoutRequestID as string;
    expect(id).toMatch(/^ws_CO_/);
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(DARAJA_TEST_MSISDN))).toMatchObject({
      status: 500,
      json: { errorCode: '500.001.1001', errorMessage: 'Unable to lock subscriber, a transaction is already in process for the current subscriber' },
    });
    const query = { BusinessShortCode: d.shortCode, Password: password(), Timestamp: timestamp, CheckoutRequestID: id };
    expect(await post('/mpesa/stkpushquery/v1/query', query)).toMatchObject({ status: 500, json: { errorMessage: 'The transaction is being processed' } });
    for (let i = 0; i < 1000 && !received.some((r) => r.body.includes(id)); i++) await new Promise((r) => setTimeout(r, 10));
    const callback = JSON.parse(received.find((r) => r.body.includes(id))!.body);
    expect(callback.Body.stkCallback).toMatchObject({ CheckoutRequestID: id, ResultCode: 0 });
    expect(callback.Body.stkCallback.CallbackMetadata.Item.map((i: { Name: string }) => i.Name)).toEqual(['Amount', 'MpesaReceiptNumber', 'Balance', 'TransactionDate', 'PhoneNumber']);
    expect(await post('/mpesa/stkpushquery/v1/query', query)).toMatchObject({ status: 200, json: { ResponseCode: '0', ResultCode: '0', CheckoutRequestID: id } });
  });

  it('a new token invalidates the previous one (Authorization page FAQ); each API answers its own invalid-token code', async () => {
    const first = await token();
    await token();
    const stale = { authorization: `Bearer ${first}`, 'content-type': 'application/json' };
    const push = await fetch(`${sim.url}/mpesa/stkpush/v1/processrequest`, { method: 'POST', headers: stale, body: '{}' });
    expect(push.status).toBe(404);
    expect(await push.json()).toMatchObject({ errorCode: '404.001.03' });
    const status = await fetch(`${sim.url}/mpesa/transactionstatus/v1/query`, { method: 'POST', headers: stale, body: '{}' });
    expect(status.status).toBe(400);
    expect(await status.json()).toMatchObject({ errorCode: '400.003.01' });
    sim.options.tokenExpiresInAsString = true;
    const res = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: `Basic ${Buffer.from(`${d.consumerKey}:${d.consumerSecret}`).toString('base64')}` },
    });
    expect(((await res.json()) as { expires_in: unknown }).expires_in).toBe('3599');
    sim.options.tokenExpiresInAsString = false;
  });

  it('B2C v3: sync answer, Result with ResultParameters; a repeated OriginatorConversationID is 500.002.1001; a wrong SecurityCredential is accepted, then Result 2001', async () => {
    const body = {
      OriginatorConversationID: 'sim-test-1',
      InitiatorName: d.initiatorName,
      SecurityCredential: d.securityCredential,
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyA: d.b2cShortCode,
      PartyB: DARAJA_TEST_MSISDN,
      Remarks: 'test',
      QueueTimeOutURL: callbackUrl,
      ResultURL: callbackUrl,
      Occassion: 'x',
    };
    const wrong = await post('/mpesa/b2c/v3/paymentrequest', { ...body, OriginatorConversationID: 'sim-test-wrong', SecurityCredential: 'other' });
    expect(wrong).toMatchObject({ status: 200, json: { ResponseCode: '0' } });
    expect(JSON.parse((await resultFor('sim-test-wrong')).body).Result).toMatchObject({ ResultCode: 2001, ResultDesc: 'The initiator information is invalid.', ConversationID: wrong.json.ConversationID });
    const sync = await post('/mpesa/b2c/v3/paymentrequest', body);
    expect(sync).toMatchObject({ status: 200, json: { OriginatorConversationID: 'sim-test-1', ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' } });
    for (let i = 0; i < 1000 && !received.some((r) => r.body.includes('"Result"') && r.body.includes('sim-test-1')); i++) await new Promise((r) => setTimeout(r, 10));
    const result = JSON.parse(received.find((r) => r.body.includes('"Result"') && r.body.includes('sim-test-1'))!.body).Result;
    expect(result).toMatchObject({ ResultType: 0, ResultCode: 0, OriginatorConversationID: 'sim-test-1', ConversationID: sync.json.ConversationID });
    expect(result.ResultParameters.ResultParameter.map((p: { Key: string }) => p.Key)).toContain('TransactionReceipt');
    expect(await post('/mpesa/b2c/v3/paymentrequest', body)).toMatchObject({ status: 500, json: { errorCode: '500.002.1001' } });
    expect(sim.moved().filter((m) => m.id === 'sim-test-1')).toEqual([
      { direction: 'PAY_OUT', id: 'sim-test-1', accountReference: null, amount: 10, msisdn: DARAJA_TEST_MSISDN, receipt: result.TransactionID },
    ]);
    expect(sim.moved().filter((m) => m.id === 'sim-test-wrong')).toEqual([]);
  });

  it('Transaction Status Query: by OriginalConversationID (OriginatorConversationID names nothing); its Result comes under the ConversationID it answered', async () => {
    const status = (named: Record<string, string>) => ({
      Initiator: d.initiatorName,
      SecurityCredential: d.securityCredential,
      CommandID: 'TransactionStatusQuery',
      PartyA: d.b2cShortCode,
      IdentifierType: '4',
      ResultURL: callbackUrl,
      QueueTimeOutURL: callbackUrl,
      Remarks: 'status',
      Occasion: 'x',
      ...named,
    });
    expect(await post('/mpesa/transactionstatus/v1/query', status({ OriginatorConversationID: 'sim-test-1' }))).toMatchObject({ status: 400, json: { errorCode: '400.002.02' } });
    const ack = await post('/mpesa/transactionstatus/v1/query', status({ OriginalConversationID: 'sim-test-1' }));
    expect(ack).toMatchObject({ status: 200, json: { ResponseCode: '0' } });
    const conversationId = ack.json.ConversationID as string;
    const answer = JSON.parse((await waitFor(() => received.find((r) => r.body.includes(conversationId)))).body).Result;
    const params = Object.fromEntries(answer.ResultParameters.ResultParameter.map((p: { Key: string; Value?: unknown }) => [p.Key, p.Value]));
    expect(answer).toMatchObject({ ResultCode: 0, ConversationID: conversationId });
    expect(params).toMatchObject({ TransactionStatus: 'Completed', 'Originator Conversation ID': 'sim-test-1', ReasonType: 'Business Payment to Customer via API' });
    expect(params.ReceiptNo).toBe(sim.b2c.get('sim-test-1')!.receipt);
  });

  it("a failed B2C's Transaction Status Result says Failed, with its ResultDesc as TransactionReason or, when set so, without a value", async () => {
    const b2c = {
      OriginatorConversationID: 'sim-test-poor',
      InitiatorName: d.initiatorName,
      SecurityCredential: d.securityCredential,
      CommandID: 'BusinessPayment',
      Amount: d.orgBalance + 1,
      PartyA: d.b2cShortCode,
      PartyB: DARAJA_TEST_MSISDN,
      Remarks: 'test',
      QueueTimeOutURL: callbackUrl,
      ResultURL: callbackUrl,
    };
    expect(await post('/mpesa/b2c/v3/paymentrequest', b2c)).toMatchObject({ status: 200, json: { ResponseCode: '0' } });
    expect(JSON.parse((await resultFor('sim-test-poor')).body).Result).toMatchObject({ ResultCode: 1, ResultDesc: 'The balance is insufficient for the transaction.' });
    const reasonOf = async () => {
      const ack = await post('/mpesa/transactionstatus/v1/query', {
        Initiator: d.initiatorName,
        SecurityCredential: d.securityCredential,
        CommandID: 'TransactionStatusQuery',
        OriginalConversationID: 'sim-test-poor',
        PartyA: d.b2cShortCode,
        IdentifierType: '4',
        ResultURL: callbackUrl,
        QueueTimeOutURL: callbackUrl,
        Remarks: 'status',
      });
      const conversationId = ack.json.ConversationID as string;
      const answer = JSON.parse((await waitFor(() => received.find((r) => r.body.includes(conversationId)))).body).Result;
      const params = answer.ResultParameters.ResultParameter as { Key: string; Value?: unknown }[];
      expect(params.find((p) => p.Key === 'TransactionStatus')!.Value).toBe('Failed');
      return params.find((p) => p.Key === 'TransactionReason');
    };
    expect(await reasonOf()).toEqual({ Key: 'TransactionReason', Value: 'The balance is insufficient for the transaction.' });
    const settings = await fetch(`${sim.url}/_simulator/settings`, { method: 'POST', body: JSON.stringify({ statusResultHasReason: false }) });
    expect(await settings.json()).toMatchObject({ statusResultHasReason: false });
    expect(await reasonOf()).toEqual({ Key: 'TransactionReason' });
    sim.options.statusResultHasReason = true;
  });

  it('fault "answer 5xx but process": the push is answered 500.003.1001, then prompted, paid and called back', async () => {
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const phone = '254711000777';
    expect(await post('/mpesa/stkpush/v1/processrequest', stkBody(phone))).toMatchObject({ status: 500, json: { errorCode: '500.003.1001', errorMessage: 'Internal Server Error' } });
    const push = [...sim.stk.values()].find((t) => t.phone === phone)!;
    await waitFor(() => received.find((r) => r.body.includes(push.checkoutRequestId)));
    expect(sim.moved().filter((m) => m.msisdn === phone)).toEqual([
      { direction: 'PAY_IN', id: push.checkoutRequestId, accountReference: 'INV123', amount: 1, msisdn: phone, receipt: push.receipt },
    ]);
  });

  it('fault "late": a phone ending in 198 is decided after lateDecisionDelayMs', async () => {
    sim.options.lateDecisionDelayMs = 300;
    const phone = '254711000198';
    const push = await post('/mpesa/stkpush/v1/processrequest', stkBody(phone));
    const id = push.json.CheckoutRequestID as string;
    await new Promise((r) => setTimeout(r, 100));
    expect(sim.stk.get(id)!.resultCode).toBeNull();
    await waitFor(() => received.find((r) => r.body.includes(id)));
    expect(sim.stk.get(id)!.resultCode).toBe(0);
  });
});
