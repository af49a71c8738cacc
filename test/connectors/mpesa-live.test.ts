/**
 * LIVE keys against the M-Pesa Daraja simulator, end to end (real HTTP, real database): charge →
 * OAuth → STK push → callback (a hint) → STK Query → SUCCESS → payment.success; the result codes;
 * STK Query not before 20 s unless Daraja called back; a lost callback; a duplicated callback
 * (one transition); an ambiguous push, a 5xx answer whose push went out (never pushed again: the
 * callback names the CheckoutRequestID, which is queried); "Unable to lock subscriber" (a minute's
 * pause); an expired token; one token for two instances; B2C pay-outs (success, a 5xx answer
 * whose payment went out, a lost Result, a forged Result, duplicated Results, a payment after the
 * deadline), each Transaction Status Query naming the pay-out by OriginalConversationID;
 * initiations Kolo gives up on (a token slower than its timeout: nothing pushed or paid out, sent
 * again later; a push or B2C slower than its timeout, overtaken by the status query: never failed,
 * nothing released). Every fault mode ends with `kolo ledger verify`'s invariants and a reconciliation of what the
 * simulator says it moved against the operator float in the ledger, transaction by transaction.
 */
import { and, asc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { createMpesaConnector } from '../../src/connectors/mpesa/mpesa-connector.ts';
import { setAvailabilityOverride } from '../../src/dashboard/rail-availability-overrides.ts';
import { operatorTransport } from '../../src/connectors/operator-http.ts';
import { createConnectorStateStore } from '../../src/db/queries/connector-state.ts';
import { connectorState } from '../../src/db/schema-operations.ts';
import { ledgerAccounts, ledgerEntries, ledgerLines } from '../../src/db/schema-ledger.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { merchantAccount, operatorFloatAccount } from '../../src/ledger/accounts.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { DARAJA_TEST_MSISDN, MPESA_SIM_DEFAULTS, startMpesaSimulator, type MpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { NO_LATENCY } from '../../src/connectors/simulator-http.ts';
import { SLOW_INITIATION_MS, SLOW_PRE_STEP_MS } from '../helpers/fault-scenarios.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { deliveryCount, eventTrail, mpesaEnv, rowOf, settled, startLiveHarness, waitUntil, webhookTypes } from '../helpers/live.ts';
import { expectReconciled as expectReconciledRun, reconciliationTotals } from '../helpers/reconcile.ts';

let sim: MpesaSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  sim = await startMpesaSimulator({ decisionDelayMs: 30 });
  receiver = await startReceiver();
  ({ h, t } = await startLiveHarness(mpesaEnv(sim), receiver.url, undefined, 'KES'));
  // These tests plant one fault after another on the same rail, each judged on its own: pinned
  // OPERATIONAL, the rail's availability (computed from its recent errors) never holds a pay-out.
  for (const direction of ['PAY_IN', 'PAY_OUT'] as const) {
    await setAvailabilityOverride(h.services, { actorId: null, actorRole: 'ADMIN', clientIp: null }, { providerCode: 'MPESA_KE', direction, status: 'OPERATIONAL' });
  }
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await receiver?.close();
});
/** What had moved before the running test: its reconciliation covers what moved since. */
let before: { moved: number; float: Record<string, number> } = { moved: 0, float: {} };
beforeEach(async () => {
  before = { moved: sim.moved().length, float: await floatByTransaction() };
  sim.fault = null;
  sim.options.decisionDelayMs = 30;
  sim.options.lateDecisionDelayMs = MPESA_SIM_DEFAULTS.lateDecisionDelayMs;
  sim.options.orgBalance = MPESA_SIM_DEFAULTS.orgBalance;
  sim.options.statusResultHasReason = MPESA_SIM_DEFAULTS.statusResultHasReason;
  sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
  sim.options.latencyMs = { ...NO_LATENCY };
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

/** The LIVE KES operator float of the rail, per transaction (ledger lines summed by entry's transaction). */
async function floatByTransaction(): Promise<Record<string, number>> {
  const rows = await h.services.db
    .select({ transactionId: ledgerEntries.transactionId, amount: ledgerLines.amount })
    .from(ledgerLines)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerLines.accountId))
    .where(eq(ledgerAccounts.key, operatorFloatAccount(RAIL, 'LIVE', 'KES').key));
  const sums: Record<string, number> = {};
  for (const row of rows) sums[row.transactionId!] = (sums[row.transactionId!] ?? 0) + row.amount;
  return Object.fromEntries(Object.entries(sums).filter(([, amount]) => amount !== 0));
}

/**
 * `kolo ledger verify`'s invariants, then what the simulator says it moved during this test
 * against what the ledger recorded during it, transaction by transaction: each push paid is
 * +amount on the float of the transaction holding its CheckoutRequestID, each B2C paid −amount
 * on the pay-out under its OriginatorConversationID, and nothing else moved the float.
 */
async function expectReconciled(): Promise<void> {
  await expectLedgerBalanced(h.services.db);
  const moved: Record<string, number> = {};
  for (const m of sim.moved().slice(before.moved)) {
    const [row] = await h.services.db
      .select({ id: transactions.id })
      .from(transactions)
      .where(m.direction === 'PAY_IN' ? eq(transactions.operatorReference, m.id) : eq(transactions.reference, m.id));
    expect(row, `the transaction of ${m.direction} ${m.id}`).toBeDefined();
    moved[row!.id] = (moved[row!.id] ?? 0) + (m.direction === 'PAY_IN' ? m.amount : -m.amount);
  }
  const recorded: Record<string, number> = {};
  for (const [id, amount] of Object.entries(await floatByTransaction())) {
    if (amount !== (before.float[id] ?? 0)) recorded[id] = amount - (before.float[id] ?? 0);
  }
  expect(recorded).toEqual(moved);
}

const reserved = () => accountBalance(h.services.db, merchantAccount(t.applicationId, 'LIVE', 'KES', 'RESERVED').key);
const tsqRequests = () => sim.requests.filter((r) => r.path === '/mpesa/transactionstatus/v1/query');
/** The Transaction Status Queries naming `reference` (the poller may ask about other pay-outs in between). */
const tsqRequestsFor = (reference: string) => tsqRequests().filter((r) => JSON.parse(r.body).OriginalConversationID === reference);
const callbackUrlOf = async (reference: string) => `${h.baseUrl}/api/v1/callbacks/daraja/${(await rowOf(h, reference)).callbackToken}`;
const postCallback = async (reference: string, body: unknown) => {
  const answer = await fetch(await callbackUrlOf(reference), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(answer.status).toBe(200);
  await callbacksIdle(h.services);
};

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
    const done = await settled(h, reference);
    expect(done.status).toBe('SUCCESS');
    // The M-Pesa receipt (the callback's MpesaReceiptNumber: STK Query carries none).
    expect(done.operatorTransactionId).toBe(sim.stk.get(row.operatorReference!)!.receipt);
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

  it('a lost callback: no STK Query before 20 s, then "being processed" stays PENDING, then the poller\'s STK Query resolves it', async () => {
    sim.options.callbacks.drop = true;
    // Long enough that two poller ticks on a loaded machine come before Daraja decides.
    sim.options.decisionDelayMs = 3000;
    const reference = await charge('254711000101');
    const row = await rowOf(h, reference);
    await pollAfter(10_000);
    // The first STK Query comes no earlier than 20 s after the push.
    expect(queries(row.operatorReference!)).toHaveLength(0);
    await pollAfter(10_000);
    expect(queries(row.operatorReference!)).toHaveLength(1);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await waitUntil('Daraja to decide', () => sim.stk.get(row.operatorReference!)?.resultCode === 0);
    await pollAfter(30_000);
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    expect(pushes('254711000101')).toHaveLength(1);
    await expectReconciled();
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
    await expectReconciled();
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
    await expectReconciled();
  });

  it('an STK push answered 500.003.1001 whose prompt went out and was paid: unknown, never FAILED; the callback → STK Query → SUCCESS, credited once', async () => {
    sim.fault = { mode: 'error500', on: 'initiate', landed: true, remaining: 1 };
    const reference = await charge('254711000107');
    const first = await rowOf(h, reference);
    expect(first).toMatchObject({ status: 'PENDING', operatorReference: reference, initiationOutcome: 'UNKNOWN' });
    const row = await settled(h, reference);
    expect(row.status).toBe('SUCCESS');
    const [push] = [...sim.stk.values()].filter((s) => s.phone === '254711000107');
    expect(row.operatorReference).toBe(push!.checkoutRequestId);
    expect(pushes('254711000107')).toHaveLength(1);
    expect((await eventTrail(h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
    const float = await floatByTransaction();
    expect(float[row.id]).toBe(150);
    await expectReconciled();
  });

  it('"Unable to lock subscriber": the second charge fails at once; no push to that phone for a minute, then one goes', async () => {
    sim.options.decisionDelayMs = 3000; // the prompt stays open while the second charge arrives, even on a loaded machine
    const first = await charge('254711000104');
    const second = await charge('254711000104');
    expect(await rowOf(h, second)).toMatchObject({
      status: 'FAILED',
      failureCode: 'PROVIDER_UNAVAILABLE',
      failureReason: 'M-Pesa 500.001.1001: Unable to lock subscriber, a transaction is already in process for the current subscriber',
    });
    expect((await settled(h, first)).status).toBe('SUCCESS');
    // Within the minute: refused without calling Daraja (nothing was sent, so FAILED is safe).
    h.clock.advance(59_000);
    const third = await charge('254711000104');
    expect(await rowOf(h, third)).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' });
    expect((await rowOf(h, third)).failureReason).toMatch(/^M-Pesa: unable to lock subscriber less than a minute ago/);
    expect(pushes('254711000104')).toHaveLength(2);
    h.clock.advance(2_000);
    const fourth = await charge('254711000104');
    expect((await settled(h, fourth)).status).toBe('SUCCESS');
    expect(pushes('254711000104')).toHaveLength(3);
    await expectReconciled();
  });

  it('an expired token is refreshed exactly once (404.001.03)', async () => {
    await settled(h, await charge('254711000105'));
    const tokenCalls = () => sim.requests.filter((r) => r.path === '/oauth/v1/generate').length;
    const before = tokenCalls();
    sim.expireTokens();
    expect((await settled(h, await charge('254711000106'))).status).toBe('SUCCESS');
    expect(tokenCalls()).toBe(before + 1);
  });

  it('a push after the deadline: FAILED TIMEOUT, then the late payment is recorded once (suspense), as the simulator moved it', async () => {
    sim.options.lateDecisionDelayMs = 1500;
    const reference = await charge('254711000198');
    h.clock.advance(901_000);
    await pollOnce(h.services);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    const row = await rowOf(h, reference);
    await waitUntil('the late payment', () => sim.moved().some((m) => m.id === row.operatorReference));
    await waitUntil('its callback answered', () => sim.callbacks.some((c) => c.url.endsWith(row.callbackToken!) && c.status === 200));
    await callbacksIdle(h.services);
    // The callback reopened the watch; its status query (run by the poller) finds the payment.
    for (let i = 0; i < 5 && !(await rowOf(h, reference)).isLateSuccess; i++) await pollAfter(5_000);
    expect((await rowOf(h, reference)).isLateSuccess).toBe(true);
    expect((await floatByTransaction())[row.id]).toBe(150);
    await expectReconciled();
  });
});

describe('one Daraja token for every instance', () => {
  it('two instances sharing one database fetch one token between them; a refused one is replaced once, from the store', async () => {
    const store = createConnectorStateStore(h.services.db, h.services.webhookSecretBox, h.clock);
    const instance = () =>
      createMpesaConnector({ config: h.services.config.mpesa!, fetch: operatorTransport(), clock: h.clock, timeoutMs: 1000, sharedState: store });
    const tokenCalls = () => sim.requests.filter((r) => r.path === '/oauth/v1/generate').length;
    // The running service shares the same store: start from no token at all.
    await h.services.db.delete(connectorState).where(like(connectorState.key, 'mpesa:token:%'));
    const before = tokenCalls();
    const [a, b] = [instance(), instance()];
    const checks = await Promise.all([a.check!(), b.check!()]);
    expect(checks.flat().map((c) => c.ok)).toEqual([true, true]);
    expect(tokenCalls()).toBe(before + 1);
    // Stored sealed (AES-256-GCM under the webhook secrets' key), never in clear.
    const [row] = await h.services.db.select().from(connectorState).where(like(connectorState.key, 'mpesa:token:%'));
    expect(row!.value).toMatch(/^v1:/);
    const token = h.services.webhookSecretBox.open(row!.value);
    expect(row!.value).not.toContain(token);
    // Daraja refuses the token (as after another app fetched one): A renews it, B takes A's from the store.
    sim.expireTokens();
    const query = {
      direction: 'PAY_OUT' as const,
      reference: 'TXN-SHARED-TOKEN',
      operatorReference: null,
      initiation: 'ACCEPTED' as const,
      rail: { code: RAIL, operator: 'MPESA', country: 'KE', currency: 'KES' },
      msisdn: DARAJA_TEST_MSISDN,
      amount: 10,
      initiatedAt: h.clock.now(),
      callbackUrl: `${h.baseUrl}/api/v1/callbacks/daraja/0000000000000000`,
    };
    const signal = AbortSignal.timeout(5000);
    expect(await a.getStatus(query, signal)).toMatchObject({ kind: 'PENDING', statusQueryReference: expect.stringMatching(/^AG_/), retryAfterMs: 30_000 });
    expect(await b.getStatus(query, signal)).toMatchObject({ kind: 'PENDING', statusQueryReference: expect.stringMatching(/^AG_/) });
    expect(tokenCalls()).toBe(before + 2);
    // Each sent with the old token, refused (400.003.01), resent once with the new one.
    const sent = tsqRequests().slice(-4);
    expect(sent.map((r) => r.headers.authorization === `Bearer ${token}`)).toEqual([true, false, true, false]);
  });
});

describe('M-Pesa B2C pay-out with a LIVE key', () => {
  // LIVE pay-outs are funded by settled LIVE pay-ins: one large STK payment first.
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
    expect(done.operatorReference).toBe(sim.b2c.get(reference)!.conversationId);
    expect(done.operatorTransactionId).toBe(sim.b2c.get(reference)!.receipt);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectReconciled();
  });

  it('insufficient organisation balance (ResultCode 1) queues the pay-out for float, never fails it', async () => {
    sim.options.orgBalance = 100;
    const reservedBefore = await reserved();
    const reference = await transfer('254711000201', 500);
    await waitUntil('the pay-out to be queued for float', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null, initiatedAt: null });
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200)).toMatchObject({ status: 'PENDING', queuedForFloat: true });
    expect(await webhookTypes(h, reference)).toEqual([]);
    // Still reserved: it waits for float, it did not fail.
    expect(await reserved()).toBeGreaterThan(reservedBefore);
    await expectReconciled();
  });

  it('ResultCode 1, confirmed by a Transaction Status Result naming no reason: queued for float with the Result\'s words kept', async () => {
    sim.options.orgBalance = 100;
    sim.options.statusResultHasReason = false;
    const reservedBefore = await reserved();
    const reference = await transfer('254711000203', 500);
    await waitUntil('the pay-out to be queued for float', async () => (await rowOf(h, reference)).floatQueuedAt !== null);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', failureCode: null });
    // The B2C's Result said why; Kolo's Transaction Status Query confirmed the failure without a reason.
    expect(sim.b2c.get(reference)).toMatchObject({ resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' });
    expect(tsqRequestsFor(reference)).toHaveLength(1);
    // Queued again, its initiation (callback token included) is forgotten: the answer names the pay-out.
    const answers = sim.callbacks.filter((c) => c.body.includes('"TransactionStatus"') && c.body.includes(`"${reference}"`));
    expect(answers).toHaveLength(1);
    const answer = JSON.parse(answers[0]!.body).Result;
    expect(answer.ResultParameters.ResultParameter).toContainEqual({ Key: 'TransactionReason' });
    expect(answer.ResultParameters.ResultParameter).toContainEqual({ Key: 'TransactionStatus', Value: 'Failed' });
    // What the merchant reads, and the history: the Result's failure recorded, then applied as it was.
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200)).toMatchObject({ status: 'PENDING', queuedForFloat: true, failureCode: null });
    expect(await eventTrail(h, reference)).toEqual([
      [null, 'PENDING', 'CREATED'],
      ['PENDING', 'PENDING', 'INITIATED'],
      ['PENDING', 'PENDING', 'FAILURE_REPORTED'],
      ['PENDING', 'PENDING', 'FLOAT_REQUEUED'],
    ]);
    const row = await rowOf(h, reference);
    const requeued = (await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id))).find((e) => e.cause === 'FLOAT_REQUEUED')!;
    expect((requeued.detail as { failureReason: string }).failureReason).toBe('M-Pesa 1: The balance is insufficient for the transaction.');
    expect(await webhookTypes(h, reference)).toEqual([]);
    expect(await reserved()).toBeGreaterThan(reservedBefore);
    await expectReconciled();
  });

  it("a lost Result, then a Transaction Status Result naming no reason: FAILED in Daraja's own word", async () => {
    sim.options.callbacks.drop = true;
    sim.options.statusResultHasReason = false;
    const reference = await transfer('254711000040', 500);
    await waitUntil('Daraja to refuse', () => sim.b2c.get(reference)?.resultCode === 2040);
    sim.options.callbacks.drop = false;
    await pollAfter(10_000);
    expect(await settled(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'M-Pesa Failed' });
    await expectReconciled();
  });

  it('an unregistered customer (2040) → PAYEE_NOT_FOUND', async () => {
    const reference = await transfer('254711000040', 500);
    expect(await settled(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'PAYEE_NOT_FOUND' });
    await expectReconciled();
  });

  it('a lost Result: the poller sends a Transaction Status Query whose Result settles it', async () => {
    sim.options.callbacks.drop = true;
    const reference = await transfer('254711000202');
    await waitUntil('Daraja to pay', () => sim.b2c.get(reference)?.resultCode === 0);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    sim.options.callbacks.drop = false;
    await pollAfter(10_000);
    const tsq = JSON.parse(tsqRequestsFor(reference).at(-1)!.body);
    expect(tsq).toMatchObject({ CommandID: 'TransactionStatusQuery', OriginalConversationID: reference, IdentifierType: '4' });
    expect(tsq).not.toHaveProperty('OriginatorConversationID');
    const row = await settled(h, reference);
    expect(row.status).toBe('SUCCESS');
    expect(row.operatorTransactionId).toBe(sim.b2c.get(reference)!.receipt);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await expectReconciled();
  });

  const LANDED_FAULTS: [string, 'error500' | 'timeout', string][] = [
    ['answered 500.003.1001', 'error500', '254711000204'],
    ["held past Kolo's timeout", 'timeout', '254711000206'],
  ];
  it.each(LANDED_FAULTS)('a B2C %s and paid: not FAILED nor released; it stays PENDING, and the status query\'s Result settles it SUCCESS', async (_, mode, beneficiary) => {
    sim.fault = { mode, on: 'initiate', landed: true, remaining: 1 };
    // Slow enough that the status query's reference is stored before its Result comes back.
    sim.options.callbacks.delayMs = 200;
    const reservedBefore = await reserved();
    const reference = await transfer(beneficiary, 700);
    // Never FAILED. While Kolo waits past its timeout, the Result (a hint) may already have
    // settled it through the status query; otherwise it is PENDING with its amount reserved.
    const first = await rowOf(h, reference);
    expect(first.status).not.toBe('FAILED');
    if (first.status === 'PENDING') {
      expect(first).toMatchObject({ operatorReference: reference, initiationOutcome: 'UNKNOWN' });
      expect(await reserved()).toBeGreaterThan(reservedBefore);
    }
    await waitUntil('Daraja to pay', () => sim.b2c.get(reference)?.resultCode === 0);
    // Its Result names only our reference (the ConversationID never reached Kolo): a hint, which
    // sends a Transaction Status Query; the query's Result is the verdict.
    const row = await settled(h, reference);
    expect(row).toMatchObject({ status: 'SUCCESS', operatorTransactionId: sim.b2c.get(reference)!.receipt });
    expect(tsqRequestsFor(reference).length).toBeGreaterThan(0);
    expect(await reserved()).toBe(reservedBefore);
    await expectReconciled();
  });

  it('a forged "failed" Result (wrong or missing ConversationID) posted to the callback URL changes nothing', async () => {
    sim.options.lateDecisionDelayMs = 1500;
    const reservedBefore = await reserved();
    const reference = await transfer('254711000198', 600);
    const row = await rowOf(h, reference);
    expect(row.operatorReference).toMatch(/^AG_/);
    const held = await reserved();
    expect(held).toBeGreaterThan(reservedBefore);
    const failed = { ResultType: 0, ResultCode: 1, ResultDesc: 'The balance is insufficient for the transaction.', OriginatorConversationID: reference, TransactionID: '' };
    await postCallback(reference, { Result: { ...failed, ConversationID: 'AG_20261126_forged0000000000' } });
    await postCallback(reference, { Result: failed });
    // Shaped as a Transaction Status answer, under a query id Kolo never received.
    await postCallback(reference, {
      Result: {
        ...failed,
        ResultCode: 0,
        ConversationID: 'AG_20261126_forged0000000001',
        ResultParameters: { ResultParameter: [{ Key: 'TransactionStatus', Value: 'Failed' }, { Key: 'Originator Conversation ID', Value: reference }] },
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    await callbacksIdle(h.services);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', isReservationHeld: false });
    expect(await reserved()).toBe(held);
    expect(await webhookTypes(h, reference)).toEqual([]);
    // Daraja pays: the genuine Result settles it.
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(await reserved()).toBe(reservedBefore);
    await expectReconciled();
  });

  it('duplicated Results: one transition, one webhook, paid once', async () => {
    sim.options.callbacks = { delayMs: 0, duplicate: true, drop: false };
    const reference = await transfer('254711000205', 300);
    const row = await rowOf(h, reference);
    await waitUntil('both Results answered', () => sim.callbacks.filter((c) => c.url.endsWith(row.callbackToken!) && c.status === 200).length === 2);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    await callbacksIdle(h.services);
    expect((await eventTrail(h, reference)).filter(([, to]) => to === 'SUCCESS')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    expect(await deliveryCount(h, reference)).toBe(1);
    await expectReconciled();
  });

  it('a B2C paid after the deadline: FAILED TIMEOUT with its reservation held and watched; the late payment consumes it', async () => {
    sim.options.lateDecisionDelayMs = 1500;
    sim.options.callbacks.drop = true;
    const reservedBefore = await reserved();
    const reference = await transfer('254711001198', 800);
    const held = await reserved();
    h.clock.advance(901_000);
    await pollOnce(h.services);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    expect(await reserved()).toBe(held);
    await waitUntil('Daraja to pay late', () => sim.b2c.get(reference)?.resultCode === 0);
    sim.options.callbacks.drop = false;
    // The watch's next status query learns it was paid.
    for (let i = 0; i < 5 && (await rowOf(h, reference)).isReservationHeld; i++) {
      await pollAfter(60_000);
      await new Promise((r) => setTimeout(r, 300));
      await callbacksIdle(h.services);
    }
    expect((await rowOf(h, reference)).isReservationHeld).toBe(false);
    expect(await reserved()).toBe(reservedBefore);
    await expectReconciled();
  });

  it("a B2C refused after the deadline (ResultCode 1): its held reservation is released with the Result's code and words", async () => {
    sim.options.lateDecisionDelayMs = 1500;
    sim.options.orgBalance = 100;
    sim.options.statusResultHasReason = false;
    const reservedBefore = await reserved();
    const reference = await transfer('254711002198', 800);
    h.clock.advance(901_000);
    await pollOnce(h.services);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    await waitUntil('Daraja to refuse late', () => sim.b2c.get(reference)?.resultCode === 1);
    // Its Result reopens the watch, whose status query confirms the failure without a reason.
    for (let i = 0; i < 5 && (await rowOf(h, reference)).isReservationHeld; i++) {
      await pollAfter(60_000);
      await new Promise((r) => setTimeout(r, 300));
      await callbacksIdle(h.services);
    }
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: false });
    expect(await reserved()).toBe(reservedBefore);
    const row = await rowOf(h, reference);
    const events = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id)).orderBy(asc(transactionEvents.id));
    const failure = { failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' };
    expect(events.filter((e) => e.cause === 'FAILURE_REPORTED').map((e) => ({ failureCode: e.failureCode, failureReason: (e.detail as { failureReason: string }).failureReason }))).toEqual([failure]);
    const released = events.find((e) => e.cause === 'RESERVATION_RELEASED')!;
    expect({ failureCode: released.failureCode, failureReason: (released.detail as { failureReason: string }).failureReason }).toEqual(failure);
    await expectReconciled();
  });

  it('a Result posted on the path naming another pay-out changes nothing', async () => {
    sim.options.callbacks.drop = true;
    const reference = await transfer('254711000203');
    const forged = {
      Result: { ResultType: 0, ResultCode: 1, ResultDesc: 'forged', OriginatorConversationID: 'someone-else', ConversationID: 'AG_forged', TransactionID: 'X' },
    };
    await postCallback(reference, forged);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    // Settled by the poller's status query (its Result was dropped), so that the reconciliation sees every payment.
    await waitUntil('Daraja to pay', () => sim.b2c.get(reference)?.resultCode === 0);
    sim.options.callbacks.drop = false;
    // Past the 30 s the hint's status query asked for its answer.
    await pollAfter(30_000);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    await expectReconciled();
  });
});

describe('M-Pesa initiations Kolo gives up on', () => {
  /** Makes Kolo fetch a Daraja token (the shared one expired by Kolo's clock), slowly. */
  const slowToken = () => {
    h.clock.advance(3_600_000);
    sim.options.latencyMs = { ...NO_LATENCY, token: SLOW_PRE_STEP_MS };
  };
  const b2cRequests = (reference: string) =>
    sim.requests.filter((r) => r.path === '/mpesa/b2c/v3/paymentrequest' && JSON.parse(r.body).OriginatorConversationID === reference);

  it('a token slower than Kolo’s timeout: no STK push, PENDING; the next poll pushes once, and the payment is recorded', async () => {
    slowToken();
    const reference = await charge('254711000111');
    await new Promise((r) => setTimeout(r, SLOW_PRE_STEP_MS));
    expect(pushes('254711000111')).toHaveLength(0);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(await webhookTypes(h, reference)).toEqual([]);
    sim.options.latencyMs = { ...NO_LATENCY };
    await pollAfter(10_000);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(pushes('254711000111')).toHaveLength(1);
    await expectReconciled();
  });

  it('a token slower than Kolo’s timeout: no B2C, its reservation kept; the next poll sends it once, and the payment consumes it', async () => {
    const reservedBefore = await reserved();
    slowToken();
    const reference = await transfer('254711000112');
    await new Promise((r) => setTimeout(r, SLOW_PRE_STEP_MS));
    expect(b2cRequests(reference)).toHaveLength(0);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(await reserved()).toBeGreaterThan(reservedBefore);
    sim.options.latencyMs = { ...NO_LATENCY };
    await pollAfter(10_000);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(b2cRequests(reference)).toHaveLength(1);
    expect(await reserved()).toBe(reservedBefore);
    await expectReconciled();
  });

  it('a B2C slower than Kolo’s timeout, overtaken by the Transaction Status Query (no such transaction yet): not failed, nothing released, then SUCCESS', async () => {
    const reservedBefore = await reserved();
    sim.options.latencyMs = { ...NO_LATENCY, initiate: SLOW_INITIATION_MS };
    const reference = await transfer('254711000113');
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    const asked = tsqRequests().length;
    await pollAfter(10_000);
    // Daraja has no record of it yet: its Result (R000001) comes back and is no verdict.
    await waitUntil('the status query’s Result', () => sim.callbacks.some((c) => c.body.includes('R000001') && c.status === 200));
    expect(tsqRequests().length).toBeGreaterThan(asked);
    expect(sim.b2c.has(reference)).toBe(false);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(await reserved()).toBeGreaterThan(reservedBefore);
    await waitUntil('Daraja to pay', () => sim.b2c.get(reference)?.resultCode === 0);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(b2cRequests(reference)).toHaveLength(1);
    // The poll's query, then the one the B2C's own Result prompts: an answer without a verdict
    // does not make Kolo ask again at once.
    expect(tsqRequests().length - asked).toBe(2);
    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    expect(await reserved()).toBe(reservedBefore);
    await expectReconciled();
  });

  it('an STK push slower than Kolo’s timeout: PENDING (Daraja cannot be asked by our reference), then its callback names it and the payment is recorded', async () => {
    sim.options.latencyMs = { ...NO_LATENCY, initiate: SLOW_INITIATION_MS };
    const reference = await charge('254711000114');
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    await pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    expect(pushes('254711000114')).toHaveLength(1);
    expect(await webhookTypes(h, reference)).toEqual(['payment.success']);
    await expectReconciled();
  });
});

describe('the whole M-Pesa run', () => {
  it('every movement the simulator made is in the ledger, transaction by transaction, and nothing else', async () => {
    // A push is named by its CheckoutRequestID (the transaction's operator reference), a B2C by our reference.
    const moved = sim.moved().map((m) => ({ reference: m.id, operatorReference: m.id, direction: m.direction, amount: m.amount }));
    const lines = await expectReconciledRun(h, moved, { rails: [RAIL], currency: 'KES' });
    const totals = reconciliationTotals(lines);
    expect(totals.mismatches).toBe(0);
    expect(totals.payIn.moved).toBeGreaterThan(0);
    expect(totals.payOut.moved).toBeGreaterThan(0);
    console.log('M-Pesa reconciliation (KES)', JSON.stringify(totals));
  });
});
