/**
 * A transfer sent from the dashboard (POST /api/v1/merchants/apps/{appId}/transfer) through
 * real HTTP and the sandbox rail: the merchant API's transfer use case (same validation, fee,
 * reservation on the available balance, idempotency through the `Idempotency-Key` header), for
 * the logged-in merchant's own application only. Credentials and roles are also in the shared
 * security suite (security.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, loginStaff, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { countTransactions, expectError, expectSuccess, expectValidationError, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { chargeTo, settle } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let other: DashboardAccount;
let admin: StaffAccount;
let shop: Tenant;

const transfer = (who: DashboardAccount, appId: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  asAccount(h, who.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/transfer`, {
    body,
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });
const balance = async () => {
  const lines = expectSuccess(await asAccount(h, merchant.accessToken, 'GET', '/api/v1/merchants/balance'), 200) as { currency: string; availableAmount: number; reservedAmount: number }[];
  return lines.find((l) => l.currency === 'XAF')!;
};
const detail = async (reference: string) => expectSuccess(await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/transactions-out/${reference}`), 200);

beforeAll(async () => {
  // No sandbox opening balance: the payments below are all there is to send from.
  h = await startHarness({ ...DASHBOARD_TEST_ENV, SANDBOX_OPENING_BALANCE: '0' });
  merchant = await createDashboardAccount(h);
  other = await createDashboardAccount(h);
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
  for (let i = 0; i < 4; i++) await chargeTo(h, shop, 'SUCCESS');
  // Past any settlement delay: the payments are available.
  h.clock.advance(7 * 86_400_000);
  await settle(h);
  // Days have passed on the manual clock: log in again.
  merchant = { ...merchant, ...(await loginAgain(merchant)) };
  other = { ...other, ...(await loginAgain(other)) };
  admin = { ...admin, ...(await loginStaff(h, admin)) };
});
afterAll(async () => h?.close());

async function loginAgain(who: DashboardAccount) {
  const response = await h.request('POST', '/api/v1/auth/login', { body: { email: who.email, password: who.password } });
  return { accessToken: response.json.data.accessToken as string };
}

describe('a transfer from the dashboard', () => {
  it('sends from the available balance, with the same fee as the merchant API, reserved until it settles', async () => {
    const before = await balance();
    expect(before.availableAmount).toBeGreaterThan(5000);
    const data = expectSuccess(await transfer(merchant, shop.applicationId, transferBody({ amount: 3000, beneficiaryAccount: '237677000061', description: 'Fournisseur' }), 'form-1'), 201);
    expect(data).toMatchObject({ status: 'PENDING', amount: 3000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000061', description: 'Fournisseur' });
    const fee = (await detail(data.reference)).feeAmount as number;
    const after = await balance();
    expect(after.availableAmount).toBe(before.availableAmount - 3000 - fee);
    expect(after.reservedAmount).toBe(before.reservedAmount + 3000 + fee);

    // The merchant API charges the same fee for the same transfer.
    const viaApi = expectSuccess(await h.request('POST', PATHS.transfer, { key: shop.key, body: transferBody({ amount: 3000, beneficiaryAccount: '237677000062' }) }), 201);
    expect((await detail(viaApi.reference)).feeAmount).toBe(fee);

    await settle(h);
    expect(await detail(data.reference)).toMatchObject({ status: 'SUCCESS', direction: 'PAY_OUT', applicationId: shop.applicationId });
    expect((await balance()).reservedAmount).toBe(before.reservedAmount);
  });

  it("quotes the fee before sending: the merchant's own pay-out fee, exactly what the transfer then takes", async () => {
    const fee = (query: string, who = merchant) => asAccount(h, who.accessToken, 'GET', `/api/v1/merchants/apps/${shop.applicationId}/transfer/fee?${query}`);
    const set = await asAccount(h, admin.accessToken, 'PUT', `/api/v1/admin/merchants/${merchant.accountId}/fees`, {
      body: { providerCode: 'MTN_MOMO_CM', direction: 'PAY_OUT', feePercentage: 2, feeFixed: 50 },
    });
    expect(set.status).toBe(200);
    const quote = expectSuccess(await fee('amount=3000&currency=XAF&paymentMethod=MTN_MOMO_CM'), 200);
    expect(quote).toEqual({ amount: 3000, feeAmount: 110, totalAmount: 3110, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM' });
    const before = await balance();
    const sent = expectSuccess(await transfer(merchant, shop.applicationId, transferBody({ amount: 3000, beneficiaryAccount: '237677000064' })), 201);
    expect((await detail(sent.reference)).feeAmount).toBe(110);
    expect((await balance()).availableAmount).toBe(before.availableAmount - 3110);
    await settle(h);
    expect((await asAccount(h, admin.accessToken, 'DELETE', `/api/v1/admin/merchants/${merchant.accountId}/fees/MTN_MOMO_CM/PAY_OUT`)).status).toBeLessThan(300);

    // The rail's checks, as for the transfer itself.
    expectError(await fee('amount=10&currency=XAF&paymentMethod=MTN_MOMO_CM'), 400, 'AMOUNT_BELOW_MINIMUM');
    expectError(await fee('amount=1000&currency=XAF&paymentMethod=NOPE_CM'), 404, 'PROVIDER_NOT_FOUND');
    expectError(await fee('amount=1000&currency=XOF&paymentMethod=MTN_MOMO_CM'), 400, 'CURRENCY_MISMATCH');
    expect((await fee('amount=abc&currency=XAF&paymentMethod=MTN_MOMO_CM')).status).toBe(400);
    expectError(await fee('amount=1000&currency=XAF&paymentMethod=MTN_MOMO_CM', other), 404, 'APP_NOT_FOUND');
  });

  it('sends once for one Idempotency-Key, and refuses the key with another request', async () => {
    const count = await countTransactions(h, shop.applicationId);
    const body = transferBody({ amount: 1000, beneficiaryAccount: '237677000063' });
    const first = expectSuccess(await transfer(merchant, shop.applicationId, body, 'form-2'), 201);
    const again = expectSuccess(await transfer(merchant, shop.applicationId, body, 'form-2'), 201);
    expect(again.reference).toBe(first.reference);
    expect(await countTransactions(h, shop.applicationId)).toBe(count + 1);
    expectError(await transfer(merchant, shop.applicationId, { ...body, amount: 1001 }, 'form-2'), 409, 'IDEMPOTENCY_KEY_REUSED');
    expectValidationError(await transfer(merchant, shop.applicationId, body, 'x'.repeat(101)), ['Idempotency-Key']);
    await settle(h);
  });

  it('refuses more than the available balance with INSUFFICIENT_BALANCE, writing and sending nothing', async () => {
    const count = await countTransactions(h, shop.applicationId);
    const { availableAmount } = await balance();
    expectError(await transfer(merchant, shop.applicationId, transferBody({ amount: availableAmount + 1 }), 'form-3'), 400, 'INSUFFICIENT_BALANCE');
    expect(await countTransactions(h, shop.applicationId)).toBe(count);
    expect((await balance()).availableAmount).toBe(availableAmount);
  });

  it('validates as the merchant API does', async () => {
    expectValidationError(await transfer(merchant, shop.applicationId, transferBody({ beneficiaryName: undefined, amount: 0 })), ['amount', 'beneficiaryName']);
    expectValidationError(await transfer(merchant, shop.applicationId, transferBody({ beneficiaryAccount: 'pas un numéro' })), ['beneficiaryAccount']);
    expectError(await transfer(merchant, shop.applicationId, transferBody({ paymentMethod: 'NOPE_CM' })), 404, 'PROVIDER_NOT_FOUND');
    expectError(await transfer(merchant, shop.applicationId, transferBody({ currency: 'XOF' })), 400, 'CURRENCY_MISMATCH');
    expectValidationError(await transfer(merchant, shop.applicationId, transferBody({ environment: 'SANDBOX' })), ['environment']);
  });

  it("only from the merchant's own application: another merchant gets 404, staff 403", async () => {
    const count = await countTransactions(h, shop.applicationId);
    expectError(await transfer(other, shop.applicationId, transferBody({ amount: 500 })), 404, 'APP_NOT_FOUND');
    expectError(await transfer(admin, shop.applicationId, transferBody({ amount: 500 })), 403, 'ACCESS_DENIED');
    expect(await countTransactions(h, shop.applicationId)).toBe(count);
  });
});
