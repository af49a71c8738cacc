/**
 * A transaction's detail on the dashboard says whether the merchant may refund it now
 * (`isRefundable`) and how much remains refundable (`refundableAmount`), by the refund's own rule:
 * a SUCCESS pay-in, its amount less the refunds that count (pending or paid), a payer and an
 * active rail. Where it says no, the refund route refuses; where it says yes, the route accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo, settle, transferTo } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let admin: StaffAccount;
let shop: Tenant;

const detail = async (reference: string) => expectSuccess(await asAccount(h, merchant.accessToken, 'GET', `/api/v1/merchants/transactions/${reference}`), 200);
const refund = (reference: string, body: Record<string, unknown>) => asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/transactions/${reference}/refund`, { body });

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h);
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
}, 60_000);
afterAll(async () => h?.close());

describe('isRefundable and refundableAmount', () => {
  it('follow the refunds of a paid pay-in: all of it, what remains, then nothing', async () => {
    const payment = await chargeTo(h, shop, 'SUCCESS');
    expect(await detail(payment)).toMatchObject({ status: 'SUCCESS', isRefundable: true, refundableAmount: 5000, refundedAmount: 0 });

    expectSuccess(await refund(payment, { amount: 1500 }), 201);
    // Pending, the refund already counts: it may still pay.
    expect(await detail(payment)).toMatchObject({ isRefundable: true, refundableAmount: 3500, refundedAmount: 0 });
    await settle(h);
    expect(await detail(payment)).toMatchObject({ isRefundable: true, refundableAmount: 3500, refundedAmount: 1500 });
    expectError(await refund(payment, { amount: 3501 }), 400, 'REFUND_AMOUNT_EXCEEDED');

    expectSuccess(await refund(payment, {}), 201);
    expect(await detail(payment)).toMatchObject({ status: 'SUCCESS', isRefundable: false, refundableAmount: 0 });
    expectError(await refund(payment, { amount: 1 }), 400, 'REFUND_AMOUNT_EXCEEDED');
    await settle(h);
    expect(await detail(payment)).toMatchObject({ status: 'REFUNDED', isRefundable: false, refundableAmount: 0, refundedAmount: 5000 });
    expectError(await refund(payment, {}), 400, 'REFUND_NOT_ALLOWED');
  });

  it('are false and 0 for a declined pay-in and for a pay-out', async () => {
    const declined = await chargeTo(h, shop, 'FAILED');
    expect(await detail(declined)).toMatchObject({ status: 'FAILED', isRefundable: false, refundableAmount: 0 });
    expectError(await refund(declined, {}), 400, 'REFUND_NOT_ALLOWED');
    const payout = await transferTo(h, shop, 'SUCCESS');
    expect(await detail(payout)).toMatchObject({ direction: 'PAY_OUT', isRefundable: false, refundableAmount: 0 });
  });

  it('say no while the rail is off, yet keep what remains', async () => {
    const payment = await chargeTo(h, shop, 'SUCCESS');
    const rails = expectSuccess(await asAccount(h, admin.accessToken, 'GET', '/api/v1/admin/providers'), 200);
    const rail = rails.find((r: { code: string }) => r.code === 'MTN_MOMO_CM');
    const toggle = () => asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/providers/${rail.id}/toggle`);
    expect(expectSuccess(await toggle(), 200)).toMatchObject({ active: false });
    try {
      expect(await detail(payment)).toMatchObject({ isRefundable: false, refundableAmount: 5000 });
      expectError(await refund(payment, {}), 404, 'PROVIDER_NOT_FOUND');
    } finally {
      expect(expectSuccess(await toggle(), 200)).toMatchObject({ active: true });
    }
    expect(await detail(payment)).toMatchObject({ isRefundable: true, refundableAmount: 5000 });
  });

  it('come with the answer of a status check too', async () => {
    const payment = await chargeTo(h, shop, 'SUCCESS');
    const checked = expectSuccess(await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/transactions/${payment}/status-check`), 200);
    expect(checked).toMatchObject({ reference: payment, isRefundable: true, refundableAmount: 5000 });
  });
});
