/**
 * Regression (found by the route fuzzer): malformed date bounds on both bounds at once, on the
 * admin statistics and the transaction lists, are a 400 INVALID_PARAMETER naming the bound, never
 * a 500 (the range check used to run on the raw strings).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type DashboardAccount, type StaffAccount } from '../helpers/dashboard.ts';

let h: Harness;
let admin: StaffAccount;
let merchant: DashboardAccount;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  admin = await createStaffAccount(h, { role: 'ADMIN' });
  merchant = await createDashboardAccount(h);
});
afterAll(async () => h?.close());

it.each([
  ['admin', '/api/v1/admin/stats/overview'],
  ['merchant', '/api/v1/merchants/transactions-in'],
  ['merchant', '/api/v1/merchants/transactions'],
])('%s GET %s with two malformed bounds answers 400', async (who, path) => {
  const token = (who === 'admin' ? admin : merchant).accessToken;
  const response = await asAccount(h, token, 'GET', `${path}?from=${encodeURIComponent('pas une date')}&to=${encodeURIComponent('pas non plus')}`);
  expect(response.status).toBe(400);
  expect(response.json).toMatchObject({ success: false, code: 'INVALID_PARAMETER' });
  expect(JSON.stringify(response.json.data ?? response.json)).toContain('from');
});
