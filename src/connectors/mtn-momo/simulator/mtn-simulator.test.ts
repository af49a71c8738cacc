/**
 * The MTN simulator speaks MTN's published contract (MoMo Open API): exact paths, token auth per
 * product with MTN's refusals, synchronous validation, 409 on a reused X-Reference-Id, the sandbox
 * numbers of MTN's "Sandbox Use Cases" page, callbacks with the status body, and the fault switch.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MTN_SIM_DEFAULTS, newReferenceId, startMtnSimulator, type MtnSimulator } from './mtn-simulator.ts';

let sim: MtnSimulator;
let callbackServer: http.Server;
let callbackUrl: string;
const received: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  sim = await startMtnSimulator({ decisionDelayMs: 0, delayedMs: 50 });
  callbackServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      res.end();
    });
  });
  await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/cb`;
});
afterAll(async () => {
  await sim.close();
  callbackServer.closeAllConnections();
  await new Promise<void>((r) => callbackServer.close(() => r()));
});

const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
const col = MTN_SIM_DEFAULTS.collection;
const dis = MTN_SIM_DEFAULTS.disbursement;

async function token(product: 'collection' | 'disbursement' = 'collection') {
  const c = product === 'collection' ? col : dis;
  const res = await fetch(`${sim.url}/${product}/token/`, { method: 'POST', headers: { authorization: basic(c.apiUser, c.apiKey), 'ocp-apim-subscription-key': c.subscriptionKey } });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function requestToPay(partyId: string, options: { ref?: string; currency?: string; env?: string; headers?: Record<string, string>; note?: string } = {}) {
  const ref = options.ref ?? newReferenceId();
  const res = await fetch(`${sim.url}/collection/v1_0/requesttopay`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await token()}`,
      'ocp-apim-subscription-key': col.subscriptionKey,
      'x-reference-id': ref,
      'x-target-environment': options.env ?? 'sandbox',
      'x-callback-url': `${callbackUrl}/${ref}`,
      'content-type': 'application/json',
      ...options.headers,
    },
    body: JSON.stringify({
      amount: '100',
      currency: options.currency ?? 'EUR',
      externalId: 'ext-1',
      payer: { partyIdType: 'MSISDN', partyId },
      payerMessage: options.note ?? 'hello',
      payeeNote: 'note',
    }),
  });
  return { ref, res };
}

async function status(ref: string) {
  const res = await fetch(`${sim.url}/collection/v1_0/requesttopay/${ref}`, {
    headers: { authorization: `Bearer ${await token()}`, 'ocp-apim-subscription-key': col.subscriptionKey, 'x-target-environment': 'sandbox' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('auth', () => {
  it('issues a token per product with Basic API user:key and that product subscription key, no body', async () => {
    const res = await fetch(`${sim.url}/collection/token/`, { method: 'POST', headers: { authorization: basic(col.apiUser, col.apiKey), 'ocp-apim-subscription-key': col.subscriptionKey } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'access_token', expires_in: 3600 });
  });

  it('refuses a bad subscription key, bad credentials, a body on /token, and another product’s token', async () => {
    const badKey = await fetch(`${sim.url}/collection/token/`, { method: 'POST', headers: { authorization: basic(col.apiUser, col.apiKey), 'ocp-apim-subscription-key': 'nope' } });
    expect(badKey.status).toBe(401);
    expect(((await badKey.json()) as { message: string }).message).toMatch(/invalid subscription key/);
    const badLogin = await fetch(`${sim.url}/collection/token/`, { method: 'POST', headers: { authorization: basic(col.apiUser, 'wrong'), 'ocp-apim-subscription-key': col.subscriptionKey } });
    expect(badLogin.status).toBe(401);
    expect(await badLogin.json()).toEqual({ error: 'login_failed' });
    const withBody = await fetch(`${sim.url}/collection/token/`, { method: 'POST', body: '{}', headers: { authorization: basic(col.apiUser, col.apiKey), 'ocp-apim-subscription-key': col.subscriptionKey } });
    expect(withBody.status).toBe(400);
    const cross = await fetch(`${sim.url}/collection/v1_0/requesttopay/${newReferenceId()}`, {
      headers: { authorization: `Bearer ${await token('disbursement')}`, 'ocp-apim-subscription-key': col.subscriptionKey, 'x-target-environment': 'sandbox' },
    });
    expect(cross.status).toBe(401);
  });

  it('refuses an expired token', async () => {
    const t = await token();
    sim.expireTokens();
    const res = await fetch(`${sim.url}/collection/v1_0/requesttopay/${newReferenceId()}`, {
      headers: { authorization: `Bearer ${t}`, 'ocp-apim-subscription-key': col.subscriptionKey, 'x-target-environment': 'sandbox' },
    });
    expect(res.status).toBe(401);
  });
});

describe('requesttopay', () => {
  it('202, then SUCCESSFUL with a financialTransactionId, and a PUT callback carrying the status body', async () => {
    const { ref, res } = await requestToPay('46733123499');
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    await until(async () => received.some((r) => r.url.endsWith(ref)));
    const got = received.find((r) => r.url.endsWith(ref))!;
    expect(got.method).toBe('PUT');
    const s = await status(ref);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'SUCCESSFUL', externalId: 'ext-1', amount: '100', currency: 'EUR' });
    expect(s.body.financialTransactionId).toMatch(/^\d+$/);
    expect(JSON.parse(got.body)).toEqual(s.body);
  });

  it('synchronous checks: X-Reference-Id UUIDv4, EUR in sandbox, notes without apostrophes, callback host, 409 on reuse', async () => {
    expect((await requestToPay('46733123499', { ref: 'not-a-uuid' })).res.status).toBe(400);
    const eur = await requestToPay('46733123499', { currency: 'XAF' });
    expect(eur.res.status).toBe(500);
    expect(await eur.res.json()).toEqual({ code: 'INVALID_CURRENCY', message: 'Currency not supported.' });
    expect((await requestToPay('46733123499', { note: "l'achat" })).res.status).toBe(400);
    const first = await requestToPay('46733123499');
    const again = await requestToPay('46733123499', { ref: first.ref });
    expect(again.res.status).toBe(409);
    expect(await again.res.json()).toEqual({ code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' });
    sim.options.providerCallbackHost = 'cb.example.com';
    try {
      const host = await requestToPay('46733123499');
      expect(host.res.status).toBe(500);
      expect(((await host.res.json()) as { code: string }).code).toBe('INVALID_CALLBACK_URL_HOST');
    } finally {
      sim.options.providerCallbackHost = null;
    }
    expect((await status(newReferenceId())).status).toBe(404);
  });

  it.each([
    ['46733123450', 'INTERNAL_PROCESSING_ERROR'],
    ['46733123451', 'APPROVAL_REJECTED'],
    ['46733123452', 'EXPIRED'],
    ['46733123455', 'PAYER_NOT_FOUND'],
    ['46733123463', 'COULD_NOT_PERFORM_TRANSACTION'],
  ])('sandbox number %s → FAILED %s', async (msisdn, reason) => {
    const { ref } = await requestToPay(msisdn);
    await until(async () => (await status(ref)).body.status !== 'PENDING');
    expect((await status(ref)).body).toMatchObject({ status: 'FAILED', reason });
  });

  it('46733123453 stays PENDING; 46733123454 is PENDING, then SUCCESSFUL after the delay', async () => {
    const ongoing = await requestToPay('46733123453');
    const delayed = await requestToPay('46733123454');
    expect((await status(delayed.ref)).body.status).toBe('PENDING');
    await until(async () => (await status(delayed.ref)).body.status === 'SUCCESSFUL');
    expect((await status(delayed.ref)).body.status).toBe('SUCCESSFUL');
    expect((await status(ongoing.ref)).body.status).toBe('PENDING');
  });

  it('…198 stays PENDING until decideLate(); moved() lists the money moved with its financialTransactionId', async () => {
    const late = await requestToPay('46733123198');
    await new Promise((r) => setTimeout(r, 30));
    expect((await status(late.ref)).body.status).toBe('PENDING');
    expect(sim.moved().find((m) => m.operatorReference === late.ref)).toBeUndefined();
    const decided = await fetch(`${sim.url}/_simulator/decide-late`, { method: 'POST' });
    expect(await decided.json()).toEqual({ decided: 1 });
    const done = (await status(late.ref)).body;
    expect(done.status).toBe('SUCCESSFUL');
    expect(sim.moved().filter((m) => m.operatorReference === late.ref)).toEqual([
      { reference: 'ext-1', operatorReference: late.ref, direction: 'PAY_IN', amount: 10000, currency: 'EUR', msisdn: '46733123198', operatorTransactionId: done.financialTransactionId },
    ]);
    // The callback goes once, with no retry (MTN's callback pages).
    await until(async () => received.some((r) => r.url.endsWith(late.ref)));
    await new Promise((r) => setTimeout(r, 30));
    expect(received.filter((r) => r.url.endsWith(late.ref))).toHaveLength(1);
  });

  it('fault switch: 500 on demand, then back to normal', async () => {
    const control = await fetch(`${sim.url}/_simulator/fault`, { method: 'POST', body: JSON.stringify({ mode: 'error500', on: 'initiate', landed: false, remaining: 1 }) });
    expect(control.status).toBe(200);
    expect((await requestToPay('46733123499')).res.status).toBe(500);
    expect((await requestToPay('46733123499')).res.status).toBe(202);
  });
});

describe('transfer and account holder', () => {
  it('the transfer column is shifted: 46733123455 is NOT_ENOUGH_FUNDS, 46733123457 PAYEE_NOT_FOUND', async () => {
    const auth = { authorization: `Bearer ${await token('disbursement')}`, 'ocp-apim-subscription-key': dis.subscriptionKey, 'x-target-environment': 'sandbox' };
    const refs: Record<string, string> = {};
    for (const msisdn of ['46733123455', '46733123457']) {
      const ref = newReferenceId();
      refs[msisdn] = ref;
      const res = await fetch(`${sim.url}/disbursement/v1_0/transfer`, {
        method: 'POST',
        headers: { ...auth, 'x-reference-id': ref, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '5', currency: 'EUR', externalId: 'p', payee: { partyIdType: 'MSISDN', partyId: msisdn } }),
      });
      expect(res.status).toBe(202);
    }
    const read = async (ref: string) => (await (await fetch(`${sim.url}/disbursement/v1_0/transfer/${ref}`, { headers: auth })).json()) as Record<string, unknown>;
    await until(async () => (await read(refs['46733123457']!)).status === 'FAILED');
    expect(await read(refs['46733123455']!)).toMatchObject({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' });
    expect(await read(refs['46733123457']!)).toMatchObject({ status: 'FAILED', reason: 'PAYEE_NOT_FOUND', payee: { partyId: '46733123457' } });
    const active = async (msisdn: string) => fetch(`${sim.url}/disbursement/v1_0/accountholder/msisdn/${msisdn}/active`, { headers: auth });
    expect(await (await active('46733123499')).json()).toEqual({ result: true });
    expect((await active('46733123450')).status).toBe(404);
    expect(await (await active('46733123451')).json()).toEqual({ result: false });
  });
});

describe('sandbox provisioning and settings', () => {
  it('provisioning creates an API user and its key; the key gets a token; callbacks must go to its providerCallbackHost', async () => {
    const id = newReferenceId();
    const create = await fetch(`${sim.url}/v1_0/apiuser`, {
      method: 'POST',
      headers: { 'x-reference-id': id, 'ocp-apim-subscription-key': col.subscriptionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ providerCallbackHost: 'webhook.example.com' }),
    });
    expect(create.status).toBe(201);
    const again = await fetch(`${sim.url}/v1_0/apiuser`, {
      method: 'POST',
      headers: { 'x-reference-id': id, 'ocp-apim-subscription-key': col.subscriptionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ providerCallbackHost: 'webhook.example.com' }),
    });
    expect(again.status).toBe(409);
    const read = await fetch(`${sim.url}/v1_0/apiuser/${id}`, { headers: { 'ocp-apim-subscription-key': col.subscriptionKey } });
    expect(await read.json()).toEqual({ providerCallbackHost: 'webhook.example.com', targetEnvironment: 'sandbox' });
    const key = await fetch(`${sim.url}/v1_0/apiuser/${id}/apikey`, { method: 'POST', headers: { 'ocp-apim-subscription-key': col.subscriptionKey } });
    expect(key.status).toBe(201);
    const { apiKey } = (await key.json()) as { apiKey: string };
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/);
    expect((await fetch(`${sim.url}/v1_0/apiuser/${newReferenceId()}/apikey`, { method: 'POST', headers: { 'ocp-apim-subscription-key': col.subscriptionKey } })).status).toBe(404);
    const tokenRes = await fetch(`${sim.url}/collection/token/`, { method: 'POST', headers: { authorization: basic(id, apiKey), 'ocp-apim-subscription-key': col.subscriptionKey } });
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const wrongHost = await fetch(`${sim.url}/collection/v1_0/requesttopay`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access_token}`,
        'ocp-apim-subscription-key': col.subscriptionKey,
        'x-reference-id': newReferenceId(),
        'x-target-environment': 'sandbox',
        'x-callback-url': 'https://elsewhere.example.com/cb',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ amount: '1', currency: 'EUR', externalId: 'x', payer: { partyIdType: 'MSISDN', partyId: '46733123499' } }),
    });
    expect(wrongHost.status).toBe(500);
    expect(((await wrongHost.json()) as { code: string }).code).toBe('INVALID_CALLBACK_URL_HOST');
  });

  it('settings: callbacks dropped on demand, bad settings refused', async () => {
    expect((await fetch(`${sim.url}/_simulator/settings`, { method: 'POST', body: JSON.stringify({ callbacks: { drop: 'yes' } }) })).status).toBe(400);
    const set = await fetch(`${sim.url}/_simulator/settings`, { method: 'POST', body: JSON.stringify({ callbacks: { drop: true }, callbackMethod: 'POST' }) });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ callbackMethod: 'POST', callbacks: { drop: true } });
    const before = received.length;
    const { ref } = await requestToPay('46733123498');
    await until(async () => (await status(ref)).body.status === 'SUCCESSFUL');
    expect(received.length).toBe(before);
    sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
    sim.options.callbackMethod = 'PUT';
  });

  it('latency: a request-to-pay is created only after the wait, and until then its status is 404', async () => {
    expect((await fetch(`${sim.url}/_simulator/settings`, { method: 'POST', body: JSON.stringify({ latencyMs: { initiate: -1 } }) })).status).toBe(400);
    const set = await fetch(`${sim.url}/_simulator/settings`, { method: 'POST', body: JSON.stringify({ latencyMs: { initiate: 300 } }) });
    expect(await set.json()).toMatchObject({ latencyMs: { initiate: 300, token: 0, check: 0, status: 0 } });
    try {
      const ref = newReferenceId();
      const sent = requestToPay('46733123497', { ref });
      await new Promise((r) => setTimeout(r, 50));
      expect((await status(ref)).status).toBe(404);
      expect((await (await sent).res).status).toBe(202);
      expect((await status(ref)).status).toBe(200);
    } finally {
      sim.options.latencyMs.initiate = 0;
    }
  });
});

describe('load-test options (off by default): random faults, dropped and repeated callbacks, latency draws', () => {
  it('faultRates: a request-to-pay answered 500 still moves the money; one held gets no answer but moves it too', async () => {
    sim.options.faultRates = { error500: 1, timeout: 0 };
    try {
      const answered500 = await requestToPay('46733123301');
      expect(answered500.res.status).toBe(500);
      await until(async () => (await status(answered500.ref)).body.status === 'SUCCESSFUL');
      expect(sim.moved().some((m) => m.operatorReference === answered500.ref)).toBe(true);
      const requestLog = sim.requests.find((r) => r.headers['x-reference-id'] === answered500.ref)!;
      expect(requestLog.answerStatus).toBe(500);
      expect(requestLog.answeredAtMs! - requestLog.receivedAtMs!).toBeGreaterThanOrEqual(0);

      sim.options.faultRates = { error500: 0, timeout: 1 };
      const ref = newReferenceId();
      const held = await Promise.race([requestToPay('46733123302', { ref }).then(() => 'answered', () => 'closed'), new Promise((r) => setTimeout(() => r('held'), 300))]);
      expect(held).toBe('held');
      await until(async () => (await status(ref)).body.status === 'SUCCESSFUL');
      expect(sim.moved().some((m) => m.operatorReference === ref)).toBe(true);
    } finally {
      sim.options.faultRates = null;
    }
    expect((await requestToPay('46733123303')).res.status).toBe(202);
  });

  it('callbacks: dropRate 1 sends none, duplicateRate 1 sends each twice', async () => {
    sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false, dropRate: 1 };
    try {
      const dropped = await requestToPay('46733123304');
      await until(async () => (await status(dropped.ref)).body.status === 'SUCCESSFUL');
      sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false, duplicateRate: 1 };
      const twice = await requestToPay('46733123305');
      await until(async () => received.filter((r) => r.url.endsWith(twice.ref)).length === 2);
      await new Promise((r) => setTimeout(r, 30));
      expect(received.filter((r) => r.url.endsWith(dropped.ref))).toHaveLength(0);
      expect(received.filter((r) => r.url.endsWith(twice.ref))).toHaveLength(2);
    } finally {
      sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
    }
  });

  it('latency distribution: each call waits a log-normal draw around the median; connections are counted', async () => {
    const ref = (await requestToPay('46733123306')).ref;
    sim.options.latencyMs.distribution = { medianMs: 40, p99Ms: 80 };
    const waits: number[] = [];
    try {
      for (let i = 0; i < 9; i++) {
        const started = performance.now();
        expect((await status(ref)).status).toBe(200);
        waits.push(performance.now() - started);
      }
    } finally {
      sim.options.latencyMs.distribution = null;
    }
    waits.sort((a, b) => a - b);
    // A draw is at least ~16 ms with this spread (median × e^(−3σ)); the median is near 40 ms.
    expect(waits[0]).toBeGreaterThan(10);
    expect(waits[4]).toBeGreaterThan(20);
    expect(waits[4]).toBeLessThan(250);
    expect(sim.connectionsOpened()).toBeGreaterThan(0);
  });
});

describe('statement', () => {
  it('dates a payment when the money moved, however late it is next asked about', async () => {
    const moved = Date.parse('2026-03-02T09:15:00Z');
    let now = moved;
    const ownClock = sim.options.nowMs;
    sim.options.nowMs = () => now;
    try {
      const { ref } = await requestToPay('46733123499');
      // The callback says the money moved; nothing asks the simulator anything before the clock moves on.
      await until(async () => received.some((r) => r.url.endsWith(ref)));
      now = moved + 3 * 3_600_000;
      expect((await status(ref)).body.status).toBe('SUCCESSFUL');
      const row = sim.statement.rows().find((r) => r.id === (sim.moved().find((m) => m.operatorReference === ref)?.operatorTransactionId ?? '?'));
      expect(row?.at.toISOString()).toBe('2026-03-02T09:15:00.000Z');
      expect(sim.statementCsv()).toContain('2026-03-02 09:15:00');
    } finally {
      sim.options.nowMs = ownClock;
    }
  });
});
