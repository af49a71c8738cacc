/**
 * Daraja's "wallet short" (B2C ResultCode 1), LIVE keys against the M-Pesa simulator: the pay-out
 * is queued, not failed; while no Account Balance result is stored the float is unknown, so the
 * float job probes with one resend per pass, under a new OriginatorConversationID (Daraja refuses
 * a repeated one), and the resend pays once the organisation's balance is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MPESA_SIM_DEFAULTS, startMpesaSimulator, type MpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { runFloatTick } from '../../src/float/index.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mpesaEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';

const RAIL = 'MPESA_KE';
let sim: MpesaSimulator;
let h: Harness;
let t: Tenant;
let receiver: Receiver;
beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness(mpesaEnv(sim), receiver.url, undefined, 'KES'));
  const funding = expectSuccess(
    await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'KES', amount: 50_000, payerAccount: '254711000900' }) }),
    201,
  ).reference as string;
  expect((await settled(h, funding)).status).toBe('SUCCESS');
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});

const b2cSends = (originator: string) => sim.requests.filter((r) => r.path === '/mpesa/b2c/v3/paymentrequest' && JSON.parse(r.body).OriginatorConversationID === originator);

describe('M-Pesa B2C with the organisation balance short', () => {
  it('ResultCode 1 queues the pay-out (never FAILED, no webhook); once the balance is back a resend under a new id pays it', async () => {
    sim.options.orgBalance = 100;
    const before = await tenantBalances(h, t, 'LIVE', 'KES');
    const reference = expectSuccess(
      await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'KES', amount: 500, beneficiaryAccount: '254711000201' }) }),
      201,
    ).reference as string;
    await waitUntil('the pay-out to be queued for float', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null, floatResends: 1 });
    expect(await webhookTypes(h, reference)).toEqual([]);
    expect((await tenantBalances(h, t, 'LIVE', 'KES')).reserved).toBeGreaterThan(before.reserved);
    expect(b2cSends(reference)).toHaveLength(1);

    sim.options.orgBalance = MPESA_SIM_DEFAULTS.orgBalance;
    await runFloatTick(h.services);
    expect(b2cSends(`${reference}-R1`)).toHaveLength(1);
    expect(b2cSends(reference)).toHaveLength(1);
    await waitUntil('Daraja to pay the resend', () => sim.b2c.get(`${reference}-R1`)?.resultCode === 0);
    for (let i = 0; i < 5 && (await rowOf(h, reference)).status === 'PENDING'; i++) {
      h.clock.advance(30_000);
      await pollOnce(h.services);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await rowOf(h, reference)).toMatchObject({ status: 'SUCCESS', operatorTransactionId: sim.b2c.get(`${reference}-R1`)!.receipt });
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    expect((await tenantBalances(h, t, 'LIVE', 'KES')).reserved).toBe(before.reserved);
    await expectLedgerBalanced(h.services.db);
  });
});
