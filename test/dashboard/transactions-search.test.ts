/**
 * The transactions search also finds the operator's transaction id (exactly, as on the
 * customer's SMS) and, when the text reads as a phone number, the payer's or beneficiary's MSISDN
 * however it is typed; never the operator's request id, which can be a secret between the
 * operator and Kolo.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applications, transactions } from '../../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, DASHBOARD_TEST_ENV, login } from '../helpers/dashboard.ts';
import { chargeTo } from '../helpers/webhooks.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';

let h: Harness;
let t: Tenant;
let token: string;
let paid: string;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  const account = await createAccount(h.services, { fullName: 'Recherche', email: 'recherche@example.test', password: 'mot-de-passe-recherche', role: 'MERCHANT', status: 'ACTIVE', emailVerified: true });
  t = await h.createTenant();
  // The tenant's application belongs to the account that searches.
  await h.services.db.update(applications).set({ merchantId: account.id }).where(eq(applications.id, t.applicationId));
  token = (await login(h, 'recherche@example.test', 'mot-de-passe-recherche')).accessToken;
  paid = await chargeTo(h, t, 'SUCCESS', 'CMD-1');
  await h.services.db
    .update(transactions)
    .set({ operatorTransactionId: 'MP240101.1234.A56789', operatorReference: 'AG_20240101_00004e1c2b3a' })
    .where(eq(transactions.reference, paid));
});
afterAll(async () => h?.close());

const found = async (search: string) => {
  const response = await asAccount(h, token, 'GET', `/api/v1/merchants/transactions?search=${encodeURIComponent(search)}`);
  expect(response.status).toBe(200);
  return (response.json.data.content as { reference: string }[]).map((r) => r.reference);
};

it("finds a payment by the operator's transaction id, exactly; never by the operator's request id", async () => {
  expect(await found('MP240101.1234.A56789')).toEqual([paid]);
  expect(await found('1234.A567')).toEqual([]);
  expect(await found('AG_20240101_00004e1c2b3a')).toEqual([]);
});

it('finds a payment by the payer’s number as typed', async () => {
  expect(await found('237677000001')).toEqual([paid]);
  expect(await found('677 00 00 01')).toEqual([paid]);
  expect(await found('+237 677-000-001')).toEqual([paid]);
  expect(await found('699 99 99 99')).toEqual([]);
});
