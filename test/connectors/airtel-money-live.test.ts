/**
 * LIVE keys against the Airtel Africa Open API simulator, end to end (real Kolo over HTTP, real
 * database, the simulator on a loopback port, its token clock on the harness's): a charge by USSD
 * push settled by the callback's enquiry; a decline (`TF`); `TA` then `TS` (the ambiguous answer
 * is no outcome: the money waits, then succeeds); `TIP` until the rail's deadline (FAILED
 * `TIMEOUT`, still watched for a late success); a callback with a forged hash refused with
 * nothing asked nor changed; the 180 s token renewed before it runs out, and an expired one
 * renewed once, with no request lost; a transfer carrying the RSA-encrypted PIN. Each ends with
 * the ledger's invariants (`kolo ledger verify`).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AIRTEL_SIM_DEFAULTS, startAirtelSimulator, type AirtelSimulator } from '../../src/connectors/airtel-money/simulator/airtel-simulator.ts';
import { airtelCallbackHash } from '../../src/connectors/airtel-money/airtel-transformers.ts';
import { providers } from '../../src/db/schema.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { rowOf, waitUntil } from '../helpers/live.ts';
import { expectError, expectSuccess, PATHS } from '../helpers/merchant-api.ts';

const CALLBACK_KEY = 'airtel-callback-key';

let sim: AirtelSimulator;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  sim = await startAirtelSimulator({ decisionDelayMs: 10, ambiguousForMs: 300, callbackKey: CALLBACK_KEY });
  h = await startHarness({
    CONNECTOR_TIMEOUT_MS: '1000',
    AIRTEL_MONEY_BASE_URL: sim.url,
    AIRTEL_MONEY_CLIENT_ID: AIRTEL_SIM_DEFAULTS.clientId,
    AIRTEL_MONEY_CLIENT_SECRET: AIRTEL_SIM_DEFAULTS.clientSecret,
    AIRTEL_MONEY_PIN: AIRTEL_SIM_DEFAULTS.pin,
    AIRTEL_MONEY_PUBLIC_KEY: sim.publicKey,
    AIRTEL_MONEY_COUNTRIES: 'CG',
    AIRTEL_MONEY_CALLBACK_KEY: CALLBACK_KEY,
  });
  sim.options.now = () => h.clock.now().getTime();
  sim.options.callbackUrl = `${h.baseUrl}/api/v1/callbacks/airtel`;
  // Seeded inactive (the hosted checkout offers every active rail of a currency): a deployment serving Congo turns it on.
  await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, 'AIRTEL_MONEY_CG'));
  t = await h.createTenant({ environment: 'LIVE' });
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
});

const charge = async (payerAccount: string, amount = 5000) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: { amount, currency: 'XAF', paymentMethod: 'AIRTEL_MONEY_CG', payerAccount } }), 201).reference as string;
const enquiries = (id: string) => sim.requests.filter((r) => r.method === 'GET' && r.path === `/standard/v1/payments/${id}`).length;
const poll = async (ms = 5_000) => {
  h.clock.advance(ms);
  await pollOnce(h.services);
};

describe('Airtel Money pay-in (USSD push) with a LIVE key', () => {
  it('charge → push → callback → enquiry → SUCCESS, with X-Country, X-Currency and the national number', async () => {
    const reference = await charge('242051000001');
    await waitUntil('the callback to settle it', async () => (await rowOf(h, reference)).status !== 'PENDING');
    const row = await rowOf(h, reference);
    expect(row).toMatchObject({ status: 'SUCCESS', operatorReference: reference, operatorTransactionId: sim.transactions.get(reference)!.airtelMoneyId });
    const push = sim.requests.find((r) => r.path === '/merchant/v1/payments/')!;
    expect(push.headers).toMatchObject({ 'x-country': 'CG', 'x-currency': 'XAF' });
    expect(JSON.parse(push.body)).toEqual({
      reference,
      subscriber: { country: 'CG', currency: 'XAF', msisdn: '051000001' },
      transaction: { amount: 5000, country: 'CG', currency: 'XAF', id: reference },
    });
    // The callback only made Kolo ask: the enquiry decided.
    expect(enquiries(reference)).toBeGreaterThanOrEqual(1);
    await expectLedgerBalanced(h.services.db);
  });

  it('a decline (TF) fails the charge with Airtel’s words', async () => {
    const reference = await charge('242051000101');
    await waitUntil('the decline', async () => (await rowOf(h, reference)).status !== 'PENDING');
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'Insufficient funds' });
    await expectLedgerBalanced(h.services.db);
  });

  it('TA is no outcome: the charge waits, then succeeds when Airtel says TS', async () => {
    const reference = await charge('242051000102');
    await waitUntil('Airtel to answer TA', () => sim.transactions.get(reference)?.status === 'TA');
    await poll();
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await waitUntil('Airtel to answer TS', () => sim.transactions.get(reference)?.status === 'TS');
    await poll();
    expect((await rowOf(h, reference)).status).toBe('SUCCESS');
    await expectLedgerBalanced(h.services.db);
  });

  it('TIP until the rail’s deadline: FAILED TIMEOUT, still watched for a late success', async () => {
    const reference = await charge('242051000103');
    await poll();
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    const [rail] = await h.services.db.select().from(providers).where(eq(providers.code, 'AIRTEL_MONEY_CG'));
    await poll(rail!.pendingTimeoutSeconds * 1000 + 1000);
    const row = await rowOf(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    expect(row.lateWatchUntil).not.toBeNull();
    await expectLedgerBalanced(h.services.db);
  });

  it('refuses a callback whose hash is forged, asking nothing and changing nothing', async () => {
    const reference = await charge('242051000103');
    const before = enquiries(reference);
    const transaction = { id: reference, message: 'Transaction successful', status_code: 'TS', airtel_money_id: 'MPFORGED' };
    const forged = await h.request('POST', '/api/v1/callbacks/airtel', { body: { transaction, hash: airtelCallbackHash(transaction, 'not-the-key') } });
    expect(forged.status).toBe(401);
    const unsigned = await h.request('POST', '/api/v1/callbacks/airtel', { body: { transaction } });
    expect(unsigned.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(enquiries(reference)).toBe(before);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', operatorTransactionId: null });
    // The right hash is accepted, and still only makes Kolo ask (Airtel says TIP: nothing moves).
    const genuine = await h.request('POST', '/api/v1/callbacks/airtel', { body: { transaction, hash: airtelCallbackHash(transaction, CALLBACK_KEY) } });
    expect(genuine.status).toBe(200);
    await waitUntil('the enquiry', () => enquiries(reference) > before);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await expectLedgerBalanced(h.services.db);
  });
});

describe('Airtel Money token and pay-out', () => {
  it('renews the 180 s token before it runs out, and an expired one once, with no request lost', async () => {
    const first = await charge('242051000004');
    await waitUntil('the first to settle', async () => (await rowOf(h, first)).status === 'SUCCESS');
    const issued = sim.tokensIssued();
    // 160 s later the token has 20 s left, under the 30 s margin: a new one before the next call.
    h.clock.advance(160_000);
    const pushesBefore = sim.requests.filter((r) => r.path === '/merchant/v1/payments/').length;
    const pushesSince = () => sim.requests.filter((r) => r.path === '/merchant/v1/payments/').slice(pushesBefore);
    const second = await charge('242051000005');
    await waitUntil('the second push', () => pushesSince().length === 1);
    expect(sim.tokensIssued()).toBe(issued + 1);
    // The second charge's callback makes Kolo ask Airtel; let that settle first, so the next call
    // with the revoked token is the third push itself.
    await waitUntil('the second to settle', async () => (await rowOf(h, second)).status === 'SUCCESS');
    // Airtel revokes it early: the 401 is answered by one renewal and one resend of the same push.
    sim.expireTokens();
    const third = await charge('242051000006');
    await waitUntil('the third push and its resend', () => pushesSince().length === 3);
    expect(sim.tokensIssued()).toBe(issued + 2);
    expect(pushesSince().map((r) => JSON.parse(r.body).transaction.id)).toEqual([second, third, third]);
    await waitUntil('the third to settle', async () => (await rowOf(h, third)).status === 'SUCCESS');
    expect(sim.moved().filter((m) => m.reference === third)).toHaveLength(1);
    await expectLedgerBalanced(h.services.db);
  });

  it('pays out with the PIN encrypted for Airtel, and the transfer succeeds', async () => {
    const transfer = expectSuccess(
      await h.request('POST', PATHS.transfer, { key: t.key, body: { amount: 2000, currency: 'XAF', paymentMethod: 'AIRTEL_MONEY_CG', beneficiaryAccount: '242051000007', beneficiaryName: 'Awa' } }),
      201,
    ).reference as string;
    await waitUntil('the disbursement', () => sim.requests.some((r) => r.path === '/standard/v1/disbursements/'));
    const sent = sim.requests.find((r) => r.path === '/standard/v1/disbursements/')!;
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({ payee: { msisdn: '051000007' }, reference: transfer, transaction: { amount: 2000, id: transfer } });
    expect(body.pin).not.toContain(AIRTEL_SIM_DEFAULTS.pin);
    await waitUntil('the transfer', () => sim.transactions.get(transfer)?.status === 'TS');
    await poll();
    expect(await rowOf(h, transfer)).toMatchObject({ status: 'SUCCESS' });
    expect(sim.moved().find((m) => m.reference === transfer)).toMatchObject({ direction: 'PAY_OUT', amount: 2000, currency: 'XAF' });
    await expectLedgerBalanced(h.services.db);
  });
});

describe('Airtel Money refunds, by Airtel’s transaction id', () => {
  const refundRequests = () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/standard/v1/payments/refund');
  const settledCharge = async (payerAccount: string) => {
    const reference = await charge(payerAccount);
    await waitUntil('the charge to succeed', async () => (await rowOf(h, reference)).status === 'SUCCESS');
    return reference;
  };
  const refund = async (body: Record<string, unknown>) => h.request('POST', PATHS.refund, { key: t.key, body });
  // A refund is funded from the merchant's available balance: a payment's net amount is short of it by its fee.
  beforeAll(async () => {
    const funding = await charge('242051000010', 50_000);
    await waitUntil('the funding charge', async () => (await rowOf(h, funding)).status === 'SUCCESS');
  });

  it('refunds a payment in full through Airtel’s refund, never a disbursement: SUCCESS, then REFUNDED', async () => {
    const payment = await settledCharge('242051000011');
    const moneyId = sim.transactions.get(payment)!.airtelMoneyId;
    const disbursementsBefore = sim.requests.filter((r) => r.path === '/standard/v1/disbursements/').length;
    const before = refundRequests().length;
    const created = expectSuccess(await refund({ reference: payment, reason: 'Commande annulée' }), 201);
    expect(created).toMatchObject({ paymentReference: payment, status: 'PENDING', amount: 5000 });
    const sent = refundRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toMatchObject({ 'x-country': 'CG', 'x-currency': 'XAF' });
    expect(JSON.parse(sent[0]!.body)).toEqual({ transaction: { airtel_money_id: moneyId } });
    await poll();
    expect(await rowOf(h, created.reference)).toMatchObject({ status: 'SUCCESS', operatorTransactionId: sim.transactions.get(payment)!.refundId });
    expect((await rowOf(h, payment)).status).toBe('REFUNDED');
    expect(sim.requests.filter((r) => r.path === '/standard/v1/disbursements/')).toHaveLength(disbursementsBefore);
    // Airtel moved the money back once.
    expect(sim.moved().filter((m) => m.reference === payment && m.direction === 'PAY_OUT')).toHaveLength(1);
    await expectLedgerBalanced(h.services.db);
  });

  it('refuses a partial refund, and a second one, before anything is written or sent', async () => {
    const payment = await settledCharge('242051000012');
    const before = refundRequests().length;
    const partial = await refund({ reference: payment, amount: 2000 });
    expectError(partial, 400, 'REFUND_NOT_ALLOWED');
    expect(partial.json.message).toContain("qu'en entier : 5000 XAF");
    expect(refundRequests()).toHaveLength(before);
    expectSuccess(await refund({ reference: payment }), 201);
    const second = await refund({ reference: payment });
    expectError(second, 400, 'REFUND_NOT_ALLOWED');
    expect(second.json.message).toContain('déjà été remboursé');
    expect(refundRequests()).toHaveLength(before + 1);
    await poll();
    await expectLedgerBalanced(h.services.db);
  });

  it('an ambiguous answer (refunded, answer lost) leaves the money reserved until Airtel says SUCCESS, refunded once', async () => {
    const payment = await settledCharge('242051000013');
    await poll();
    const reserved = async () => (await tenantBalances(h, t, 'LIVE')).reserved - reservedBefore;
    const reservedBefore = (await tenantBalances(h, t, 'LIVE')).reserved;
    sim.options.refundFaults.push('LOST_ANSWER', 'UNAVAILABLE');
    const created = expectSuccess(await refund({ reference: payment }), 201);
    expect(await rowOf(h, created.reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    expect(await reserved()).toBe(5000);
    expect((await rowOf(h, payment)).status).toBe('SUCCESS');
    // Asked again, Airtel is unavailable: still nothing decided, the money still held.
    await poll(60_000);
    expect(await rowOf(h, created.reference)).toMatchObject({ status: 'PENDING' });
    expect(await reserved()).toBe(5000);
    // Asked again, Airtel answers what it did: refunded (once).
    await poll(60_000);
    expect(await rowOf(h, created.reference)).toMatchObject({ status: 'SUCCESS' });
    expect((await rowOf(h, payment)).status).toBe('REFUNDED');
    expect(await reserved()).toBe(0);
    expect(sim.moved().filter((m) => m.reference === payment && m.direction === 'PAY_OUT')).toHaveLength(1);
    await expectLedgerBalanced(h.services.db);
  });
});
