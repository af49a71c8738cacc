/**
 * A checkout is paid once: a late success of one of its attempts is refunded to the number that
 * paid when the checkout was already paid (by another attempt, or by a late success the merchant
 * kept), whatever the application's late-success policy. Under KEEP, a late success while the
 * checkout is still open pays the checkout itself. On a rail with a settlement delay, every
 * credit is settled exactly once. Driven with the sandbox's late number (…198 pays after 120 s,
 * past the rail's 60 s deadline).
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Tenant } from '../harness.ts';
import { startLateWatchSetting, type LateWatchSetting } from '../helpers/late-watch.ts';
import { applications, providers, transactions } from '../../src/db/schema.ts';
import { checkoutAttempts } from '../../src/db/schema-checkout.ts';
import { ledgerEntries, pendingSettlements } from '../../src/db/schema-ledger.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { createCheckout, formClient } from '../helpers/checkout.ts';

const OPENING = 1_000_000;
const LATE = '677000198';
const PAYS = '677000001';
let h: Harness;
let tenant: LateWatchSetting['tenant'];
let tick: LateWatchSetting['tick'];

beforeAll(async () => {
  ({ h, tenant, tick } = await startLateWatchSetting());
});
afterAll(async () => h?.close());
afterEach(async () => {
  await h.services.db.update(providers).set({ settlementDelaySeconds: 0 }).where(eq(providers.code, 'MTN_MOMO_CM'));
  await expectLedgerBalanced(h.services.db);
  expect((await verifyLedger(h.services.db)).ok).toBe(true);
});

async function keeping(name: string): Promise<Tenant> {
  const t = await tenant(name);
  await h.services.db.update(applications).set({ lateSuccessPolicy: 'KEEP' }).where(eq(applications.id, t.applicationId));
  return t;
}

/** Starts a checkout attempt from `phone` on the checkout page of `path`. */
async function attempt(b: ReturnType<typeof formClient>, path: string, phone: string): Promise<void> {
  const page = await b.get(path);
  expect((await b.post(`${path}/pay`, { rail: 'MTN_MOMO_CM', phone, _csrf: page.csrf! })).status).toBeLessThan(400);
}

async function refundsOf(transactionId: string) {
  return h.services.db.select().from(transactions).where(eq(transactions.refundOf, transactionId));
}

async function entryKinds(transactionId: string): Promise<string[]> {
  const rows = await h.services.db.select().from(ledgerEntries).where(eq(ledgerEntries.transactionId, transactionId)).orderBy(asc(ledgerEntries.id));
  return rows.map((r) => r.kind);
}

async function eventNames(transactionId: string): Promise<string[]> {
  const rows = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, transactionId)).orderBy(asc(webhookEvents.createdAt));
  return rows.map((r) => r.eventName);
}

describe('a checkout paid twice', () => {
  it('is refunded the second payment under KEEP: an earlier attempt paid late after another paid the checkout', async () => {
    const t = await keeping('Deux paiements, garder');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    await attempt(b, c.path, LATE);
    await tick(61_000); // attempt 1 reaches its deadline unanswered
    await attempt(b, c.path, PAYS);
    await tick(5_000); // attempt 2 pays the checkout
    const checkout = await transactionRow(h, c.reference);
    expect(checkout.status).toBe('SUCCESS');
    const before = await tenantBalances(h, t);

    await tick(60_000); // attempt 1's watch: it was paid too
    const attempts = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, checkout.id)).orderBy(asc(checkoutAttempts.attemptNumber));
    expect(attempts.map((a) => a.isLateSuccess)).toEqual([true, false]);
    // Refunded from suspense to the number that paid, whatever the policy; the merchant's money is untouched.
    const refunds = await refundsOf(checkout.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 5000, beneficiaryAccount: '237677000198', fundingSource: 'SUSPENSE' });
    expect(await tenantBalances(h, t)).toEqual(before);
    expect(await entryKinds(checkout.id)).toEqual(['PAYIN_SUCCESS', 'LATE_SUCCESS_ATTEMPT_1']);
    const late = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, checkout.id));
    const announced = late.find((e) => e.eventName === 'payment.late_success');
    expect(JSON.parse(String(announced?.payload))).toMatchObject({ data: { latePayment: { decision: 'REFUND', attemptNumber: 1 } } });
  });

  it('under KEEP, a late success while the checkout is open pays it; no second payment can start', async () => {
    const t = await keeping('Ouvert, garder');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    await attempt(b, c.path, LATE);
    await tick(61_000); // attempt 1 reaches its deadline unanswered: the checkout stays open
    expect((await transactionRow(h, c.reference)).status).toBe('PENDING');

    await tick(60_000); // the operator paid attempt 1: the checkout is paid by it
    const paid = await transactionRow(h, c.reference);
    expect(paid).toMatchObject({ status: 'SUCCESS', isLateSuccess: true, payerAccount: '237677000198', feeAmount: 75 });
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    expect(await entryKinds(paid.id)).toEqual(['PAYIN_SUCCESS']);
    expect(await eventNames(paid.id)).toEqual(['payment.success']);
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(c.reference), { key: t.key }), 200)).toMatchObject({ status: 'SUCCESS', lateSuccess: true });
    // Nothing more can be paid on it.
    const page = await b.get(c.path);
    if (page.csrf) await b.post(`${c.path}/pay`, { rail: 'MTN_MOMO_CM', phone: PAYS, _csrf: page.csrf });
    await tick(5_000);
    expect(await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, paid.id))).toHaveLength(1);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    expect(await refundsOf(paid.id)).toEqual([]);
  });

  it('under KEEP, of two attempts paid late after the checkout expired, the first is kept and the second refunded', async () => {
    const t = await keeping('Expiré, garder');
    const c = await createCheckout(h, t);
    const b = formClient(h);
    await attempt(b, c.path, LATE);
    await tick(61_000);
    await attempt(b, c.path, LATE);
    // The session ends (checkouts last 30 min) before the operator answers about either attempt.
    await h.services.db.update(transactions).set({ expiresAt: new Date(h.clock.now().getTime() + 1000) }).where(eq(transactions.reference, c.reference));
    await tick(61_000);
    const expired = await transactionRow(h, c.reference);
    expect(['FAILED', 'CANCELLED']).toContain(expired.status);

    for (let i = 0; i < 3; i++) await tick(60_000);
    const attempts = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, expired.id));
    expect(attempts.map((a) => a.isLateSuccess)).toEqual([true, true]);
    // One payment kept (credited once), the other refunded from suspense.
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    const refunds = await refundsOf(expired.id);
    expect(refunds.map((r) => [r.amount, r.fundingSource])).toEqual([[5000, 'SUSPENSE']]);
    expect((await transactionRow(h, c.reference)).status).toBe(expired.status);
  });
});

describe('a late success on a rail with a settlement delay', () => {
  it('kept on a charge: credited to PENDING once, released once', async () => {
    const t = await keeping('Délai, charge');
    await h.services.db.update(providers).set({ settlementDelaySeconds: 600 }).where(eq(providers.code, 'MTN_MOMO_CM'));
    const created = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: `237${LATE}` } }),
      201,
    );
    await tick(61_000);
    await tick(60_000); // paid late and kept: the net waits for the rail's delay
    const row = await transactionRow(h, created.reference);
    expect(row).toMatchObject({ status: 'FAILED', isLateSuccess: true, lateWatchUntil: null });
    const balances = await tenantBalances(h, t);
    expect(balances.pending).toBe(4925);
    expect(await h.services.db.select().from(pendingSettlements).where(eq(pendingSettlements.transactionId, row.id))).toHaveLength(1);
    for (let i = 0; i < 3; i++) await tick(300_000);
    expect(await tenantBalances(h, t)).toEqual({ ...balances, pending: 0, available: balances.available + 4925 });
    expect(await entryKinds(row.id)).toEqual(['LATE_SUCCESS', 'LATE_SUCCESS_KEPT', 'SETTLEMENT_RELEASE_LATE_SUCCESS_KEPT']);
  });

  it('on a checkout already paid and still pending settlement: refunded, the settlement released once', async () => {
    const t = await keeping('Délai, checkout');
    await h.services.db.update(providers).set({ settlementDelaySeconds: 600 }).where(eq(providers.code, 'MTN_MOMO_CM'));
    const c = await createCheckout(h, t);
    const b = formClient(h);
    await attempt(b, c.path, LATE);
    await tick(61_000);
    await attempt(b, c.path, PAYS);
    await tick(5_000); // attempt 2 pays: 4,925 pending for 600 s
    const checkout = await transactionRow(h, c.reference);
    expect(checkout.status).toBe('SUCCESS');
    expect((await tenantBalances(h, t)).pending).toBe(4925);

    await tick(60_000); // attempt 1 paid late, with the first credit's settlement still pending
    const watched = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, checkout.id)).orderBy(asc(checkoutAttempts.attemptNumber));
    expect(watched[0]).toMatchObject({ isLateSuccess: true, lateWatchUntil: null, nextPollAt: null });
    expect((await refundsOf(checkout.id)).map((r) => r.fundingSource)).toEqual(['SUSPENSE']);
    for (let i = 0; i < 3; i++) await tick(300_000);
    const settlements = await h.services.db.select().from(pendingSettlements).where(eq(pendingSettlements.transactionId, checkout.id));
    expect(settlements.map((s) => [s.creditKind, s.releasedAt !== null])).toEqual([['PAYIN_SUCCESS', true]]);
    expect((await tenantBalances(h, t)).pending).toBe(0);
    expect((await entryKinds(checkout.id)).filter((k) => k.startsWith('SETTLEMENT_RELEASE'))).toEqual(['SETTLEMENT_RELEASE']);
  });
});
