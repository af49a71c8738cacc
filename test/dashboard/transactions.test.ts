/**
 * Transactions through the dashboard API: lists of pay-ins and pay-outs with paging and every
 * filter, stats, detail by id and reference with the event history, the admin family (ADMIN and
 * SUPPORT read any merchant; a MERCHANT is refused), the streamed CSV export, the chart, the
 * overview and the rails offered to merchants. Payments are made through the real merchant API and
 * the sandbox rail; only the bulk rows of the export test, a fund-collection pay-in (whose creation
 * belongs to another feature) and a LIVE pay-in are inserted directly. The merchant's data is TEST
 * only, so every route reads TEST by default.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { transactions } from '../../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, loginStaff, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';
import { checkoutBody, chargeBody, expectError, expectSuccess, PATHS, TIMESTAMP } from '../helpers/merchant-api.ts';
import { chargeTo, settle, transferTo } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let other: DashboardAccount;
let admin: StaffAccount;
let support: StaffAccount;
let shop: Tenant;
let gifts: Tenant;
let foreign: Tenant;
/** References by role in the data set. */
const refs = {} as Record<'paid' | 'declined' | 'checkout' | 'payout' | 'orange' | 'fc' | 'foreign', string>;
let fcId: string;
/** A merchant without any application. */
let createdLater: DashboardAccount | undefined;

const as = (who: DashboardAccount, path: string) => asAccount(h, who.accessToken, 'GET', path);
const M = '/api/v1/merchants';

async function merchantApp(owner: DashboardAccount, name: string): Promise<Tenant> {
  const app = await createApplication(h.services, { merchantId: owner.accountId, name, currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  return { merchantId: owner.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
}

const DAY = 86_400_000;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  merchant = await createDashboardAccount(h);
  other = await createDashboardAccount(h);
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  createdLater = await createDashboardAccount(h);
  shop = await merchantApp(merchant, 'Boutique');
  gifts = await merchantApp(merchant, 'Dons');
  foreign = await merchantApp(other, 'Ailleurs');

  // Day 1 (2026-11-20, UTC): a paid charge, a declined one.
  refs.paid = await chargeTo(h, shop, 'SUCCESS', 'CMD-Alpha-1');
  refs.declined = await chargeTo(h, shop, 'FAILED', 'CMD-beta-2');
  // Day 2: a pending checkout, a transfer and an Orange Money charge on the second application.
  h.clock.advance(DAY);
  refs.checkout = expectSuccess(await h.request('POST', PATHS.checkout, { key: shop.key, body: checkoutBody({ merchantReference: 'CMD-42' }) }), 201).reference;
  h.clock.advance(1000);
  refs.payout = await transferTo(h, shop, 'SUCCESS');
  refs.orange = expectSuccess(
    await h.request('POST', PATHS.charge, { key: gifts.key, body: chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237690000001' }) }),
    201,
  ).reference;
  await settle(h);
  // A fund-collection pay-in (created by the fund-collection feature: inserted here as such).
  fcId = randomUUID();
  refs.fc = 'FC-0A1B2C3D4E5F';
  const now = h.clock.now();
  await h.services.db.insert(transactions).values({
    id: fcId,
    reference: refs.fc,
    applicationId: gifts.applicationId,
    direction: 'PAY_IN',
    type: 'FUND_COLLECTION',
    environment: 'TEST',
    status: 'SUCCESS',
    amount: 10_000,
    feeAmount: 150,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    payerAccount: '237677000009',
    payerName: 'Donatrice',
    createdAt: new Date(now.getTime() + 1000),
    updatedAt: new Date(now.getTime() + 1000),
  });
  h.clock.advance(2000);
  refs.foreign = await chargeTo(h, foreign, 'SUCCESS');
  // The clock moved a day: log everybody in again (access tokens last minutes).
  for (const account of [merchant, other, createdLater!]) Object.assign(account, await login(h, account.email, account.password));
  for (const account of [admin, support]) Object.assign(account, await loginStaff(h, account));
});
afterAll(async () => h?.close());

const references = (data: { content: { reference: string }[] }) => data.content.map((t) => t.reference);

describe('lists', () => {
  it('pay-ins newest first with every field the dashboard reads, paged with number and page', async () => {
    const data = expectSuccess(await as(merchant, `${M}/transactions-in`), 200);
    expect(references(data)).toEqual([refs.fc, refs.orange, refs.checkout, refs.declined, refs.paid]);
    expect(data).toMatchObject({ totalElements: 5, totalPages: 1, size: 20, number: 0, page: 0, first: true, last: true });
    const paid = data.content.find((t: { reference: string }) => t.reference === refs.paid);
    expect(paid).toMatchObject({
      reference: refs.paid,
      merchantReference: 'CMD-Alpha-1',
      type: 'CHARGE',
      direction: 'PAY_IN',
      environment: 'TEST',
      amount: 5000,
      feeAmount: 75,
      netAmount: 4925,
      currency: 'XAF',
      status: 'SUCCESS',
      provider: 'MTN_MOMO_CM',
      payerAccount: '237677000001',
      appName: 'Boutique',
      applicationId: shop.applicationId,
    });
    for (const field of ['id', 'description', 'payerName', 'payerEmail', 'createdAt', 'updatedAt']) expect(paid).toHaveProperty(field);
    expect(paid.createdAt).toMatch(TIMESTAMP);
    const pending = data.content.find((t: { reference: string }) => t.reference === refs.checkout);
    expect(pending).toMatchObject({ type: 'CHECKOUT', status: 'PENDING', feeAmount: null, netAmount: null });

    const page1 = expectSuccess(await as(merchant, `${M}/transactions-in?page=1&size=2`), 200);
    expect(references(page1)).toEqual([refs.checkout, refs.declined]);
    expect(page1).toMatchObject({ totalElements: 5, totalPages: 3, size: 2, number: 1, page: 1, first: false, last: false });
  });

  it('pay-outs; pay-ins under transactions unless direction says PAY_OUT or ALL; another merchant sees none of them', async () => {
    const out = expectSuccess(await as(merchant, `${M}/transactions-out`), 200);
    expect(references(out)).toEqual([refs.payout]);
    expect(out.content[0]).toMatchObject({ type: 'PAYOUT', direction: 'PAY_OUT', amount: 2000, payerName: 'Awa Mbarga', appName: 'Boutique' });
    const payIns = [refs.fc, refs.orange, refs.checkout, refs.declined, refs.paid];
    expect(references(expectSuccess(await as(merchant, `${M}/transactions`), 200))).toEqual(payIns);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?direction=PAY_IN`), 200))).toEqual(payIns);
    const all = expectSuccess(await as(merchant, `${M}/transactions?direction=ALL`), 200);
    expect(references(all)).toEqual([refs.fc, refs.orange, refs.payout, refs.checkout, refs.declined, refs.paid]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?direction=PAY_OUT`), 200))).toEqual([refs.payout]);
    // The same default for its stats and its export.
    expect(expectSuccess(await as(merchant, `${M}/transactions/stats`), 200).total).toBe(5);
    expect(expectSuccess(await as(merchant, `${M}/transactions/stats?direction=ALL`), 200).total).toBe(6);
    const csv = (query: string) => as(merchant, `${M}/transactions/export${query}`).then((r) => r.text.trim().split('\r\n').slice(1).map((l) => l.split(',')[1]));
    expect(await csv('')).toEqual(payIns);
    expect(await csv('?direction=ALL')).toEqual(references(all));
    expect(references(expectSuccess(await as(other, `${M}/transactions`), 200))).toEqual([refs.foreign]);
    // Staff own no application: their own lists are empty (they use the admin routes).
    expect(expectSuccess(await as(admin, `${M}/transactions`), 200).content).toEqual([]);
  });

  it('filters by status', async () => {
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?status=FAILED`), 200))).toEqual([refs.declined]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?status=PENDING`), 200))).toEqual([refs.checkout]);
  });

  it('filters by type, FUND_COLLECTION included', async () => {
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?type=CHECKOUT`), 200))).toEqual([refs.checkout]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?type=FUND_COLLECTION`), 200))).toEqual([refs.fc]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?type=CHARGE`), 200))).toEqual([refs.orange, refs.declined, refs.paid]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?direction=ALL&type=PAYOUT`), 200))).toEqual([refs.payout]);
    expect(expectSuccess(await as(merchant, `${M}/transactions-in?type=PAYOUT`), 200).content).toEqual([]);
  });

  it('filters by application', async () => {
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-in?appId=${gifts.applicationId}`), 200))).toEqual([refs.fc, refs.orange]);
  });

  it('filters by date range (a date alone covers its whole day)', async () => {
    const day1 = expectSuccess(await as(merchant, `${M}/transactions?direction=ALL&from=2026-11-20&to=2026-11-20`), 200);
    expect(references(day1)).toEqual([refs.declined, refs.paid]);
    const day2 = expectSuccess(await as(merchant, `${M}/transactions?direction=ALL&from=2026-11-21`), 200);
    expect(references(day2)).toEqual([refs.fc, refs.orange, refs.payout, refs.checkout]);
    const before = expectSuccess(await as(merchant, `${M}/transactions?direction=ALL&to=2026-11-19`), 200);
    expect(before.content).toEqual([]);
    const instant = expectSuccess(await as(merchant, `${M}/transactions?direction=ALL&from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z`), 200);
    expect(references(instant)).toEqual([refs.fc, refs.orange, refs.payout, refs.checkout]);
  });

  it('filters by provider', async () => {
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?provider=ORANGE_MONEY_CM`), 200))).toEqual([refs.orange]);
  });

  it('searches our reference and the merchant reference, case-insensitively, wildcards literal', async () => {
    const fragment = refs.paid.slice(3, 9).toLowerCase();
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?search=${fragment}`), 200))).toContain(refs.paid);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?search=cmd-alpha`), 200))).toEqual([refs.paid]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?search=CMD-BETA`), 200))).toEqual([refs.declined]);
    expect(expectSuccess(await as(merchant, `${M}/transactions?search=CMD%25`), 200).content).toEqual([]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?search=${refs.fc}`), 200))).toEqual([refs.fc]);
    // A whole reference, any case, is looked up exactly.
    expect(references(expectSuccess(await as(merchant, `${M}/transactions?search=${refs.paid.toLowerCase()}`), 200))).toEqual([refs.paid]);
    expect(expectSuccess(await as(merchant, `${M}/transactions?search=${refs.foreign}`), 200).content).toEqual([]);
  });

  it('filters by environment', async () => {
    expect(expectSuccess(await as(merchant, `${M}/transactions?environment=LIVE`), 200).content).toEqual([]);
    expect(expectSuccess(await as(merchant, `${M}/transactions?environment=TEST`), 200).totalElements).toBe(5);
  });

  it('combines filters', async () => {
    const data = expectSuccess(await as(merchant, `${M}/transactions-in?status=SUCCESS&appId=${shop.applicationId}&from=2026-11-20&provider=MTN_MOMO_CM`), 200);
    expect(references(data)).toEqual([refs.paid]);
  });

  it('refuses bad filters with 400 INVALID_PARAMETER naming the field', async () => {
    const cases: [string, string][] = [
      ['status=PAID', 'status'],
      ['type=GIFT', 'type'],
      ['appId=abc', 'appId'],
      ['from=2026-13-01', 'from'],
      ['from=2026-02-31', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-11-21&to=2026-11-20', 'to'],
      ['provider=mtn', 'provider'],
      [`search=${'x'.repeat(65)}`, 'search'],
      ['environment=PROD', 'environment'],
      ['size=101', 'size'],
      ['page=-1', 'page'],
      ['direction=SIDEWAYS', 'direction'],
    ];
    for (const [query, field] of cases) {
      const response = await as(merchant, `${M}/transactions?${query}`);
      const data = expectError(response, 400, 'INVALID_PARAMETER');
      expect(Object.keys(data ?? {}), `${query}: ${response.text}`).toContain(field);
    }
  });

  it("another merchant's application answers 404 APP_NOT_FOUND, like an unknown one", async () => {
    expectError(await as(merchant, `${M}/transactions?appId=${foreign.applicationId}`), 404, 'APP_NOT_FOUND');
    expectError(await as(merchant, `${M}/transactions-in/stats?appId=${randomUUID()}`), 404, 'APP_NOT_FOUND');
  });
});

describe('stats', () => {
  it('counts by status and volumes, with the same filters', async () => {
    expect(expectSuccess(await as(merchant, `${M}/transactions-in/stats`), 200)).toEqual({
      total: 5,
      successCount: 3,
      pendingCount: 1,
      failedCount: 1,
      cancelledCount: 0,
      refundedCount: 0,
      totalVolume: 5000 * 4 + 10_000,
      successVolume: 5000 * 2 + 10_000,
    });
    expect(expectSuccess(await as(merchant, `${M}/transactions-out/stats`), 200)).toMatchObject({ total: 1, successCount: 1, successVolume: 2000 });
    expect(expectSuccess(await as(merchant, `${M}/transactions-in/stats?appId=${gifts.applicationId}&environment=TEST`), 200)).toMatchObject({
      total: 2,
      successCount: 2,
    });
    expect(expectSuccess(await as(merchant, `${M}/transactions-in/stats?environment=LIVE`), 200)).toMatchObject({ total: 0 });
    expect(expectSuccess(await as(merchant, `${M}/transactions/stats?direction=PAY_OUT`), 200)).toMatchObject({ total: 1 });
    expectError(await as(merchant, `${M}/transactions-in/stats?status=NOPE`), 400, 'INVALID_PARAMETER');
  });
});

describe('detail', () => {
  it('by id and by reference, with the event history oldest first', async () => {
    const byRef = expectSuccess(await as(merchant, `${M}/transactions-in/${refs.paid}`), 200);
    expect(byRef).toMatchObject({ reference: refs.paid, status: 'SUCCESS', feeAmount: 75, netAmount: 4925, appName: 'Boutique' });
    expect(byRef.events.length).toBeGreaterThanOrEqual(2);
    expect(byRef.events[0]).toMatchObject({ fromStatus: null, toStatus: 'PENDING' });
    expect(byRef.events.at(-1)).toMatchObject({ fromStatus: 'PENDING', toStatus: 'SUCCESS' });
    expect(byRef.events.every((e: { detail: unknown }) => e.detail === null)).toBe(true);
    const byId = expectSuccess(await as(merchant, `${M}/transactions/${byRef.id}`), 200);
    expect({ ...byId }).toEqual(byRef);
    const declined = expectSuccess(await as(merchant, `${M}/transactions/${refs.declined}`), 200);
    expect(declined).toMatchObject({ status: 'FAILED', failureCode: expect.any(String) });
    expect(expectSuccess(await as(merchant, `${M}/transactions-out/${refs.payout}`), 200)).toMatchObject({ type: 'PAYOUT' });
    expect(expectSuccess(await as(merchant, `${M}/transactions-in/${fcId}`), 200)).toMatchObject({ type: 'FUND_COLLECTION', reference: refs.fc });
  });

  it('404 TRANSACTION_NOT_FOUND for another merchant’s, an unknown one or the wrong direction; 400 for a malformed key', async () => {
    const foreignRow = expectSuccess(await as(other, `${M}/transactions/${refs.foreign}`), 200);
    const theirs = await as(merchant, `${M}/transactions/${foreignRow.id}`);
    const unknown = await as(merchant, `${M}/transactions/${randomUUID()}`);
    expectError(theirs, 404, 'TRANSACTION_NOT_FOUND');
    expect({ ...theirs.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });
    expectError(await as(merchant, `${M}/transactions/${refs.foreign}`), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await as(merchant, `${M}/transactions-out/${refs.paid}`), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await as(merchant, `${M}/transactions-in/${refs.payout}`), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await as(merchant, `${M}/transactions/not-an-id`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, `${M}/transactions-in/PI-${'A'.repeat(80)}`), 400, 'INVALID_PARAMETER');
  });
});

describe('admin family', () => {
  const A = (id: string) => `/api/v1/admin/merchants/${id}`;

  it('ADMIN and SUPPORT read any merchant’s transactions, stats, detail (with diagnostics) and export', async () => {
    for (const staff of [admin, support]) {
      const list = expectSuccess(await as(staff, `${A(merchant.accountId)}/transactions-in?status=SUCCESS`), 200);
      expect(references(list)).toEqual([refs.fc, refs.orange, refs.paid]);
      expect(expectSuccess(await as(staff, `${A(merchant.accountId)}/transactions-out/stats`), 200)).toMatchObject({ total: 1 });
      const detail = expectSuccess(await as(staff, `${A(merchant.accountId)}/transactions/${refs.paid}`), 200);
      expect(detail.events.some((e: { detail: unknown }) => e.detail !== null)).toBe(true);
      const csv = await as(staff, `${A(merchant.accountId)}/transactions/export?appId=${gifts.applicationId}`);
      expect(csv.status).toBe(200);
      expect(csv.text.trim().split('\r\n')).toHaveLength(3);
    }
    expect(references(expectSuccess(await as(admin, `${A(other.accountId)}/transactions`), 200))).toEqual([refs.foreign]);
  });

  it('scopes the detail to the merchant named; refuses merchants, unknown or staff ids, malformed ids', async () => {
    expectError(await as(admin, `${A(other.accountId)}/transactions/${refs.paid}`), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await as(merchant, `${A(merchant.accountId)}/transactions`), 403, 'ACCESS_DENIED');
    expectError(await as(admin, `${A(randomUUID())}/transactions`), 404, 'USER_NOT_FOUND');
    expectError(await as(admin, `${A(support.accountId)}/transactions`), 404, 'USER_NOT_FOUND');
    expectError(await as(admin, `${A('nope')}/transactions`), 400, 'INVALID_PARAMETER');
    expectError(await as(admin, `${A(merchant.accountId)}/transactions?appId=${foreign.applicationId}`), 404, 'APP_NOT_FOUND');
  });
});

describe('CSV export', () => {
  it('streams the filtered list as CSV, newest first, with the same columns and escaped cells', async () => {
    const response = await as(merchant, `${M}/transactions-in/export?status=SUCCESS`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-in-\d{4}-\d{2}-\d{2}\.csv"$/);
    // fetch's text() drops the UTF-8 BOM: read the first bytes raw.
    const raw = new Uint8Array(await (await fetch(`${h.baseUrl}${M}/transactions-in/export?status=SUCCESS`, { headers: { authorization: `Bearer ${merchant.accessToken}` } })).arrayBuffer());
    expect([...raw.slice(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 0x69]);
    const lines = response.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,reference,merchantReference,type,direction,environment,status,amount,feeAmount,netAmount,refundedAmount,currency,provider,' +
        'payerAccount,payerName,payerEmail,description,appName,failureCode,createdAt,updatedAt,completedAt',
    );
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual([refs.fc, refs.orange, refs.paid]);
    expect(lines[3]).toContain(`,${refs.paid},CMD-Alpha-1,CHARGE,PAY_IN,TEST,SUCCESS,5000,75,4925,0,XAF,MTN_MOMO_CM,237677000001,`);

    expectError(await as(merchant, `${M}/transactions/export?from=nope`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, `${M}/transactions/export?appId=${foreign.applicationId}`), 404, 'APP_NOT_FOUND');
  });

  it('exports thousands of rows across several keyset batches, each exactly once, in order', async () => {
    const bulk = await merchantApp(merchant, 'Volume');
    const base = h.clock.now().getTime();
    const count = 2_345;
    const rows = Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      reference: `PI-${(0xb00000000000 + i).toString(16).toUpperCase()}`,
      applicationId: bulk.applicationId,
      direction: 'PAY_IN',
      type: 'CHARGE',
      environment: 'TEST',
      status: 'SUCCESS',
      amount: 100 + i,
      feeAmount: 1,
      currency: 'XAF',
      paymentMethod: 'MTN_MOMO_CM',
      payerAccount: '237677000001',
      // Cells a spreadsheet would run as formulas, and a comma and quotes to escape.
      description: i === 7 ? '=HYPERLINK("http://evil")' : i === 8 ? 'Sac, "cuir"' : `Commande ${i}`,
      // Groups of three rows share a timestamp: ties are broken by id, across batch borders too.
      createdAt: new Date(base - Math.floor(i / 3) * 1000),
      updatedAt: new Date(base),
    }));
    for (let i = 0; i < rows.length; i += 500) await h.services.db.insert(transactions).values(rows.slice(i, i + 500));

    const response = await as(merchant, `${M}/transactions/export?appId=${bulk.applicationId}`);
    expect(response.status).toBe(200);
    const lines = response.text.split('\r\n').filter((l) => l.length > 0);
    expect(lines).toHaveLength(count + 1);
    const exported = lines.slice(1).map((l) => l.split(',')[1]);
    expect(new Set(exported).size).toBe(count);
    expect(new Set(exported)).toEqual(new Set(rows.map((r) => r.reference)));
    // Newest first: amounts grow with i, i.e. with age (ties by id in any order within a second).
    const amounts = lines.slice(1).map((l) => Number(l.split(',')[7]));
    const seconds = amounts.map((a) => Math.floor((a - 100) / 3));
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    expect(response.text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(response.text).toContain('"Sac, ""cuir"""');
  });
});

describe('chart', () => {
  it('counts and volumes per UTC day or hour, by status, provider or application', async () => {
    const week = expectSuccess(await as(merchant, `${M}/transactions/chart?interval=LAST_7_DAYS&groupBy=STATUS&environment=TEST`), 200);
    expect(week).toMatchObject({ interval: 'LAST_7_DAYS', groupBy: 'STATUS', currency: 'XAF' });
    expect(week.labels).toHaveLength(7);
    expect(week.labels.at(-1)).toBe(h.clock.now().toISOString().slice(0, 10));
    const success = week.series.find((s: { key: string }) => s.key === 'SUCCESS');
    // Bulk rows above are TEST SUCCESS pay-ins too: 2 345 of them plus the two sandbox charges and the collection's.
    expect(success.counts.reduce((a: number, b: number) => a + b, 0)).toBe(2_345 + 3);
    expect(success.counts).toHaveLength(7);
    const failed = week.series.find((s: { key: string }) => s.key === 'FAILED');
    expect(failed.counts.at(-2)).toBe(1);
    expect(failed.volumes.at(-2)).toBe(5000);

    const byProvider = expectSuccess(await as(merchant, `${M}/transactions/chart?interval=LAST_30_DAYS&groupBy=PROVIDER&environment=TEST&appId=${gifts.applicationId}`), 200);
    expect(byProvider.labels).toHaveLength(30);
    expect(byProvider.series.map((s: { key: string }) => s.key)).toEqual(['MTN_MOMO_CM', 'ORANGE_MONEY_CM']);
    expect(byProvider.series[1].counts.at(-1)).toBe(1);

    const today = expectSuccess(await as(merchant, `${M}/transactions/chart?interval=TODAY&groupBy=APPLICATION&appId=${gifts.applicationId}`), 200);
    expect(today.labels).toHaveLength(24);
    expect(today.labels[0]).toBe('00:00');
    expect(today.series).toEqual([{ key: 'Dons', counts: expect.any(Array), volumes: expect.any(Array) }]);
    // The Orange Money charge and the collection's payment, both this hour, net of their fees.
    expect(today.series[0].volumes[h.clock.now().getUTCHours()]).toBe(4925 + 9850);

    const outs = expectSuccess(await as(merchant, `${M}/transactions/chart?direction=PAY_OUT&environment=TEST&groupBy=APPLICATION`), 200);
    expect(outs.series.map((s: { key: string }) => s.key)).toEqual(['Boutique']);

    const none = expectSuccess(await as(createdLater!, `${M}/transactions/chart`), 200);
    expect(none).toMatchObject({ currency: null, series: [] });
    expect(none.labels).toHaveLength(7);

    expectError(await as(merchant, `${M}/transactions/chart?interval=YEAR`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, `${M}/transactions/chart?groupBy=COLOR`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, `${M}/transactions/chart?currency=xaf`), 400, 'INVALID_PARAMETER');
    expectError(await as(merchant, `${M}/transactions/chart?appId=${foreign.applicationId}`), 404, 'APP_NOT_FOUND');
    expect(expectSuccess(await as(admin, `/api/v1/admin/merchants/${merchant.accountId}/transactions/chart?environment=TEST`), 200).series.length).toBeGreaterThan(0);
  });
});

describe('overview', () => {
  it('the dashboard carries the same transaction items as the lists, the payer masked', async () => {
    const overview = expectSuccess(await as(merchant, `${M}/dashboard?appId=${gifts.applicationId}`), 200);
    expect(overview).toMatchObject({ currency: 'XAF' });
    expect(overview.lastFiveTransactions[0]).toMatchObject({ reference: refs.fc, type: 'FUND_COLLECTION', appName: 'Dons', feeAmount: 150, netAmount: 9850, payerAccount: '••••0009' });
    const listed = expectSuccess(await as(merchant, `${M}/transactions?appId=${gifts.applicationId}`), 200).content[0];
    expect(listed.payerAccount).toBe('237677000009');
    expect(overview.lastFiveTransactions[0]).toEqual({ ...listed, payerAccount: '••••0009' });
  });

  it("lists no pay-out: the shop's transfer is on its transactions-out, not on the overview", async () => {
    const overview = expectSuccess(await as(merchant, `${M}/dashboard?appId=${shop.applicationId}`), 200);
    expect(overview.lastFiveTransactions.map((t: { reference: string }) => t.reference)).toEqual([refs.checkout, refs.declined, refs.paid]);
    expect(references(expectSuccess(await as(merchant, `${M}/transactions-out?appId=${shop.applicationId}`), 200))).toEqual([refs.payout]);
  });
});

describe('rails for merchants', () => {
  it('lists the active rails of my currencies with my fees and where they work', async () => {
    const rails = expectSuccess(await as(merchant, `${M}/providers`), 200);
    const codes = rails.map((r: { code: string }) => r.code);
    expect(codes).toContain('MTN_MOMO_CM');
    expect(codes).toContain('ORANGE_MONEY_CM');
    expect(rails.every((r: { currency: string }) => r.currency === 'XAF')).toBe(true);
    expect(rails.find((r: { code: string }) => r.code === 'MTN_MOMO_CM')).toEqual({
      code: 'MTN_MOMO_CM',
      name: expect.any(String),
      type: 'MOBILE_MONEY',
      country: 'CM',
      currency: 'XAF',
      minAmount: expect.any(Number),
      maxAmount: expect.any(Number),
      feePercentage: 1.5,
      feeFixed: 0,
      payOutFeePercentage: 0,
      payOutFeeFixed: 0,
      environments: ['TEST'],
    });
    const set = await asAccount(h, admin.accessToken, 'PUT', `/api/v1/admin/merchants/${merchant.accountId}/fees`, {
      body: { providerCode: 'MTN_MOMO_CM', direction: 'PAY_OUT', feePercentage: 0.5, feeFixed: 25 },
    });
    expect(set.status).toBe(200);
    const mine = expectSuccess(await as(merchant, `${M}/providers`), 200).find((r: { code: string }) => r.code === 'MTN_MOMO_CM');
    expect(mine).toMatchObject({ feePercentage: 1.5, payOutFeePercentage: 0.5, payOutFeeFixed: 25 });
    const theirs = expectSuccess(await as(other, `${M}/providers`), 200).find((r: { code: string }) => r.code === 'MTN_MOMO_CM');
    expect(theirs).toMatchObject({ payOutFeePercentage: 0, payOutFeeFixed: 0 });
    // An account without applications is offered every active rail.
    const all = expectSuccess(await as(createdLater!, `${M}/providers`), 200);
    expect(new Set(all.map((r: { currency: string }) => r.currency)).size).toBeGreaterThan(1);
  });
});

describe('OpenAPI', () => {
  it('describes every transaction, chart, rail and statistics route with its credential, summary, filters and fields', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    const bearer = [{ bearerAuth: [] }];
    const lists = ['transactions', 'transactions-in', 'transactions-out'];
    const paths = [
      ...lists.flatMap((l) => [`${M}/${l}`, `${M}/${l}/stats`, `${M}/${l}/export`, `${M}/${l}/{transactionId}`]),
      ...lists.flatMap((l) => [`/api/v1/admin/merchants/{id}/${l}`, `/api/v1/admin/merchants/{id}/${l}/stats`, `/api/v1/admin/merchants/{id}/${l}/export`, `/api/v1/admin/merchants/{id}/${l}/{transactionId}`]),
      `${M}/transactions/chart`,
      '/api/v1/admin/merchants/{id}/transactions/chart',
      `${M}/providers`,
      '/api/v1/admin/stats/overview',
    ];
    for (const path of paths) {
      const operation = spec.paths[path]?.get;
      expect(operation, path).toBeDefined();
      expect(operation.summary, path).toBeTruthy();
      expect(operation.security, path).toEqual(bearer);
    }
    const publicStats = spec.paths['/api/v1/public/stats'].get;
    expect(publicStats.summary).toBeTruthy();
    expect(publicStats.security).toEqual([]);

    const parameters = (path: string) => Object.fromEntries(spec.paths[path].get.parameters.map((p: { name: string; in: string }) => [p.name, p]));
    const listParams = parameters(`${M}/transactions-in`);
    for (const name of ['page', 'size', 'status', 'type', 'appId', 'from', 'to', 'provider', 'search', 'environment']) {
      expect(listParams[name], name).toMatchObject({ in: 'query' });
    }
    expect(listParams.search.description).toMatch(/référence/);
    expect(listParams.type.schema.enum).toContain('FUND_COLLECTION');
    expect(parameters(`${M}/transactions`).direction).toBeDefined();
    expect(Object.keys(parameters(`${M}/transactions/chart`))).toEqual(expect.arrayContaining(['interval', 'groupBy']));
    const page = spec.paths[`${M}/transactions-in`].get.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(page.properties)).toEqual(expect.arrayContaining(['content', 'number', 'page', 'totalElements']));
    expect(Object.keys(page.properties.content.items.properties)).toEqual(
      expect.arrayContaining(['reference', 'merchantReference', 'type', 'amount', 'feeAmount', 'netAmount', 'provider', 'appName', 'payerAccount']),
    );
    const detail = spec.paths[`${M}/transactions-in/{transactionId}`].get.responses['200'].content['application/json'].schema.properties.data;
    expect(detail.properties.events).toBeDefined();
    expect(spec.paths[`${M}/transactions-in/export`].get.description).toMatch(/text\/csv/);
    const me = spec.paths['/api/v1/merchants/me'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(me.properties.provider).toBeDefined();
  });
});
