/**
 * The reader's days on the dashboard: `timeZone` (an IANA name) on the summary
 * (`GET /api/v1/merchants/dashboard`) and the chart (`…/transactions/chart`) makes "today" and the
 * chart's days and hours those of the reader; without it they stay UTC days, as before. Payments
 * go through the real merchant API and the sandbox rail at chosen instants of the manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { dayBounds } from '../../src/dashboard/reader-days.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo } from '../helpers/webhooks.ts';

let h: Harness;
let merchant: DashboardAccount;
let shop: Tenant;
/** Paid at 2026-11-02T04:30Z: 1 November 23:30 in New York (EST since that morning's DST end). */
let afterDstEnd: string;
/** Paid at 2026-11-20T22:30Z: 21 November 01:30 in Nairobi (UTC+3). */
let lateEvening: string;

const M = '/api/v1/merchants';
const get = (path: string) => asAccount(h, merchant.accessToken, 'GET', path);
/** The SUCCESS line of a STATUS chart: counts by label. */
const paidByLabel = (chart: { labels: string[]; series: { key: string; counts: number[] }[] }) => {
  const paid = chart.series.find((s) => s.key === 'SUCCESS');
  return Object.fromEntries(chart.labels.map((label, i) => [label, paid?.counts[i] ?? 0]).filter(([, n]) => n !== 0));
};

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  h.clock.set(new Date('2026-11-02T04:30:00Z'));
  merchant = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Boutique', currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  shop = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
  afterDstEnd = await chargeTo(h, shop, 'SUCCESS');
  h.clock.set(new Date('2026-11-20T22:30:00Z'));
  lateEvening = await chargeTo(h, shop, 'SUCCESS');
  // Read the next morning, 06:00 UTC (09:00 in Nairobi, 01:00 in New York).
  h.clock.set(new Date('2026-11-21T06:00:00Z'));
  Object.assign(merchant, await login(h, merchant.email, merchant.password));
});
afterAll(async () => h?.close());

describe('the summary’s today', () => {
  it('counts a payment of 22:30 UTC in the next day of a Nairobi reader, and not in the UTC day without a zone', async () => {
    const nairobi = expectSuccess(await get(`${M}/dashboard?timeZone=Africa/Nairobi`), 200);
    expect(nairobi).toMatchObject({ currency: 'XAF', dailyVolume: 4925, todayTransactionCount: 1 });
    expect(nairobi.todayTransactions.map((t: { reference: string }) => t.reference)).toEqual([lateEvening]);

    const byDefault = expectSuccess(await get(`${M}/dashboard`), 200);
    expect(byDefault).toMatchObject({ currency: 'XAF', dailyVolume: 0, todayTransactionCount: 0, todayTransactions: [] });
    expect(byDefault.lastFiveTransactions.map((t: { reference: string }) => t.reference)).toEqual([lateEvening, afterDstEnd]);
    expect(expectSuccess(await get(`${M}/dashboard?timeZone=UTC`), 200)).toEqual(byDefault);
    // A zone name in any case is the zone.
    expect(expectSuccess(await get(`${M}/dashboard?timeZone=africa/nairobi`), 200)).toEqual(nairobi);
  });
});

describe('the chart’s days', () => {
  it('are the reader’s days, DST days included; UTC days without a zone', async () => {
    const week = (zone: string) => get(`${M}/transactions/chart?interval=LAST_7_DAYS&groupBy=STATUS${zone}`);
    const nairobiWeek = expectSuccess(await week('&timeZone=Africa/Nairobi'), 200);
    expect(nairobiWeek.labels).toEqual(['2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21']);
    expect(paidByLabel(nairobiWeek)).toEqual({ '2026-11-21': 1 });
    const utcWeek = expectSuccess(await week(''), 200);
    expect(utcWeek.labels).toEqual(nairobiWeek.labels);
    expect(paidByLabel(utcWeek)).toEqual({ '2026-11-20': 1 });
    expect(expectSuccess(await week('&timeZone=UTC'), 200)).toEqual(utcWeek);

    // New York: 1 November 2026 lasts 25 hours; 04:30 UTC the next night is still its 23:30.
    const month = (zone: string) => get(`${M}/transactions/chart?interval=LAST_30_DAYS&groupBy=STATUS${zone}`);
    const newYork = expectSuccess(await month('&timeZone=America/New_York'), 200);
    expect([newYork.labels[0], newYork.labels.at(-1), newYork.labels.length]).toEqual(['2026-10-23', '2026-11-21', 30]);
    expect(paidByLabel(newYork)).toEqual({ '2026-11-01': 1, '2026-11-20': 1 });
    expect(paidByLabel(expectSuccess(await month(''), 200))).toEqual({ '2026-11-02': 1, '2026-11-20': 1 });
    expect(paidByLabel(expectSuccess(await month('&timeZone=Africa/Nairobi'), 200))).toEqual({ '2026-11-02': 1, '2026-11-21': 1 });
  });

  it('TODAY is the 24 hours of the reader’s day', async () => {
    const nairobi = expectSuccess(await get(`${M}/transactions/chart?interval=TODAY&groupBy=STATUS&timeZone=Africa/Nairobi`), 200);
    expect(nairobi.labels).toHaveLength(24);
    expect([nairobi.labels[0], nairobi.labels[23]]).toEqual(['00:00', '23:00']);
    expect(paidByLabel(nairobi)).toEqual({ '01:00': 1 });
    const utc = expectSuccess(await get(`${M}/transactions/chart?interval=TODAY&groupBy=STATUS`), 200);
    expect(utc.labels).toEqual(nairobi.labels);
    expect(utc.series).toEqual([]);
  });
});

describe('a zone that is not an IANA name', () => {
  it('is refused with the parameter named in French, on the summary and the chart', async () => {
    for (const zone of ['Mars/Olympus_Mons', '+03:00', 'UTC+3', 'x'.repeat(65)]) {
      for (const path of [`${M}/dashboard`, `${M}/transactions/chart`]) {
        const refused = await get(`${path}?timeZone=${encodeURIComponent(zone)}`);
        expectError(refused, 400, 'INVALID_PARAMETER');
        expect(refused.json.data.timeZone, `${path} ${zone}`).toMatch(/fuseau horaire IANA/);
      }
    }
  });

  it('that the runtime knows but the database does not is a 400 too, not a 500', async () => {
    await expect(dayBounds(h.services.db, h.clock.now(), 'Mars/Olympus_Mons')).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      data: { timeZone: expect.stringMatching(/fuseau horaire IANA/) },
    });
    expect(await dayBounds(h.services.db, new Date('2026-11-02T04:30:00Z'), 'America/New_York', 1)).toEqual({
      from: new Date('2026-10-31T04:00:00Z'),
      to: new Date('2026-11-02T05:00:00Z'),
    });
  });

  it('is described in /openapi.json on both routes', async () => {
    const spec = (await h.request('GET', '/openapi.json')).json;
    for (const path of [`${M}/dashboard`, `${M}/transactions/chart`, '/api/v1/admin/merchants/{id}/transactions/chart']) {
      const timeZone = spec.paths[path].get.parameters.find((p: { name: string }) => p.name === 'timeZone');
      expect(timeZone, path).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
      expect(timeZone.description, path).toMatch(/IANA/);
    }
  });
});
