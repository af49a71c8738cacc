/**
 * MTN MoMo with a LIVE key when MTN answers late, badly or not at all, both directions
 * (requesttopay pay-ins, transfer pay-outs): a 500 after MTN processed the request; a request
 * held past Kolo's timeout, then processed; MTN paying after the rail's deadline (…198); a
 * dropped callback; a duplicated one; a hosted checkout whose first attempt MTN pays after its
 * deadline while a second attempt succeeds (both payments recorded); a token or account-holder
 * check slower than Kolo's timeout (nothing sent), and a request-to-pay or transfer so slow that
 * Kolo's status query gets MTN's 404 before MTN creates it (nothing failed nor released, the
 * payment recorded), for charges, transfers and hosted checkout attempts. After each scenario,
 * `kolo ledger verify`'s invariants
 * hold and what the simulator moved equals what the ledger posted on MTN's float, transaction by
 * transaction.
 */
import { describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { listAttempts } from '../../src/payments/checkout-attempt-records.ts';
import { startMtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { NO_LATENCY } from '../../src/connectors/simulator-http.ts';
import {
  describeAbandonedInitiations,
  describeCallbackOperatorFaults,
  PAST_DEADLINE_MS,
  SLOW_INITIATION_MS,
  SLOW_PRE_STEP_MS,
  useFaultHarness,
} from '../helpers/fault-scenarios.ts';
import { mtnEnv, rowOf, settled, waitUntil, webhookTypes } from '../helpers/live.ts';

const f = useFaultHarness({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  env: mtnEnv,
  rail: 'MTN_MOMO_CM',
  fundingPayer: '237677000900',
});

const resourceOf = (reference: string) => [...f.sim.resources.values()].find((r) => r.body.externalId === reference);

describeCallbackOperatorFaults(f, {
  product: 'MTN MoMo',
  operator: 'MTN',
  callbackName: 'callback',
  error500Title: 'a 500 after MTN processed the request: PENDING, then SUCCESS by the status query, sent once, its financialTransactionId kept',
  msisdnPrefix: '23767700',
  decided: (reference) => waitUntil(`MTN to decide ${reference}`, () => resourceOf(reference)?.status === 'SUCCESSFUL'),
  initiations: (reference) => f.sim.requests.filter((r) => r.method === 'POST' && r.body.includes(`"externalId":"${reference}"`)),
});

describeAbandonedInitiations(f, {
  product: 'MTN MoMo',
  msisdnPrefix: '23767700',
  initiations: (reference) => f.sim.requests.filter((r) => r.method === 'POST' && r.body.includes(`"externalId":"${reference}"`)),
  recorded: (reference) => resourceOf(reference) !== undefined,
  statusQueries: () => f.sim.requests.filter((r) => r.method === 'GET' && /\/v1_0\/(requesttopay|transfer)\//.test(r.path)).length,
  paid: (reference) => waitUntil(`MTN to pay ${reference}`, () => resourceOf(reference)?.status === 'SUCCESSFUL'),
  slowPreStep: {
    // The collection token: expired by Kolo's clock, so Kolo asks MTN for one, slowly.
    PAY_IN: () => {
      f.h.clock.advance(3_600_000);
      f.sim.options.latencyMs = { ...NO_LATENCY, token: SLOW_PRE_STEP_MS };
    },
    // The account-holder check before a transfer.
    PAY_OUT: () => {
      f.sim.options.latencyMs = { ...NO_LATENCY, check: SLOW_PRE_STEP_MS };
    },
  },
});

describe('MTN MoMo hosted checkout: an attempt paid after its deadline, another attempt paid too', () => {
  it('both payments are in the books: the checkout succeeds by the second attempt, the first is recorded as a late success', async () => {
    const { h, t, sim } = f;
    const c = await createCheckout(h, t, { merchantReference: 'LATE-ATTEMPT' });
    f.track(c.reference);
    const b = formClient(h);
    let page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000198' })).status).toBe(303);
    const checkoutId = (await rowOf(h, c.reference)).id;
    await f.pollAfter(PAST_DEADLINE_MS);
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });

    page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000105' })).status).toBe(303);
    expect((await settled(h, c.reference)).status).toBe('SUCCESS');

    // MTN now pays the first attempt too: the customer paid twice.
    expect(sim.decideLate()).toBeGreaterThanOrEqual(1);
    const first = (await listAttempts(h.services.db, checkoutId))[0]!;
    await waitUntil('MTN to pay the first attempt', () => sim.resources.get(`collection:${first.operatorReference}`)?.status === 'SUCCESSFUL');
    await callbacksIdle(h.services);
    for (let i = 0; i < 3; i++) await f.pollAfter(60_000);

    expect(sim.moved().filter((m) => m.reference.startsWith(`${c.reference}-`))).toHaveLength(2);
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'FAILED', isLateSuccess: true });
    expect(await rowOf(h, c.reference)).toMatchObject({ status: 'SUCCESS' });
    expect(await webhookTypes(h, c.reference)).toContain('payment.late_success');
    // afterEach: both movements (10 000 XAF) against the checkout's float postings.
  });
});

describe('MTN MoMo hosted checkout: attempts Kolo gives up on', () => {
  const requestsToPay = (correlationId: string) => f.sim.requests.filter((r) => r.path === '/collection/v1_0/requesttopay' && r.body.includes(`"externalId":"${correlationId}"`));

  it('a token slower than Kolo’s timeout: the attempt fails with nothing sent, and the customer pays with the next one', async () => {
    const { h, t } = f;
    // The collection token expired by Kolo's clock: the attempt asks MTN for one, slowly.
    h.clock.advance(3_600_000);
    f.sim.options.latencyMs = { ...NO_LATENCY, token: SLOW_PRE_STEP_MS };
    const c = await createCheckout(h, t, { merchantReference: 'SLOW-TOKEN' });
    f.track(c.reference);
    const b = formClient(h);
    let page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677001121' })).status).toBe(303);
    const checkoutId = (await rowOf(h, c.reference)).id;
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' });
    await new Promise((r) => setTimeout(r, SLOW_PRE_STEP_MS));
    expect(requestsToPay(`${c.reference}-1`)).toHaveLength(0);
    expect((await rowOf(h, c.reference)).status).toBe('PENDING');

    f.sim.options.latencyMs = { ...NO_LATENCY };
    page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677001121' })).status).toBe(303);
    expect((await settled(h, c.reference)).status).toBe('SUCCESS');
    expect(requestsToPay(`${c.reference}-2`)).toHaveLength(1);
  });

  it('a request-to-pay overtaken by the status query (MTN’s 404): the attempt stays in flight, then succeeds with the checkout', async () => {
    const { h, t } = f;
    f.sim.options.callbacks.drop = true;
    f.sim.options.latencyMs = { ...NO_LATENCY, initiate: SLOW_INITIATION_MS };
    const c = await createCheckout(h, t, { merchantReference: 'SLOW-PUSH' });
    f.track(c.reference);
    const b = formClient(h);
    const page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677001122' })).status).toBe(303);
    const checkoutId = (await rowOf(h, c.reference)).id;
    const [attempt] = await listAttempts(h.services.db, checkoutId);
    expect(attempt).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    await f.pollAfter(10_000);
    // Asked before MTN created it: 404, which fails nothing while it may still land.
    expect(f.sim.requests.filter((r) => r.method === 'GET' && r.path === `/collection/v1_0/requesttopay/${attempt!.operatorReference}`).length).toBeGreaterThan(0);
    expect(resourceOf(`${c.reference}-1`)).toBeUndefined();
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'PENDING' });

    await waitUntil('MTN to pay the attempt', () => resourceOf(`${c.reference}-1`)?.status === 'SUCCESSFUL');
    await f.pollAfter(10_000);
    expect((await listAttempts(h.services.db, checkoutId))[0]).toMatchObject({ status: 'SUCCEEDED' });
    expect(await rowOf(h, c.reference)).toMatchObject({ status: 'SUCCESS', payerAccount: '237677001122' });
    expect(requestsToPay(`${c.reference}-1`)).toHaveLength(1);
  });
});
