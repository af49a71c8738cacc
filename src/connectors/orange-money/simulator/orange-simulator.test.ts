/**
 * The Orange simulator speaks the OM API contract (`omcoreapis/1.0.2`): OAuth token with Basic
 * consumer credentials, Bearer + X-AUTH-TOKEN on every call (WSO2 fault when refused), init →
 * payToken, pay → PENDING or a 417 business decline, orderId at most 20 characters, status by
 * payToken, its documented triggers, a POST to notifUrl consistent with the status, late decisions
 * and the list of money moved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORANGE_SIM_DEFAULTS as D, startOrangeSimulator, type OrangeSimulator } from './orange-simulator.ts';

let sim: OrangeSimulator;
let notifServer: http.Server;
let notifUrl: string;
// Only requests on the notification path: the loopback port may have served another test's
// process before, whose stray requests (a health poll) can still arrive.
const notified: { method: string; body: string }[] = [];

beforeAll(async () => {
  sim = await startOrangeSimulator({ decisionDelayMs: 0 });
  notifServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/notif') notified.push({ method: req.method!, body });
      res.end();
    });
  });
  await new Promise<void>((r) => notifServer.listen(0, '127.0.0.1', r));
  notifUrl = `http://127.0.0.1:${(notifServer.address() as AddressInfo).port}/notif`;
});
afterAll(async () => {
  await sim.close();
  notifServer.closeAllConnections();
  await new Promise<void>((r) => notifServer.close(() => r()));
});

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const xAuth = Buffer.from(`${D.apiUsername}:${D.apiPassword}`).toString('base64');

async function token() {
  const res = await fetch(`${sim.url}/token`, {
    method: 'POST',
    headers: { authorization: basic(D.consumerKey, D.consumerSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${sim.url}/omcoreapis/1.0.2${path}`, {
    method,
    headers: { authorization: `Bearer ${await token()}`, 'x-auth-token': xAuth, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
};
const payBody = (payToken: string, subscriberMsisdn: string) => ({
  notifUrl,
  channelUserMsisdn: D.channelMsisdn,
  amount: '100',
  subscriberMsisdn,
  pin: D.pin,
  orderId: 'PI-0123456789AB',
  description: 'test',
  payToken,
});

describe('Orange simulator', () => {
  it('token: Basic consumer credentials and form grant; refusals in the gateway shape', async () => {
    expect(await token()).toMatch(/^[0-9a-f]{32}$/);
    const bad = await fetch(`${sim.url}/token`, { method: 'POST', headers: { authorization: basic(D.consumerKey, 'x'), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const noBearer = await fetch(`${sim.url}/omcoreapis/1.0.2/mp/init`, { method: 'POST', headers: { 'x-auth-token': xAuth } });
    expect(noBearer.status).toBe(401);
    expect(((await noBearer.json()) as any).fault.message).toBe('Invalid Credentials');
    expect((await api('POST', '/mp/init', undefined, { 'x-auth-token': 'bad' })).status).toBe(403);
  });

  it('init → payToken (INITIATED); pay → PENDING; then SUCCESSFULL with a txnid, notified by POST', async () => {
    const init = await api('POST', '/mp/init');
    expect(init).toMatchObject({ status: 200, json: { message: 'Payment request successfully initiated' } });
    const payToken = init.json.data.payToken as string;
    expect((await api('GET', `/mp/paymentstatus/${payToken}`)).json.data.status).toBe('INITIATED');
    const pay = await api('POST', '/mp/pay', payBody(payToken, '699000001'));
    expect(pay.status).toBe(200);
    expect(pay.json.data).toMatchObject({ status: 'PENDING', inittxnstatus: '200', payToken });
    for (let i = 0; i < 100 && notified.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const status = await api('GET', `/mp/paymentstatus/${payToken}`);
    expect(status.json.data).toMatchObject({ status: 'SUCCESSFULL', confirmtxnstatus: '200' });
    expect(notified[0]!.method).toBe('POST');
    expect(JSON.parse(notified[0]!.body)).toEqual(status.json.data);
    expect((await api('POST', '/mp/pay', payBody(payToken, '699000001'))).status).toBe(400);
  });

  it('triggers: 601 declined at once (HTTP 417, 60019); 609 wrong PIN (417); bad channel PIN refused; unknown payToken 404', async () => {
    const payToken = (await api('POST', '/mp/init')).json.data.payToken as string;
    const pay = await api('POST', '/mp/pay', payBody(payToken, '699000601'));
    expect(pay.status).toBe(417);
    expect(pay.json.message).toBe('Le solde du compte du payeur est insuffisant');
    const pin = await api('POST', '/mp/pay', payBody((await api('POST', '/mp/init')).json.data.payToken, '699000609'));
    expect(pin).toMatchObject({ status: 417, json: { message: 'Code PIN incorrect', data: { status: 'FAILED' } } });
    expect(pay.json.data).toMatchObject({ status: 'FAILED', inittxnstatus: '60019', inittxnmessage: 'Le solde du compte du payeur est insuffisant' });
    const other = (await api('POST', '/cashin/init')).json.data.payToken as string;
    expect((await api('POST', '/cashin/pay', { ...payBody(other, '699000001'), pin: '0000' })).status).toBe(403);
    expect((await api('GET', '/mp/paymentstatus/MPNOPE')).status).toBe(404);
  });

  it('orderId: 20 characters accepted, 21 refused', async () => {
    const ok = await api('POST', '/mp/pay', { ...payBody((await api('POST', '/mp/init')).json.data.payToken, '699000607'), orderId: 'X'.repeat(20) });
    expect(ok.status).toBe(200);
    const long = await api('POST', '/mp/pay', { ...payBody((await api('POST', '/mp/init')).json.data.payToken, '699000607'), orderId: 'X'.repeat(21) });
    expect(long.status).toBe(400);
  });

  it('198 stays PENDING until decideLate(); moved() lists each successful payment once, with its txnid', async () => {
    const payToken = (await api('POST', '/cashin/init')).json.data.payToken as string;
    expect((await api('POST', '/cashin/pay', { ...payBody(payToken, '699000198'), orderId: 'PO-LATE', amount: '2500' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    expect((await api('GET', `/cashin/paymentstatus/${payToken}`)).json.data.status).toBe('PENDING');
    expect(sim.moved().find((m) => m.operatorReference === payToken)).toBeUndefined();
    expect(sim.decideLate()).toBe(1);
    const done = (await api('GET', `/cashin/paymentstatus/${payToken}`)).json.data;
    expect(done.status).toBe('SUCCESSFULL');
    expect(sim.moved().filter((m) => m.operatorReference === payToken)).toEqual([
      { reference: 'PO-LATE', operatorReference: payToken, direction: 'PAY_OUT', amount: 2500, currency: 'XAF', msisdn: '699000198', operatorTransactionId: done.txnid },
    ]);
    expect(sim.moved().every((m) => m.operatorTransactionId !== 'null')).toBe(true);
  });
});
