/**
 * Late successes, with the sandbox's late number (…198: succeeds only after SANDBOX_LATE_DELAY_MS):
 * a charge failed at its rail's deadline is still watched; when the operator reports the money
 * moved, it is posted to suspense, the transaction gets a LATE_SUCCESS event (its status does not
 * change), the merchant gets `payment.late_success`, and the payer is refunded automatically — or,
 * when the application keeps late successes, the merchant is credited like a normal pay-in. Also
 * the checkout race: an attempt that succeeds after its checkout ended.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Tenant } from '../harness.ts';
import { startLateWatchSetting, type LateWatchSetting } from '../helpers/late-watch.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, platformBalances, tenantBalances } from '../helpers/ledger.ts';
import { asAccount, type DashboardAccount } from '../helpers/dashboard.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';
import { findPendingAttempt, succeedAttempt } from '../../src/payments/checkout-attempt-records.ts';
import { checkoutAttempts } from '../../src/db/schema-checkout.ts';

const OPENING = 1_000_000;
const LATE_MSISDN = '237677000198';
let h: Harness;
let merchant: DashboardAccount;
let tenant: LateWatchSetting['tenant'];
let tick: LateWatchSetting['tick'];
let setRailDeadline: LateWatchSetting['setRailDeadline'];

beforeAll(async () => {
  ({ h, merchant, tenant, tick, setRailDeadline } = await startLateWatchSetting());
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

/** A charge to the late number that fails at the rail's deadline; returns its reference. */
async function lateCharge(t: Tenant): Promise<string> {
  const created = expectSuccess(
    await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: LATE_MSISDN } }),
    201,
  );
  await tick(61_000);
  const row = await transactionRow(h, created.reference);
  expect(row).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  expect(row.lateWatchUntil).not.toBeNull();
  return created.reference;
}

async function eventNames(transactionId: string): Promise<string[]> {
  const rows = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, transactionId)).orderBy(asc(webhookEvents.createdAt));
  return rows.map((r) => r.eventName);
}

describe('a success reported after the deadline', () => {
  it('is posted to suspense, recorded as LATE_SUCCESS, announced, and refunded to the payer automatically', async () => {
    const t = await tenant('Remboursement auto');
    const before = await platformBalances(h);
    const mine = await tenantBalances(h, t);
    const reference = await lateCharge(t);
    await tick(60_000); // the watch asks again: the operator now says SUCCEEDED
    const row = await transactionRow(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', isLateSuccess: true, lateWatchUntil: null, refundedAmount: 0 });
    const history = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id)).orderBy(asc(transactionEvents.id));
    expect(history.at(-1)).toMatchObject({ fromStatus: 'FAILED', toStatus: 'FAILED', cause: 'LATE_SUCCESS' });
    expect(history.at(-1)!.detail).toMatchObject({ origin: 'LATE_WATCH', decision: 'REFUND' });
    expect((await platformBalances(h)).suspense - before.suspense).toBe(0); // 5 000 in, 5 000 reserved for the refund
    expect(await tenantBalances(h, t)).toEqual(mine); // the merchant's money is not touched

    expect(await eventNames(row.id)).toEqual(['payment.failed', 'payment.late_success']);
    const [late] = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventName, 'payment.late_success'));
    const data = JSON.parse(late!.payload).data;
    // The status read's shape (`lateSuccess` a boolean), and what Kolo did with the money beside it.
    expect(data).toMatchObject({ reference, status: 'FAILED', lateSuccess: true, latePayment: { decision: 'REFUND', attemptNumber: null } });
    const refundReference = data.latePayment.refundReference as string;
    expect(refundReference).toMatch(/^PO-/);

    // The refund is initiated by the backstop at once, and (late number) succeeds 120 s later.
    await tick(1000);
    expect((await transactionRow(h, refundReference)).initiatedAt).not.toBeNull();
    await tick(121_000);
    await tick(1000);
    const refund = await transactionRow(h, refundReference);
    expect(refund).toMatchObject({ status: 'SUCCESS', beneficiaryAccount: LATE_MSISDN, feeAmount: 0, fundingSource: 'SUSPENSE' });
    // refundedAmount counts the merchant's own refunds; this one returned money Kolo never credited.
    expect(await transactionRow(h, reference)).toMatchObject({ status: 'FAILED', refundedAmount: 0 });
    const after = await platformBalances(h);
    expect(after.suspense).toBe(before.suspense);
    expect(after.float).toBe(before.float);
    expect(await tenantBalances(h, t)).toEqual(mine);

    // The merchant sees it on the dashboard.
    const dashboard = await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/dashboard?environment=TEST&appId=${t.applicationId}`);
    const listed = dashboard.json.data.lastFiveTransactions.find((x: { reference: string }) => x.reference === reference);
    expect(listed).toMatchObject({ status: 'FAILED', isLateSuccess: true, refundedAmount: 0 });
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'FAILED', lateSuccess: true, operatorTransactionId: expect.stringMatching(/^SBX/) });
  });

  it('is credited like a normal pay-in when the application keeps late successes', async () => {
    const t = await tenant('Garde');
    const settings = `/api/v1/merchants/apps/${t.applicationId}/money-settings`;
    expect((await asAccount(h, merchant.accessToken, 'GET', settings)).json.data).toEqual({ lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 0 });
    const put = await asAccount(h, merchant.accessToken, 'PUT', settings, { body: { lateSuccessPolicy: 'KEEP' } });
    expect(put.json.data).toEqual({ lateSuccessPolicy: 'KEEP', batchAutoApproveBelow: 0 });
    const before = await platformBalances(h);
    const reference = await lateCharge(t);
    await tick(60_000);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    const after = await platformBalances(h);
    expect(after.suspense).toBe(before.suspense);
    expect(after.fees - before.fees).toBe(75);
    expect(after.float - before.float).toBe(5000);
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'FAILED', feeAmount: 75, netAmount: 4925 });
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, (await transactionRow(h, reference)).id));
    expect(refunds).toEqual([]);
  });

  it('the watch ends on a decline, and after LATE_SUCCESS_WATCH_HOURS', async () => {
    const t = await tenant('Fin de veille');
    const created = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000199' } }),
      201,
    );
    await tick(61_000);
    expect((await transactionRow(h, created.reference)).lateWatchUntil).not.toBeNull();
    // …199 never resolves: asked until the watch's end, then left alone.
    for (let i = 0; i < 30; i++) await tick(3_600_000);
    const row = await transactionRow(h, created.reference);
    expect(row).toMatchObject({ status: 'FAILED', isLateSuccess: false, lateWatchUntil: null, nextPollAt: null });
  });
});

describe('a checkout attempt that succeeds after its checkout ended', () => {
  it('is recorded as a late success instead of being only logged', async () => {
    const t = await tenant('Checkout');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000001', _csrf: page.csrf! })).status).toBeLessThan(400);
    // The race the checkout guards against, forced: the session ends while the attempt is in
    // flight, then the operator's success for that attempt is recorded (what the backstop does
    // when its poll answers SUCCEEDED).
    const checkout = await transactionRow(h, c.reference);
    const attempt = await findPendingAttempt(h.services.db, checkout.id);
    expect(attempt).not.toBeNull();
    await h.services.db.update(transactions).set({ status: 'CANCELLED', nextPollAt: null }).where(eq(transactions.reference, c.reference));
    expect(await succeedAttempt(h.services, attempt!, 'SBX-LATE')).toBe('LATE');
    const row = await transactionRow(h, c.reference);
    expect(row).toMatchObject({ status: 'CANCELLED', isLateSuccess: true, paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' });
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, row.id));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 5000, beneficiaryAccount: '237677000001', fundingSource: 'SUSPENSE' });
    await tick(5000);
    await tick(5000);
    expect((await transactionRow(h, refunds[0]!.reference)).status).toBe('SUCCESS');
  });
});

describe('a checkout attempt that failed at its deadline', () => {
  it('is watched on its own; its late success is refunded to the number that paid', async () => {
    const t = await tenant('Checkout expiré');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000198', _csrf: page.csrf! })).status).toBeLessThan(400);
    await tick(61_000); // the attempt reaches its rail's deadline without an answer: FAILED TIMEOUT
    const [attempt] = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, (await transactionRow(h, c.reference)).id));
    expect(attempt).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    // The attempt is watched on its own, whatever its checkout ends as.
    expect(attempt!.lateWatchUntil).not.toBeNull();
    await tick(30 * 60_000); // the session ends; the watch asks about the attempt: the operator says it succeeded
    const ended = await transactionRow(h, c.reference);
    expect(ended).toMatchObject({ status: 'FAILED', failureCode: 'SESSION_EXPIRED', lateWatchUntil: null });
    const [watched] = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt!.id));
    expect(watched).toMatchObject({ isLateSuccess: true, lateWatchUntil: null });
    const late = await transactionRow(h, c.reference);
    expect(late).toMatchObject({ status: 'FAILED', isLateSuccess: true, paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000198' });
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, late.id));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 5000, beneficiaryAccount: '237677000198', fundingSource: 'SUSPENSE' });
    await tick(1000);
    await tick(121_000);
    await tick(1000);
    expect((await transactionRow(h, refunds[0]!.reference)).status).toBe('SUCCESS');
  });

  it('a checkout whose attempts all got a final answer is not watched', async () => {
    const t = await tenant('Checkout refusé');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000100', _csrf: page.csrf! });
    await tick(5000);
    await tick(31 * 60_000);
    const ended = await transactionRow(h, c.reference);
    expect(ended).toMatchObject({ status: 'FAILED', failureCode: 'SESSION_EXPIRED', lateWatchUntil: null });
  });
});

