/**
 * Refunds through the real API: full and partial, Σ refunds ≤ amount even under concurrency, funded
 * from the merchant's balance, SUCCESS → REFUNDED only when refunded in full (recorded in its
 * events), webhooks `refund.success` / `refund.failed` / `payment.refunded`, `refundedAmount` in
 * the status, Idempotency-Key, and the dashboard route.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey, rotateApiKey } from '../../src/accounts/api-keys.ts';
import { expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { chargeTo, settle, transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

const OPENING = 1_000_000;
const REFUND = '/api/v1/pay-in/refund';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

async function tenant(): Promise<Tenant> {
  return h.createTenant({ application: { webhookUrl: 'https://merchant.example/hooks' } });
}

async function eventsOf(reference: string): Promise<string[]> {
  const row = await transactionRow(h, reference);
  const rows = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id)).orderBy(asc(webhookEvents.createdAt));
  return rows.map((r) => r.eventName);
}

describe('POST /api/v1/pay-in/refund', () => {
  it('refunds in full: reserved from the balance, then SUCCESS → REFUNDED with its event and webhooks', async () => {
    const t = await tenant();
    const payment = await chargeTo(h, t, 'SUCCESS');
    const created = await h.request('POST', REFUND, { key: t.key, body: { reference: payment, reason: 'Article défectueux' } });
    const refund = expectSuccess(created, 201);
    expect(created.json.message).toBe('Remboursement initié.');
    expect(refund).toMatchObject({ paymentReference: payment, status: 'PENDING', amount: 5000, feeAmount: 0, currency: 'XAF', reason: 'Article défectueux' });
    expect(refund.reference).toMatch(/^PO-[0-9A-F]{12}$/);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925 - 5000, pending: 0, reserved: 5000 });
    const refundRow = await transactionRow(h, refund.reference);
    expect(refundRow).toMatchObject({ beneficiaryAccount: '237677000001', paymentMethod: 'MTN_MOMO_CM', type: 'REFUND' });

    await settle(h);
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(payment), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'REFUNDED', refundedAmount: 5000, feeAmount: 75, netAmount: 4925 });
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(refund.reference), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS' });
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - 75, pending: 0, reserved: 0 });
    const paymentRow = await transactionRow(h, payment);
    const history = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, paymentRow.id)).orderBy(asc(transactionEvents.id));
    expect(history.at(-1)).toMatchObject({ fromStatus: 'SUCCESS', toStatus: 'REFUNDED', cause: 'REFUND' });
    expect(history.map((e) => e.cause)).toContain('REFUND_REQUESTED');
    expect(await eventsOf(payment)).toEqual(['payment.success', 'payment.refunded']);
    expect(await eventsOf(refund.reference)).toEqual(['refund.success']);
    const [refunded] = await h.services.db.select().from(webhookEvents).where(and(eq(webhookEvents.transactionId, paymentRow.id), eq(webhookEvents.eventName, 'payment.refunded')));
    expect(JSON.parse(refunded!.payload).data).toMatchObject({ reference: payment, status: 'REFUNDED', refundedAmount: 5000 });

    expectError(await h.request('POST', REFUND, { key: t.key, body: { reference: payment } }), 400, 'REFUND_NOT_ALLOWED');
  });

  it('refunds in parts; the pay-in stays SUCCESS until the sum reaches its amount; never more than the amount', async () => {
    const t = await tenant();
    const payment = await chargeTo(h, t, 'SUCCESS');
    expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 2000 } }), 201);
    const over = await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 3001 } });
    expectError(over, 400, 'REFUND_AMOUNT_EXCEEDED');
    expect(over.json.message).toContain('3000 XAF');
    await settle(h);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(payment), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS', refundedAmount: 2000 });
    expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 3000 } }), 201);
    await settle(h);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(payment), { key: t.key }), 200)).toMatchObject({ status: 'REFUNDED', refundedAmount: 5000 });
  });

  it('a failed refund releases its reservation and announces refund.failed; the amount can be refunded again', async () => {
    const t = await tenant();
    const payment = await chargeTo(h, t, 'SUCCESS');
    // The payer's account now refuses credits (sandbox …102 declines pay-outs).
    await h.services.db.update(transactions).set({ payerAccount: '237677000102' }).where(eq(transactions.reference, payment));
    const refund = expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment } }), 201);
    await settle(h);
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(refund.reference), { key: t.key }), 200)).toMatchObject({ status: 'FAILED' });
    expect(await eventsOf(refund.reference)).toEqual(['refund.failed']);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(payment), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS', refundedAmount: 0 });
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment } }), 201);
    await settle(h);
  });

  it('refuses what cannot be refunded: unknown or foreign reference, a pay-in that did not succeed, too little balance', async () => {
    const t = await tenant();
    const other = await tenant();
    const failed = await chargeTo(h, t, 'FAILED');
    const foreign = await chargeTo(h, other, 'SUCCESS');
    expectError(await h.request('POST', REFUND, { key: t.key, body: { reference: 'PI-000000000000' } }), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await h.request('POST', REFUND, { key: t.key, body: { reference: foreign } }), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await h.request('POST', REFUND, { key: t.key, body: { reference: failed } }), 400, 'REFUND_NOT_ALLOWED');
    const bad = await h.request('POST', REFUND, { key: t.key, body: { reference: foreign, amount: 0 } });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json.data).toHaveProperty('amount');

    const paid = await chargeTo(h, t, 'SUCCESS');
    // A LIVE key of the same application never reaches a TEST pay-in (nor the reverse).
    const rotated = await rotateApiKey(h.services, { applicationId: other.applicationId, name: 'live', environment: 'LIVE' });
    expectError(await h.request('POST', REFUND, { key: rotated.plainTextKey, body: { reference: foreign } }), 404, 'TRANSACTION_NOT_FOUND');
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: OPENING }) }), 201);
    // 4 925 available after spending the opening balance: a 5 000 refund is not covered.
    const poor = await h.request('POST', REFUND, { key: t.key, body: { reference: paid } });
    expectError(poor, 400, 'INSUFFICIENT_BALANCE');
    expect(await tenantBalances(h, t)).toMatchObject({ available: 4925 });
    await settle(h);
  });

  it('honours Idempotency-Key and lets only one of many concurrent full refunds through', async () => {
    const t = await tenant();
    const payment = await chargeTo(h, t, 'SUCCESS');
    const headers = { 'idempotency-key': 'refund-cmd-42' };
    const first = expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 1000 }, headers }), 201);
    const again = expectSuccess(await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 1000 }, headers }), 201);
    expect(again.reference).toBe(first.reference);
    expectError(await h.request('POST', REFUND, { key: t.key, body: { reference: payment, amount: 999 }, headers }), 409, 'IDEMPOTENCY_KEY_REUSED');

    const attempts = await Promise.all(Array.from({ length: 6 }, () => h.request('POST', REFUND, { key: t.key, body: { reference: payment } })));
    expect(attempts.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of attempts.filter((x) => x.status !== 201)) expect(r.json.code).toBe('REFUND_AMOUNT_EXCEEDED');
    const row = await transactionRow(h, payment);
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, row.id));
    expect(refunds.reduce((s, r) => s + r.amount, 0)).toBe(5000);
    await settle(h);
    expect((await transactionRow(h, payment)).status).toBe('REFUNDED');
  });
});

describe('dashboard refund', () => {
  it("POST /api/v1/merchants/transactions/{reference}/refund refunds the merchant's own pay-in only", async () => {
    const merchant = await createDashboardAccount(h);
    const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
    const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
    const t: Tenant = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
    const payment = await chargeTo(h, t, 'SUCCESS');
    const stranger = await createDashboardAccount(h);
    const path = `/api/v1/merchants/transactions/${payment}/refund`;
    expectError(await asAccount(h, stranger.accessToken, 'POST', path, { body: {} }), 404, 'TRANSACTION_NOT_FOUND');
    const refund = expectSuccess(await asAccount(h, merchant.accessToken, 'POST', path, { body: { amount: 1500, reason: 'Geste commercial' } }), 201);
    expect(refund).toMatchObject({ paymentReference: payment, amount: 1500, reason: 'Geste commercial' });
    await settle(h);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(payment), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS', refundedAmount: 1500 });
  });
});
