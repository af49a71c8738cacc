/**
 * Money through the dashboard API: ADMIN edits fees per rail and direction through the providers
 * routes and per merchant; `GET /api/v1/merchants/balance` and the dashboard's balance figures come
 * from the ledger.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { chargeBody, checkoutBody, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { chargeTo, settle } from '../helpers/webhooks.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

let h: Harness;
let admin: StaffAccount;
let merchant: DashboardAccount;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  merchant = await createDashboardAccount(h);
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

const as = (who: DashboardAccount, method: string, path: string, body?: unknown) => asAccount(h, who.accessToken, method, path, { body });

/** An application of the dashboard merchant with an active key. */
async function merchantApp(name: string, environment: 'TEST' | 'LIVE' = 'TEST'): Promise<Tenant> {
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name, currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment });
  return { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
}

describe('fees edited by ADMIN', () => {
  it('per rail and direction through the providers routes, in whole basis points', async () => {
    const list = await as(admin, 'GET', '/api/v1/admin/providers');
    const mtn = list.json.data.find((p: { code: string }) => p.code === 'MTN_MOMO_CM');
    expect(mtn).toMatchObject({ feePercentage: 1.5, feeFixed: 0, payOutFeePercentage: 0, payOutFeeFixed: 0, settlementDelaySeconds: 0 });
    const { id, createdAt: _c, updatedAt: _u, ...fields } = mtn;
    const tooFine = await as(admin, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields, payOutFeePercentage: 1.255 });
    expectError(tooFine, 400, 'VALIDATION_ERROR');
    expect(tooFine.json.data.payOutFeePercentage).toMatch(/deux décimales/);
    const updated = await as(admin, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields, feePercentage: 2, payOutFeePercentage: 1.25, payOutFeeFixed: 50 });
    expect(updated.json.data).toMatchObject({ feePercentage: 2, payOutFeePercentage: 1.25, payOutFeeFixed: 50 });
    expect((await as(merchant, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields, feePercentage: 0 })).status).toBe(403);

    const t = await merchantApp('Frais');
    const transfer = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 10_000 }) }), 201);
    // 1.25 % of 10 000 = 125, + 50
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(transfer.reference), { key: t.key }), 200)).toMatchObject({ feeAmount: 175, netAmount: 10_175 });
    const charge = await chargeTo(h, t, 'SUCCESS');
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(charge), { key: t.key }), 200)).toMatchObject({ feeAmount: 100, netAmount: 4900 });

    // A merchant override replaces the rail's fee for that merchant only.
    const set = await as(admin, 'PUT', `/api/v1/admin/merchants/${merchant.accountId}/fees`, {
      providerCode: 'MTN_MOMO_CM',
      direction: 'PAY_IN',
      feePercentage: 0.75,
      feeFixed: 0,
    });
    expect(set.status).toBe(200);
    expect((await as(admin, 'GET', `/api/v1/admin/merchants/${merchant.accountId}/fees`)).json.data).toMatchObject([
      { providerCode: 'MTN_MOMO_CM', direction: 'PAY_IN', feePercentage: 0.75, feeFixed: 0 },
    ]);
    const cheaper = await chargeTo(h, t, 'SUCCESS');
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(cheaper), { key: t.key }), 200)).toMatchObject({ feeAmount: 38, netAmount: 4962 });
    expect((await as(admin, 'DELETE', `/api/v1/admin/merchants/${merchant.accountId}/fees/MTN_MOMO_CM/PAY_IN`)).status).toBe(204);
    expect((await as(admin, 'DELETE', `/api/v1/admin/merchants/${merchant.accountId}/fees/MTN_MOMO_CM/PAY_IN`)).status).toBe(404);
    await as(admin, 'PUT', `/api/v1/admin/providers/${id}`, { ...fields });
  });
});

describe('balances from the ledger', () => {
  it('GET /api/v1/merchants/balance and the dashboard figures follow pay-ins and pay-outs', async () => {
    const fresh = await createDashboardAccount(h);
    const empty = await asAccount(h, fresh.accessToken, 'GET', '/api/v1/merchants/balance');
    expect(expectSuccess(empty, 200)).toEqual([]);

    const live = await as(merchant, 'GET', '/api/v1/merchants/balance?environment=LIVE');
    const liveXaf = expectSuccess(live, 200).find((b: { currency: string }) => b.currency === 'XAF');
    expect(liveXaf).toEqual({ availableAmount: 0, pendingAmount: 0, reservedAmount: 0, batchReservedAmount: 0, currency: 'XAF' });

    const t = await merchantApp('Soldes');
    const one = (await as(merchant, 'GET', `/api/v1/merchants/balance?environment=TEST&appId=${t.applicationId}`)).json.data;
    expect(one).toEqual([{ availableAmount: 1_000_000, pendingAmount: 0, reservedAmount: 0, batchReservedAmount: 0, currency: 'XAF' }]);
    await chargeTo(h, t, 'SUCCESS'); // +4 925
    expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 2000 }) }), 201);
    const after = (await as(merchant, 'GET', `/api/v1/merchants/balance?environment=TEST&appId=${t.applicationId}`)).json.data;
    expect(after).toEqual([{ availableAmount: 1_000_000 + 4925 - 2000, pendingAmount: 0, reservedAmount: 2000, batchReservedAmount: 0, currency: 'XAF' }]);

    // The balances count the pay-out; the day's figures and lists are of pay-ins only.
    const dashboard = expectSuccess(await as(merchant, 'GET', `/api/v1/merchants/dashboard?environment=TEST&appId=${t.applicationId}`), 200);
    expect(dashboard).toMatchObject({
      availableBalance: 1_000_000 + 4925 - 2000,
      pendingBalance: 0,
      currency: 'XAF',
      dailyVolume: 4925,
      todayTransactionCount: 1,
    });
    expect(dashboard.lastFiveTransactions).toHaveLength(1);
    expect(dashboard.lastFiveTransactions[0]).toMatchObject({ type: 'CHARGE', amount: 5000, feeAmount: 75, netAmount: 4925, appName: 'Soldes' });
    await settle(h);

    expectError(await as(merchant, 'GET', '/api/v1/merchants/balance?environment=PROD'), 400, 'INVALID_PARAMETER');
    expect((await h.request('GET', '/api/v1/merchants/balance', { key: t.key })).status).toBe(401);
  });
});

describe('the overview as SharePay’s dashboard reads it', () => {
  it('counts, sums and lists pay-ins only, net of fees, payers masked; pay-outs, withdrawals and refunds only move the balances', async () => {
    // A merchant with only TEST keys, read as SharePay's dashboard reads it: no environment, no application.
    const owner = await createDashboardAccount(h);
    const app = await createApplication(h.services, { merchantId: owner.accountId, name: 'Marché', currency: 'XAF' });
    const key = (await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' })).plainTextKey;
    const pay = async (body: Record<string, unknown>) => {
      const reference = expectSuccess(await h.request('POST', PATHS.charge, { key, body: chargeBody(body) }), 201).reference as string;
      await settle(h);
      return reference;
    };
    const yesterday = await pay({});
    h.clock.advance(86_400_000);
    Object.assign(owner, await login(h, owner.email, owner.password));
    const mine = (method: string, path: string, body?: unknown) => asAccount(h, owner.accessToken, method, path, { body });

    // Today: two paid charges (fees 75 and 120), a declined one, a checkout still open…
    const paid = await pay({});
    const paidMore = await pay({ amount: 8000, payerAccount: '237677004321' });
    const declined = await pay({ payerAccount: '237677000100' });
    const open = expectSuccess(await h.request('POST', PATHS.checkout, { key, body: checkoutBody() }), 201).reference as string;
    // …and money leaving, a second apart (lists are newest first): a transfer, a withdrawal and a
    // commercial gesture refunded on the first charge.
    h.clock.advance(1000);
    const transfer = expectSuccess(await h.request('POST', PATHS.transfer, { key, body: transferBody({ amount: 2000 }) }), 201).reference as string;
    h.clock.advance(1000);
    const withdrawal = expectSuccess(
      await mine('POST', '/api/v1/merchants/withdrawals/withdraw', {
        amount: 1000,
        currency: 'XAF',
        paymentMethod: 'MTN_MOMO_CM',
        beneficiaryAccount: '237677000001',
        beneficiaryName: 'Awa',
        description: 'Retrait',
        applicationId: app.id,
      }),
      201,
    ).reference as string;
    h.clock.advance(1000);
    const refund = expectSuccess(await mine('POST', `/api/v1/merchants/transactions/${paid}/refund`, { amount: 2000, reason: 'Geste commercial' }), 201).reference as string;
    await settle(h);
    const outs = expectSuccess(await mine('GET', '/api/v1/merchants/transactions-out'), 200).content;
    expect(outs.map((t: { reference: string; type: string; status: string }) => [t.reference, t.type, t.status])).toEqual([
      [refund, 'REFUND', 'SUCCESS'],
      [withdrawal, 'WITHDRAWAL', 'SUCCESS'],
      [transfer, 'PAYOUT', 'SUCCESS'],
    ]);

    const overview = expectSuccess(await mine('GET', '/api/v1/merchants/dashboard'), 200);
    // The balance is the ledger's: every pay-out, withdrawal and refund left it.
    const available = 1_000_000 + 4925 + 4925 + 7880 - 2000 - 1000 - 2000;
    expect(overview).toMatchObject({ availableBalance: available, pendingBalance: 0, currency: 'XAF' });
    expect(expectSuccess(await mine('GET', '/api/v1/merchants/balance'), 200)).toEqual([{ availableAmount: available, pendingAmount: 0, reservedAmount: 0, batchReservedAmount: 0, currency: 'XAF' }]);
    // Today's pay-ins, whatever their status; the volume of the paid ones net of fees (the refund does not reduce it).
    expect(overview.todayTransactionCount).toBe(4);
    expect(overview.dailyVolume).toBe(4925 + 7880);
    const rows = (list: { reference: string; type: string; direction: string; payerAccount: string | null }[]) =>
      list.map((t) => [t.reference, t.type, t.direction, t.payerAccount]);
    const today = [
      [open, 'CHECKOUT', 'PAY_IN', null],
      [declined, 'CHARGE', 'PAY_IN', '••••0100'],
      [paidMore, 'CHARGE', 'PAY_IN', '••••4321'],
      [paid, 'CHARGE', 'PAY_IN', '••••0001'],
    ];
    expect(rows(overview.todayTransactions)).toEqual(today);
    expect(rows(overview.lastFiveTransactions)).toEqual([...today, [yesterday, 'CHARGE', 'PAY_IN', '••••0001']]);
    expect(overview.lastFiveTransactions[3]).toMatchObject({ status: 'SUCCESS', amount: 5000, feeAmount: 75, netAmount: 4925, refundedAmount: 2000 });
    // Only the payer's number is masked: the transactions page shows it whole, the rest is the same item.
    const listed = expectSuccess(await mine('GET', '/api/v1/merchants/transactions'), 200).content;
    expect(listed.map((t: { reference: string }) => t.reference)).toEqual([open, declined, paidMore, paid, yesterday]);
    expect(listed[3].payerAccount).toBe('237677000001');
    for (const [i, item] of overview.lastFiveTransactions.entries()) expect(item).toEqual({ ...listed[i], payerAccount: item.payerAccount });

    // The chart sums net amounts: today's paid pay-ins add up to the overview's volume.
    const series = (chart: { series: { key: string; volumes: number[] }[] }, key: string) => chart.series.find((s) => s.key === key)?.volumes;
    const week = expectSuccess(await mine('GET', '/api/v1/merchants/transactions/chart?interval=LAST_7_DAYS&groupBy=STATUS'), 200);
    expect(series(week, 'SUCCESS')!.slice(-2)).toEqual([4925, 4925 + 7880]);
    // No fee is taken on a declined or open pay-in: its amount.
    expect(series(week, 'FAILED')!.at(-1)).toBe(5000);
    expect(series(week, 'PENDING')!.at(-1)).toBe(5000);
    const hours = expectSuccess(await mine('GET', '/api/v1/merchants/transactions/chart?interval=TODAY&groupBy=STATUS'), 200);
    expect(series(hours, 'SUCCESS')!.reduce((a, b) => a + b, 0)).toBe(overview.dailyVolume);
    // Pay-outs have their own chart: amount + fee, what left the balance.
    const out = expectSuccess(await mine('GET', '/api/v1/merchants/transactions/chart?interval=TODAY&groupBy=STATUS&direction=PAY_OUT'), 200);
    expect(series(out, 'SUCCESS')!.reduce((a, b) => a + b, 0)).toBe(2000 + 1000 + 2000);
  });
});

describe('OpenAPI', () => {
  it('describes every money route with its credential, summary and request fields', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    const bearer = [{ bearerAuth: [] }];
    const routes: [string, string][] = [
      ['get', '/api/v1/merchants/balance'],
      ['get', '/api/v1/merchants/dashboard'],
      ['post', '/api/v1/merchants/transactions/{reference}/refund'],
      ['get', '/api/v1/merchants/apps/{appId}/money-settings'],
      ['put', '/api/v1/merchants/apps/{appId}/money-settings'],
      ['get', '/api/v1/admin/merchants/{id}/fees'],
      ['put', '/api/v1/admin/merchants/{id}/fees'],
      ['delete', '/api/v1/admin/merchants/{id}/fees/{providerCode}/{direction}'],
      ['get', '/api/v1/merchants/withdrawals/accounts'],
      ['post', '/api/v1/merchants/withdrawals/accounts'],
      ['delete', '/api/v1/merchants/withdrawals/accounts/{id}'],
      ['patch', '/api/v1/merchants/withdrawals/accounts/{id}/default'],
      ['get', '/api/v1/merchants/withdrawals/config'],
      ['put', '/api/v1/merchants/withdrawals/config'],
      ['post', '/api/v1/merchants/withdrawals/withdraw'],
    ];
    for (const [method, path] of routes) {
      const operation = spec.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary).toBeTruthy();
      expect(operation.security).toEqual(bearer);
    }
    const refund = spec.paths['/api/v1/pay-in/refund'].post;
    expect(refund.security).toEqual([{ apiKey: [] }]);
    const schema = refund.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['amount', 'reason', 'reference']);
    expect(schema.required).toEqual(['reference']);
    const status = spec.paths['/api/v1/pay-in/check_status/{reference}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(status.properties.data.properties)).toEqual(expect.arrayContaining(['feeAmount', 'netAmount', 'refundedAmount']));
    const provider = spec.paths['/api/v1/admin/providers'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(provider.properties)).toEqual(expect.arrayContaining(['feePercentage', 'feeFixed', 'payOutFeePercentage', 'payOutFeeFixed', 'settlementDelaySeconds']));
  });
});
