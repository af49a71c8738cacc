/**
 * `GET /api/v1/admin/merchants?search=`: a case-insensitive substring of the e-mail or the name;
 * LIKE's wildcards match themselves; 1 to 100 characters.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, type StaffAccount } from '../helpers/dashboard.ts';

let h: Harness;
let support: StaffAccount;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  support = await createStaffAccount(h, { role: 'SUPPORT' });
  await createDashboardAccount(h, { email: 'awa.ndiaye@boutique.test', fullName: 'Awa Ndiaye' });
  await createDashboardAccount(h, { email: 'paul@quincaillerie.test', fullName: 'Quincaillerie 100% Douala' });
});
afterAll(async () => h?.close());

const emailsOf = async (search: string) => {
  const response = await asAccount(h, support.accessToken, 'GET', `/api/v1/admin/merchants?search=${encodeURIComponent(search)}`);
  expect(response.status).toBe(200);
  return (response.json.data.content as { email: string }[]).map((m) => m.email);
};

it('finds merchants by part of the e-mail or of the name, whatever the case', async () => {
  expect(await emailsOf('BOUTIQUE')).toEqual(['awa.ndiaye@boutique.test']);
  expect(await emailsOf('ndiaye')).toEqual(['awa.ndiaye@boutique.test']);
  expect(await emailsOf('quincaillerie 100')).toEqual(['paul@quincaillerie.test']);
  expect(await emailsOf('nobody-here')).toEqual([]);
});

it('treats % and _ as themselves', async () => {
  expect(await emailsOf('%')).toEqual(['paul@quincaillerie.test']);
  expect(await emailsOf('_')).toEqual([]);
});

it('takes 1 to 100 characters', async () => {
  expect((await asAccount(h, support.accessToken, 'GET', `/api/v1/admin/merchants?search=${'a'.repeat(100)}`)).status).toBe(200);
  expect((await asAccount(h, support.accessToken, 'GET', `/api/v1/admin/merchants?search=${'a'.repeat(101)}`)).status).toBe(400);
  expect((await asAccount(h, support.accessToken, 'GET', '/api/v1/admin/merchants?search=')).status).toBe(400);
});
