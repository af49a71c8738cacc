/**
 * The Wave simulator speaks Wave's contract (https://docs.wave.com): bearer keys bound to one
 * wallet and one API with Wave's `{code, message}` refusals, sessions with `wave_launch_url` and
 * the `client_reference` search, payouts with `idempotency-key` (replay and
 * `idempotency-mismatch`), webhooks signed `t=…,v1=HMAC-SHA256(secret, t + body)`, late decisions
 * (…198) and the list of money moved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waveSignatureProblem } from '../wave-transformers.ts';
import { startWaveSimulator, WAVE_SIM_DEFAULTS, type WaveSimulator } from './wave-simulator.ts';

let sim: WaveSimulator;
let server: http.Server;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sim = await startWaveSimulator({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wave` });
});
afterAll(async () => {
  await sim.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const sn = WAVE_SIM_DEFAULTS.wallets.SN;
async function call(method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('Wave simulator', () => {
  it('refuses a missing or unknown key, and a key of the other API, with Wave codes', async () => {
    expect(await call('GET', '/v1/checkout/sessions/search?client_reference=x', null)).toMatchObject({ status: 401, json: { code: 'missing-auth-header' } });
    expect(await call('GET', '/v1/checkout/sessions/search?client_reference=x', 'nope')).toMatchObject({ status: 401, json: { code: 'no-matching-api-key' } });
    expect(await call('GET', '/v1/payouts/search?client_reference=x', sn.checkoutApiKey)).toMatchObject({ status: 403, json: { code: 'authorization-error' } });
    expect(await call('POST', '/v1/checkout/sessions', sn.checkoutApiKey, { amount: 1000, currency: 'XOF' })).toMatchObject({
      status: 400,
      json: { code: 'request-validation-error' },
    });
  });

  it('a session has a launch URL, is found by client_reference, and once paid sends a signed checkout.session.completed', async () => {
    const created = await call('POST', '/v1/checkout/sessions', sn.checkoutApiKey, {
      amount: '1000',
      currency: 'XOF',
      success_url: 'https://shop.example/ok',
      error_url: 'https://shop.example/ko',
      client_reference: 'REF-1',
    });
    expect(created).toMatchObject({ status: 200, json: { checkout_status: 'open', payment_status: 'processing', client_reference: 'REF-1' } });
    expect(created.json.wave_launch_url).toBe(`${sim.url}/c/${created.json.id}`);
    expect((await call('GET', '/v1/checkout/sessions/search?client_reference=REF-1', sn.checkoutApiKey)).json.result).toHaveLength(1);
    const page = await fetch(created.json.wave_launch_url as string);
    expect(await page.text()).toContain('Payer avec Wave');
    const paid = await fetch(`${sim.url}/c/${created.json.id}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.example/ok');
    for (let i = 0; i < 200 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const hook = received[0]!;
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'checkout.session.completed', data: { id: created.json.id, payment_status: 'succeeded' } });
    expect(waveSignatureProblem(hook.headers['wave-signature'] as string, Buffer.from(hook.body), WAVE_SIM_DEFAULTS.webhookSecret, Date.now())).toBeNull();
    expect(await call('GET', `/v1/checkout/sessions/${created.json.id}`, WAVE_SIM_DEFAULTS.wallets.CI.checkoutApiKey)).toMatchObject({
      status: 404,
      json: { code: 'checkout-session-not-found' },
    });
  });

  it('payouts: idempotency-key required, same body replayed, another body idempotency-mismatch', async () => {
    const body = { currency: 'XOF', receive_amount: '5000', mobile: '+221761110001', client_reference: 'PO-1' };
    expect(await call('POST', '/v1/payout', sn.payoutApiKey, body)).toMatchObject({ status: 400, json: { code: 'request-validation-error' } });
    const first = await call('POST', '/v1/payout', sn.payoutApiKey, body, { 'idempotency-key': 'PO-1' });
    expect(first).toMatchObject({ status: 200, json: { status: 'succeeded', receive_amount: '5000', fee: '50' } });
    const again = await call('POST', '/v1/payout', sn.payoutApiKey, body, { 'idempotency-key': 'PO-1' });
    expect(again.json.id).toBe(first.json.id);
    expect(await call('POST', '/v1/payout', sn.payoutApiKey, { ...body, receive_amount: '6000' }, { 'idempotency-key': 'PO-1' })).toMatchObject({
      status: 409,
      json: { code: 'idempotency-mismatch' },
    });
    expect(await call('GET', `/v1/payout/${first.json.id}`, sn.payoutApiKey)).toMatchObject({ status: 200, json: { client_reference: 'PO-1' } });
  });

  it('…198: the payout stays processing and the session open until decideLate(); moved() lists both, once', async () => {
    const payout = await call('POST', '/v1/payout', sn.payoutApiKey, { currency: 'XOF', receive_amount: '3000', mobile: '+221761110198', client_reference: 'PO-LATE' }, { 'idempotency-key': 'PO-LATE' });
    expect(payout.json.status).toBe('processing');
    const session = await call('POST', '/v1/checkout/sessions', sn.checkoutApiKey, {
      amount: '1500',
      currency: 'XOF',
      success_url: 'https://kolo.example/ok',
      error_url: 'https://kolo.example/ko',
      client_reference: 'PI-LATE',
      restrict_payer_mobile: '+221761110198',
    });
    expect(session.json.payment_status).toBe('processing');
    const mine = () => sim.moved().filter((m) => m.reference === 'PO-LATE' || m.reference === 'PI-LATE');
    expect(mine()).toEqual([]);
    expect(sim.decideLate()).toBe(2);
    const paid = await call('GET', `/v1/checkout/sessions/${session.json.id}`, sn.checkoutApiKey);
    expect(paid.json).toMatchObject({ payment_status: 'succeeded', checkout_status: 'complete' });
    expect(mine()).toEqual([
      { reference: 'PI-LATE', operatorReference: session.json.id, direction: 'PAY_IN', amount: 1500, currency: 'XOF', msisdn: '221761110198', operatorTransactionId: paid.json.transaction_id },
      { reference: 'PO-LATE', operatorReference: payout.json.id, direction: 'PAY_OUT', amount: 3000, currency: 'XOF', msisdn: '221761110198', operatorTransactionId: payout.json.id },
    ]);
  });
});
