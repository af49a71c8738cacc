/**
 * Pay-outs whose operator gives no definitive answer before the rail's deadline, with the sandbox's
 * numbers: the transfer ends FAILED `TIMEOUT` but its amount and fee stay reserved and it stays
 * watched; the operator's late "paid" consumes the reservation (announced by
 * `payout.late_success`), a late "not paid" releases it (`payout.reservation_released`), and no
 * answer keeps it held. Checkout attempts that fail at their deadline are each watched on their
 * own, whatever the checkout ended as.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Tenant } from '../harness.ts';
import { startLateWatchSetting, type LateWatchSetting } from '../helpers/late-watch.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { checkoutAttempts } from '../../src/db/schema-checkout.ts';
import { ledgerEntries } from '../../src/db/schema-ledger.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { asAccount, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';

const OPENING = 1_000_000;
const LATE = '237677000198';
const NEVER = '237677000199';
const DECLINE = '237677000103';
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

/** The merchant's dashboard, with a fresh session (the manual clock outruns their lifetime). */
async function dashboardGet(path: string) {
  const { accessToken } = await login(h, merchant.email, merchant.password);
  return asAccount(h, accessToken, 'GET', path);
}

async function eventNames(transactionId: string): Promise<string[]> {
  const rows = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, transactionId)).orderBy(asc(webhookEvents.createdAt));
  return rows.map((r) => r.eventName);
}

async function entryKinds(transactionId: string): Promise<string[]> {
  const rows = await h.services.db.select().from(ledgerEntries).where(eq(ledgerEntries.transactionId, transactionId)).orderBy(asc(ledgerEntries.id));
  return rows.map((r) => r.kind);
}

/** A transfer to `beneficiaryAccount` taken past the rail's deadline; returns its reference and reservation. */
async function transferPastDeadline(t: Tenant, beneficiaryAccount: string): Promise<{ reference: string; reserved: number }> {
  const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount }) }), 201);
  const reserved = 5000 + (created.feeAmount ?? 0);
  await tick(61_000);
  return { reference: created.reference, reserved };
}

const payOut = async (t: Tenant, reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);

describe('a pay-out unresolved at its rail deadline', () => {
  it('fails TIMEOUT but keeps its reservation; the operator paying late consumes it and is announced', async () => {
    const t = await tenant('Virement tardif');
    const { reference, reserved } = await transferPastDeadline(t, LATE);
    const row = await transactionRow(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    // The money has not come back: a retry could not spend it again.
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - reserved, pending: 0, reserved });
    expect(await payOut(t, reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', heldAmount: reserved, lateSuccess: false });
    expect(await entryKinds(row.id)).toEqual(['PAYOUT_RESERVE']);

    await tick(60_000); // the watch asks: the operator now says it paid (the late number pays at 120 s)
    const settled = await transactionRow(h, reference);
    expect(settled).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: false, isLateSuccess: true, lateWatchUntil: null });
    expect(settled.operatorTransactionId).toMatch(/^SBX/);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - reserved, pending: 0, reserved: 0 });
    expect(await entryKinds(row.id)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await payOut(t, reference)).toMatchObject({ status: 'FAILED', heldAmount: 0, lateSuccess: true, operatorTransactionId: settled.operatorTransactionId });
    expect(await eventNames(row.id)).toEqual(['payout.failed', 'payout.late_success']);
    const [late] = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.eventName, 'payout.late_success'));
    expect(JSON.parse(late!.payload).data).toMatchObject({ reference, status: 'FAILED', lateSuccess: true, reservation: { amount: reserved, outcome: 'CONSUMED' } });
    const history = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id)).orderBy(asc(transactionEvents.id));
    expect(history.at(-1)).toMatchObject({ fromStatus: 'FAILED', toStatus: 'FAILED', cause: 'LATE_SUCCESS' });

    // Support finds it from the id on the beneficiary's SMS.
    const found = await dashboardGet(`/api/v1/merchants/transactions?environment=TEST&direction=PAY_OUT&search=${settled.operatorTransactionId}`);
    expect(found.json.data.content.map((x: { reference: string }) => x.reference)).toEqual([reference]);
    expect(found.json.data.content[0]).toMatchObject({ operatorTransactionId: settled.operatorTransactionId, heldAmount: 0, isLateSuccess: true });

    // Asked again, nothing moves twice.
    await tick(3_600_000);
    expect(await entryKinds(row.id)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
  });

  it('is released when the operator answers definitively that it did not pay', async () => {
    const t = await tenant('Virement refusé tard');
    // A decline that the operator gives only after the deadline: the rail gives up after 1 s.
    await setRailDeadline(1);
    try {
      const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount: DECLINE }) }), 201);
      const reserved = 5000 + (created.feeAmount ?? 0);
      await tick(2_000); // past the deadline, before the sandbox's decline (3 s)
      expect(await transactionRow(h, created.reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
      expect((await tenantBalances(h, t)).reserved).toBe(reserved);
      await tick(60_000);
      const row = await transactionRow(h, created.reference);
      expect(row).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: false, isLateSuccess: false });
      expect(await tenantBalances(h, t)).toEqual({ available: OPENING, pending: 0, reserved: 0 });
      expect(await entryKinds(row.id)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_RELEASE']);
      expect(await eventNames(row.id)).toEqual(['payout.failed', 'payout.reservation_released']);
      const history = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id)).orderBy(asc(transactionEvents.id));
      expect(history.at(-1)).toMatchObject({ cause: 'RESERVATION_RELEASED', failureCode: 'PAYEE_NOT_FOUND' });
      expect(await payOut(t, created.reference)).toMatchObject({ heldAmount: 0, lateSuccess: false });
    } finally {
      await setRailDeadline(60);
    }
  });

  it('a refund held at its deadline still counts against what remains to refund', async () => {
    const t = await tenant('Remboursement tenu');
    // The late number pays the charge at 120 s: give the rail room, then let it succeed.
    await setRailDeadline(600);
    let charge: { reference: string };
    try {
      charge = expectSuccess(
        await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: LATE } }),
        201,
      );
      for (let i = 0; i < 5; i++) await tick(30_000);
      expect((await transactionRow(h, charge.reference)).status).toBe('SUCCESS');
    } finally {
      await setRailDeadline(60);
    }
    const refund = expectSuccess(await h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference } }), 201);
    await tick(61_000); // the refund to the late number reaches its deadline unanswered
    expect(await transactionRow(h, refund.reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    expectError(await h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference, amount: 1000 } }), 400, 'REFUND_AMOUNT_EXCEEDED');
    await tick(60_000); // the operator paid the refund after all
    expect(await transactionRow(h, refund.reference)).toMatchObject({ isReservationHeld: false, isLateSuccess: true });
    expect(await transactionRow(h, charge.reference)).toMatchObject({ status: 'REFUNDED', refundedAmount: 5000 });
  });

  it('a refund failed at its deadline and then paid late still counts: only the rest can be refunded', async () => {
    const t = await tenant('Remboursement payé tard');
    await setRailDeadline(600);
    let charge: { reference: string };
    try {
      charge = expectSuccess(
        await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 10_000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: LATE } }),
        201,
      );
      for (let i = 0; i < 5; i++) await tick(30_000);
      expect((await transactionRow(h, charge.reference)).status).toBe('SUCCESS');
    } finally {
      await setRailDeadline(60);
    }
    const first = expectSuccess(await h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference, amount: 6000 } }), 201);
    await tick(61_000); // the refund reaches its deadline unanswered: FAILED, reservation held
    await tick(60_000); // then the operator pays it
    expect(await transactionRow(h, first.reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: false, isLateSuccess: true });
    expect(await payOut(t, first.reference)).toMatchObject({ lateSuccess: true });
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(charge.reference), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS', refundedAmount: 6000 });

    // 4,000 remain: more is refused by the merchant API and by the dashboard, and nothing is reserved.
    const reservedBefore = (await tenantBalances(h, t)).reserved;
    const refused = await h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference, amount: 5000 } });
    expectError(refused, 400, 'REFUND_AMOUNT_EXCEEDED');
    expect(refused.json.message).toContain('4000 XAF');
    const { accessToken } = await login(h, merchant.email, merchant.password);
    const dashboardRefund = `/api/v1/merchants/transactions/${charge.reference}/refund`;
    expectError(await asAccount(h, accessToken, 'POST', dashboardRefund, { body: { amount: 4001 } }), 400, 'REFUND_AMOUNT_EXCEEDED');
    expect((await tenantBalances(h, t)).reserved).toBe(reservedBefore);

    // "Refund the rest", asked four times at once through both doors: one refund of 4,000.
    const answers = await Promise.all([
      h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference } }),
      h.request('POST', PATHS.refund, { key: t.key, body: { reference: charge.reference } }),
      asAccount(h, accessToken, 'POST', dashboardRefund, { body: {} }),
      asAccount(h, accessToken, 'POST', dashboardRefund, { body: {} }),
    ]);
    const accepted = answers.filter((a) => a.status === 201);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.json.data).toMatchObject({ amount: 4000 });
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 400, 'REFUND_AMOUNT_EXCEEDED');

    await tick(61_000);
    await tick(60_000); // the last refund, to the same late number, is paid late too
    const payment = await transactionRow(h, charge.reference);
    expect(payment).toMatchObject({ status: 'REFUNDED', refundedAmount: 10_000 });
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, payment.id));
    expect(refunds.map((r) => r.amount).sort()).toEqual([4000, 6000]);
    expect(await verifyLedger(h.services.db)).toMatchObject({ ok: true });
  });
});

describe('checkout attempts failed at their deadline', () => {
  it('are each watched and recorded on their own, even when another attempt paid the checkout', async () => {
    const t = await tenant('Deux paiements');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    let page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000198', _csrf: page.csrf! })).status).toBeLessThan(400);
    await tick(61_000); // attempt 1 reaches its deadline unanswered
    page = await b.get(c.path);
    expect((await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000001', _csrf: page.csrf! })).status).toBeLessThan(400);
    await tick(5_000); // attempt 2 pays the checkout
    const checkout = await transactionRow(h, c.reference);
    expect(checkout).toMatchObject({ status: 'SUCCESS', payerAccount: '237677000001' });
    const before = await tenantBalances(h, t);

    await tick(60_000); // attempt 1's watch: the operator now says it paid too (the customer paid twice)
    const attempts = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, checkout.id)).orderBy(asc(checkoutAttempts.attemptNumber));
    expect(attempts.map((a) => [a.status, a.isLateSuccess])).toEqual([
      ['FAILED', true],
      ['SUCCEEDED', false],
    ]);
    const after = await transactionRow(h, c.reference);
    expect(after).toMatchObject({ status: 'SUCCESS', isLateSuccess: true, payerAccount: '237677000001', refundedAmount: 0 });
    // The second payment is refunded to the number that made it, funded from suspense.
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, checkout.id));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 5000, beneficiaryAccount: '237677000198', fundingSource: 'SUSPENSE' });
    expect(await tenantBalances(h, t)).toEqual(before);
    expect(await entryKinds(checkout.id)).toEqual(['PAYIN_SUCCESS', 'LATE_SUCCESS_ATTEMPT_1']);
    // Each payment's operator id finds the checkout: the one that paid it, and the late one.
    for (const id of [after.operatorTransactionId!, attempts[0]!.operatorTransactionId!]) {
      const found = await dashboardGet(`/api/v1/merchants/transactions?environment=TEST&search=${id}`);
      expect(found.json.data.content.map((x: { reference: string }) => x.reference)).toEqual([c.reference]);
    }
    expect(new Set([after.operatorTransactionId, attempts[0]!.operatorTransactionId]).size).toBe(2);
    // The merchant can still refund its own payment in full.
    expectSuccess(await h.request('POST', PATHS.refund, { key: t.key, body: { reference: c.reference } }), 201);
  });

  it('two attempts that both time out and both pay late are two late successes', async () => {
    const t = await tenant('Deux tardifs');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    for (let i = 0; i < 2; i++) {
      const page = await b.get(c.path);
      expect((await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677000198', _csrf: page.csrf! })).status).toBeLessThan(400);
      await tick(61_000);
    }
    for (let i = 0; i < 3; i++) await tick(60_000);
    const checkout = await transactionRow(h, c.reference);
    const attempts = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, checkout.id));
    expect(attempts.map((a) => a.isLateSuccess)).toEqual([true, true]);
    const refunds = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, checkout.id));
    expect(refunds.map((r) => r.amount)).toEqual([5000, 5000]);
    expect((await entryKinds(checkout.id)).sort()).toEqual(['LATE_SUCCESS_ATTEMPT_1', 'LATE_SUCCESS_ATTEMPT_2']);
  });
});

// Last: it moves the clock 30 hours ahead (dashboard sessions expire meanwhile).
describe('a pay-out the operator never answers about', () => {
  it('stays held, and asked about, for as long as the operator gives no answer', async () => {
    const t = await tenant('Virement sans réponse');
    const { reference, reserved } = await transferPastDeadline(t, NEVER);
    for (let i = 0; i < 30; i++) await tick(3_600_000); // past the close watch (24 h)
    const row = await transactionRow(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', isReservationHeld: true });
    expect(row.lateWatchUntil).not.toBeNull();
    expect(row.nextPollAt!.getTime()).toBeLessThanOrEqual(h.clock.now().getTime() + 3_600_000);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - reserved, pending: 0, reserved });
    // The ledger check knows a held reservation from a lost one.
    expect((await verifyLedger(h.services.db)).ok).toBe(true);
    await h.services.db.update(transactions).set({ isReservationHeld: false }).where(eq(transactions.reference, reference));
    const report = await verifyLedger(h.services.db);
    expect(report.discrepancies).toEqual([{ check: 'RESERVATION', detail: `pay-out ${reference} (FAILED): ${reserved} held in reserve, expected 0` }]);
    await h.services.db.update(transactions).set({ isReservationHeld: true }).where(eq(transactions.reference, reference));
  });
});
