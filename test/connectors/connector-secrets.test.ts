/**
 * Secrets never appear in logs or errors: with both LIVE connectors on (wrong credentials,
 * operator faults, timeouts, callbacks known and unknown), every log line at `trace` level, every
 * transaction row and event, and every API answer is searched for each credential, the channel
 * PIN, the bearer tokens the simulators issued and the callback tokens.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startOrangeSimulator, type OrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { chargeBody, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mtnEnv, orangeEnv, settled, startLiveHarness } from '../helpers/live.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

// A six-digit channel PIN (Orange allows 4 to 6), matched only as a whole token: the simulator's
// default four digits turn up by chance in timestamps, durations and request ids about once in 150
// runs, where a leak would show it between quotes or other separators.
const PIN = '730518';
const orangeTestEnv = (sim: OrangeSimulator) => orangeEnv(sim, { ORANGE_MONEY_PIN: PIN });

let mtn: MtnSimulator;
let orange: OrangeSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;
const lines: string[] = [];
const answers: string[] = [];

beforeAll(async () => {
  mtn = await startMtnSimulator({ decisionDelayMs: 20 });
  orange = await startOrangeSimulator({ decisionDelayMs: 20, pin: PIN });
  receiver = await startReceiver();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  ({ h, t } = await startLiveHarness({ ...mtnEnv(mtn), ...orangeTestEnv(orange) }, receiver.url, pino({ level: 'trace' }, sink)));
});
afterAll(async () => {
  await h?.close();
  await mtn?.close();
  await orange?.close();
  await receiver?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await h.request(method, path, { key: t.key, body });
  answers.push(res.text);
  return res;
}

describe('secrets', () => {
  it('appear in no log line, no transaction, no event and no API answer', async () => {
    // Successes, declines, faults, timeouts and a refused token on both operators.
    const refs: string[] = [];
    refs.push((await call('POST', PATHS.charge, chargeBody({ payerAccount: '237677000001' }))).json.data.reference);
    // LIVE pay-outs are funded by pay-ins: that charge's 4 925 pays for both transfers.
    await settled(h, refs[0]!);
    refs.push((await call('POST', PATHS.transfer, transferBody({ amount: 2000, beneficiaryAccount: '237677000457' }))).json.data.reference);
    mtn.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    refs.push((await call('POST', PATHS.charge, chargeBody({ payerAccount: '237677000002' }))).json.data.reference);
    mtn.fault = { mode: 'timeout', on: 'status', landed: true, remaining: 1 };
    refs.push((await call('POST', PATHS.charge, chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699000601' }))).json.data.reference);
    refs.push((await call('POST', PATHS.charge, chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699000001' }))).json.data.reference);
    orange.options.consumerSecret = 'rotated-by-orange';
    orange.expireTokens();
    refs.push((await call('POST', PATHS.transfer, transferBody({ amount: 2000, paymentMethod: 'ORANGE_MONEY_CM', beneficiaryAccount: '237699000011' }))).json.data.reference);
    h.clock.advance(10_000);
    await pollOnce(h.services);
    await h.request('PUT', `/api/v1/callbacks/mtn-momo/${'a'.repeat(48)}`, { raw: '{}' });
    await callbacksIdle(h.services);
    await settled(h, refs[0]!);
    for (const reference of refs) await call('GET', reference.startsWith('PI-') ? PATHS.payInStatus(reference) : PATHS.payOutStatus(reference));

    const rows = await h.services.db.select().from(transactions);
    const events = await h.services.db.select().from(transactionEvents);
    expect(rows.find((r) => r.reference === refs[5])).toMatchObject({ status: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });

    const secrets: [string, string][] = [
      ...Object.entries({ ...mtnEnv(mtn), ...orangeTestEnv(orange) }).filter(([name]) => /KEY|SECRET|PASSWORD|PIN|API_USER$/.test(name)),
      ['rotated Orange secret', 'rotated-by-orange'],
      ['X-AUTH-TOKEN', Buffer.from(`${orange.options.apiUsername}:${orange.options.apiPassword}`).toString('base64')],
      ...mtn.requests.filter((r) => r.headers.authorization?.startsWith('Bearer ')).map((r): [string, string] => ['MTN bearer', r.headers.authorization!.slice(7)]),
      ...orange.requests.filter((r) => r.headers.authorization?.startsWith('Bearer ')).map((r): [string, string] => ['Orange bearer', r.headers.authorization!.slice(7)]),
      ...rows.filter((r) => r.callbackToken).map((r): [string, string] => ['callback token', r.callbackToken!]),
    ];
    expect(secrets.length).toBeGreaterThan(15);
    expect(lines.length).toBeGreaterThan(10);
    const haystacks = {
      logs: lines.join('\n'),
      answers: answers.join('\n'),
      failures: JSON.stringify(rows.map((r) => [r.failureCode, r.failureReason])),
      events: JSON.stringify(events.map((e) => e.detail)),
    };
    for (const [name, secret] of secrets) {
      const found = secret === PIN ? (text: string) => new RegExp(`(?<![0-9A-Za-z])${PIN}(?![0-9A-Za-z])`).test(text) : (text: string) => text.includes(secret);
      for (const [where, text] of Object.entries(haystacks)) expect(found(text), `${name} found in ${where}`).toBe(false);
    }
  });
});
