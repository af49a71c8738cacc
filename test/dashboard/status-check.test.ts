/**
 * "Ask the operator now" (POST /api/v1/merchants/transactions/{transactionId}/status-check)
 * through real HTTP, the sandbox rail and the manual clock: a PENDING charge, transfer or
 * checkout of the merchant is asked about at once and moves when the operator has a final
 * answer; an ambiguous answer (unreachable, still pending) leaves it PENDING and its money
 * where it was; a final transaction answers as is; a second check within the interval is 429.
 * Ownership, roles and credentials are in the shared security suite (security.test.ts).
 */
import { like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authThrottle } from '../../src/db/schema-dashboard.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { STATUS_CHECK_INTERVAL_MS } from '../../src/dashboard/status-check.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { chargeBody, checkoutBody, expectError, expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { chargeTo, settle } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let other: DashboardAccount;
let shop: Tenant;

const check = (who: DashboardAccount, key: string) => asAccount(h, who.accessToken, 'POST', `/api/v1/merchants/transactions/${key}/status-check`);
const balance = async () => {
  const lines = expectSuccess(await asAccount(h, merchant.accessToken, 'GET', '/api/v1/merchants/balance'), 200) as { currency: string; availableAmount: number; pendingAmount: number; reservedAmount: number }[];
  return lines.find((l) => l.currency === 'XAF')!;
};
/** A charge left PENDING (initiated, not yet asked about) from `payerAccount`. */
async function pendingCharge(payerAccount: string): Promise<string> {
  return expectSuccess(await h.request('POST', PATHS.charge, { key: shop.key, body: chargeBody({ payerAccount }) }), 201).reference;
}
const afterInterval = () => h.clock.advance(Math.max(STATUS_CHECK_INTERVAL_MS, h.config.sandboxDelayMs) + 1000);

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h);
  other = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
  // Some money to send from.
  await chargeTo(h, shop, 'SUCCESS');
  await chargeTo(h, shop, 'SUCCESS');
});
afterAll(async () => h?.close());

describe('asking the operator now about a pending transaction', () => {
  it('a charge: still pending at first, then SUCCESS once the operator says so; a second ask too soon is 429', async () => {
    const reference = await pendingCharge('237677000011');
    const first = expectSuccess(await check(merchant, reference), 200);
    expect(first).toMatchObject({ reference, status: 'PENDING' });

    const tooSoon = expectError(await check(merchant, reference), 429, 'TOO_MANY_REQUESTS');
    expect(tooSoon).toBeNull();
    const again = await check(merchant, reference);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(again.json.message).toMatch(/Réessayez dans \d+ seconde/);

    const before = await balance();
    afterInterval();
    const answered = expectSuccess(await check(merchant, reference), 200);
    expect(answered).toMatchObject({ reference, status: 'SUCCESS' });
    expect(answered.completedAt).not.toBeNull();
    expect(answered.events.map((e: { toStatus: string; cause: string }) => `${e.toStatus}:${e.cause}`)).toContain('SUCCESS:POLL');
    // The money moved as when the poller applies it.
    const after = await balance();
    expect(after.availableAmount + after.pendingAmount).toBeGreaterThan(before.availableAmount + before.pendingAmount);
    // The merchant API sees the same.
    expect(expectSuccess(await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: shop.key }), 200).status).toBe('SUCCESS');
    // Its check slot is gone with it: nothing is kept for a transaction that has ended.
    expect(await h.services.db.select().from(authThrottle).where(like(authThrottle.key, `status-check:${answered.id}`))).toEqual([]);
  });

  it('a declined charge fails with the operator reason', async () => {
    const reference = await pendingCharge('237677000100');
    afterInterval();
    const answered = expectSuccess(await check(merchant, reference), 200);
    expect(answered).toMatchObject({ status: 'FAILED', failureCode: 'REJECTED_BY_PAYER' });
  });

  it('an unreachable operator or one with no final answer leaves it PENDING, and a pay-out keeps its reservation', async () => {
    const unreachable = await pendingCharge('237677000197');
    const never = await pendingCharge('237677000199');
    afterInterval();
    expect(expectSuccess(await check(merchant, unreachable), 200).status).toBe('PENDING');
    expect(expectSuccess(await check(merchant, never), 200).status).toBe('PENDING');

    const transfer = expectSuccess(
      await h.request('POST', PATHS.transfer, {
        key: shop.key,
        body: { amount: 1000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000197', beneficiaryName: 'Awa' },
      }),
      201,
    ).reference as string;
    const reserved = (await balance()).reservedAmount;
    expect(reserved).toBeGreaterThanOrEqual(1000);
    afterInterval();
    expect(expectSuccess(await check(merchant, transfer), 200).status).toBe('PENDING');
    expect((await balance()).reservedAmount).toBe(reserved);
  });

  it('a pay-out (by its id) succeeds and releases its reservation', async () => {
    const transfer = expectSuccess(
      await h.request('POST', PATHS.transfer, {
        key: shop.key,
        body: { amount: 1500, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000021', beneficiaryName: 'Awa' },
      }),
      201,
    ).reference as string;
    const id = expectSuccess(await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/transactions-out/${transfer}`), 200).id as string;
    const reserved = (await balance()).reservedAmount;
    afterInterval();
    expect(expectSuccess(await check(merchant, id), 200)).toMatchObject({ reference: transfer, status: 'SUCCESS' });
    expect((await balance()).reservedAmount).toBe(reserved - 1500 - (await feeOf(transfer)));
  });

  it('a checkout without a payment attempt stays PENDING (its own refresh)', async () => {
    const reference = expectSuccess(await h.request('POST', PATHS.checkout, { key: shop.key, body: checkoutBody() }), 201).reference as string;
    expect(expectSuccess(await check(merchant, reference), 200)).toMatchObject({ reference, status: 'PENDING', type: 'CHECKOUT' });
  });

  it('a final transaction answers as is, as often as asked', async () => {
    const reference = await chargeTo(h, shop, 'SUCCESS');
    for (let i = 0; i < 3; i++) {
      const response = await check(merchant, reference);
      expect(expectSuccess(response, 200)).toMatchObject({ reference, status: 'SUCCESS' });
      expect(response.json.message).toBe('Transaction déjà terminée : rien à demander.');
    }
  });

  it("another merchant's transaction is 404 like an unknown one, and is not asked about", async () => {
    const reference = await pendingCharge('237677000031');
    afterInterval();
    expectError(await check(other, reference), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await check(merchant, 'PI-FFFFFFFFFFFF'), 404, 'TRANSACTION_NOT_FOUND');
    // Not checked by the refused call: the owner's check runs at once.
    expect(expectSuccess(await check(merchant, reference), 200).status).toBe('SUCCESS');
    await settle(h);
  });
});

/** The fee of a transaction, read through the dashboard. */
async function feeOf(reference: string): Promise<number> {
  return expectSuccess(await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/transactions-out/${reference}`), 200).feeAmount as number;
}
