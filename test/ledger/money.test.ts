/**
 * The posting rules through the real API: every money event writes one balanced entry in the same
 * database transaction as the status change, fees are taken with half-up rounding, pay-outs are
 * reserved (amount + fee) from the available balance, and every test ends with the ledger
 * invariants checked.
 */
import { sql, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { providers, transactions, merchantFeeOverrides } from '../../src/db/schema.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { chargeTo, settle, transactionRow, transferTo } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, platformBalances, tenantBalances } from '../helpers/ledger.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';

const OPENING = 1_000_000;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
afterEach(async () => {
  await h.services.db.update(providers).set({ feePercentage: '1.500', feeFixed: 0, payOutFeePercentage: '0', payOutFeeFixed: 0, settlementDelaySeconds: 0 });
  await expectLedgerBalanced(h.services.db);
});

async function webhookApp(): Promise<Tenant> {
  return h.createTenant({ application: { webhookUrl: 'https://merchant.example/hooks' } });
}

describe('pay-in SUCCESS', () => {
  it('credits the merchant amount − fee and the fee account the fee (1.5 % of 5 000 XAF = 75)', async () => {
    const t = await webhookApp();
    const before = await platformBalances(h);
    const reference = await chargeTo(h, t, 'SUCCESS');
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'SUCCESS', amount: 5000, feeAmount: 75, netAmount: 4925, refundedAmount: 0 });
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    const after = await platformBalances(h);
    expect(after.float - before.float).toBe(5000);
    expect(after.fees - before.fees).toBe(75);
    // The webhook announces the same figures.
    const row = await transactionRow(h, reference);
    const [event] = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id));
    expect(JSON.parse(event!.payload).data).toMatchObject({ status: 'SUCCESS', feeAmount: 75, netAmount: 4925 });
  });

  it('rounds the percentage half-up in base units: 1.5 % of 1 100 = 16.5 → 17, of 1 099 → 16', async () => {
    const t = await h.createTenant();
    const charge = async (amount: number) => {
      const created = expectSuccess(
        await h.request('POST', PATHS.charge, { key: t.key, body: { amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' } }),
        201,
      );
      await settle(h);
      return expectSuccess(await h.request('GET', PATHS.payInStatus(created.reference), { key: t.key }), 200);
    };
    expect(await charge(1100)).toMatchObject({ feeAmount: 17, netAmount: 1083 });
    expect(await charge(1099)).toMatchObject({ feeAmount: 16, netAmount: 1083 });
    expect((await tenantBalances(h, t)).available).toBe(OPENING + 1083 + 1083);
  });

  it('a FAILED pay-in moves no money and posts nothing', async () => {
    const t = await h.createTenant();
    const entriesBefore = (await verifyLedger(h.services.db)).entries;
    const reference = await chargeTo(h, t, 'FAILED');
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'FAILED', feeAmount: null, netAmount: null });
    expect((await verifyLedger(h.services.db)).entries).toBe(entriesBefore);
  });

  it("uses the merchant's fee override instead of the rail's", async () => {
    const t = await h.createTenant();
    await h.services.db.insert(merchantFeeOverrides).values({
      merchantId: t.merchantId,
      providerCode: 'MTN_MOMO_CM',
      direction: 'PAY_IN',
      feePercentage: '0.500',
      feeFixed: 10,
      updatedAt: h.clock.now(),
    });
    const reference = await chargeTo(h, t, 'SUCCESS');
    // 0.5 % of 5 000 = 25, + 10 fixed
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200)).toMatchObject({ feeAmount: 35, netAmount: 4965 });
  });

  it('a rail that holds funds credits PENDING, released to AVAILABLE by the background jobs after the delay', async () => {
    await h.services.db.update(providers).set({ settlementDelaySeconds: 3600 }).where(eq(providers.code, 'MTN_MOMO_CM'));
    const t = await h.createTenant();
    await chargeTo(h, t, 'SUCCESS');
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING, pending: 4925, reserved: 0 });
    h.clock.advance(3_599_000);
    await pollOnce(h.services);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING, pending: 4925, reserved: 0 });
    h.clock.advance(1000);
    await pollOnce(h.services);
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
    await pollOnce(h.services); // released once only
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING + 4925, pending: 0, reserved: 0 });
  });
});

describe('pay-outs are funded', () => {
  it('reserves amount + fee at acceptance and consumes the reservation on SUCCESS', async () => {
    await h.services.db.update(providers).set({ payOutFeePercentage: '1.000', payOutFeeFixed: 10 }).where(eq(providers.code, 'MTN_MOMO_CM'));
    const t = await h.createTenant();
    const before = await platformBalances(h);
    const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 2000 }) }), 201);
    // 1 % of 2 000 = 20, + 10 fixed: 2 030 reserved
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - 2030, pending: 0, reserved: 2030 });
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(created.reference), { key: t.key }), 200)).toMatchObject({
      status: 'PENDING',
      feeAmount: 30,
      netAmount: 2030,
    });
    await settle(h);
    expect((await transactionRow(h, created.reference)).status).toBe('SUCCESS');
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING - 2030, pending: 0, reserved: 0 });
    const after = await platformBalances(h);
    expect(after.float - before.float).toBe(-2000);
    expect(after.fees - before.fees).toBe(30);
  });

  it('releases the reservation when the pay-out fails', async () => {
    const t = await h.createTenant();
    const reference = await transferTo(h, t, 'FAILED');
    expect((await transactionRow(h, reference)).status).toBe('FAILED');
    expect(await tenantBalances(h, t)).toEqual({ available: OPENING, pending: 0, reserved: 0 });
  });

  it('refuses with 400 INSUFFICIENT_BALANCE (French) beyond the available balance, creating nothing; exactly the balance is accepted', async () => {
    const t = await h.createTenant();
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: OPENING - 5000 }) }), 201);
    const refused = await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 5001 }) });
    expectError(refused, 400, 'INSUFFICIENT_BALANCE');
    expect(refused.json.message).toMatch(/^Solde disponible insuffisant/);
    const [count] = await h.services.db.select({ n: sql<number>`count(*)::int` }).from(transactions).where(eq(transactions.applicationId, t.applicationId));
    expect(count!.n).toBe(1);
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 5000 }) }), 201);
    expect(await tenantBalances(h, t)).toEqual({ available: 0, pending: 0, reserved: OPENING });
    expectError(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 100 }) }), 400, 'INSUFFICIENT_BALANCE');
  });

  it('money collected is money that can be paid out', async () => {
    const t = await h.createTenant();
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: OPENING }) }), 201);
    await expect(chargeTo(h, t, 'SUCCESS')).resolves.toMatch(/^PI-/);
    // 4 925 collected: a pay-out of all of it is accepted, one franc more is not.
    expectError(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 4926 }) }), 400, 'INSUFFICIENT_BALANCE');
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 4925 }) }), 201);
    expect((await tenantBalances(h, t)).available).toBe(0);
  });
});

describe('the journal', () => {
  it('is append-only: the database refuses to change or delete a line or an entry', async () => {
    const t = await h.createTenant();
    await chargeTo(h, t, 'SUCCESS');
    await expect(h.services.db.execute(sql`update ledger_lines set amount = amount + 1`)).rejects.toThrow();
    await expect(h.services.db.execute(sql`delete from ledger_entries`)).rejects.toThrow();
  });

  it('a non-negative balance cannot be set below zero, even by hand', async () => {
    await expect(h.services.db.execute(sql`update ledger_accounts set balance = -1 where kind = 'AVAILABLE'`)).rejects.toThrow();
  });

  it('verify reports a balance that no longer matches its lines', async () => {
    const t = await h.createTenant();
    await chargeTo(h, t, 'SUCCESS');
    await h.services.db.execute(sql`update ledger_accounts set balance = balance + 1 where application_id = ${t.applicationId} and kind = 'AVAILABLE'`);
    const report = await verifyLedger(h.services.db);
    expect(report.ok).toBe(false);
    expect(report.discrepancies[0]).toMatchObject({ check: 'BALANCE' });
    expect(report.discrepancies[0]!.detail).toContain(t.applicationId);
    await h.services.db.execute(sql`update ledger_accounts set balance = balance - 1 where application_id = ${t.applicationId} and kind = 'AVAILABLE'`);
  });
});
