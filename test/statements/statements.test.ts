/**
 * Merchant statements through the dashboard API (real HTTP, real database): for each
 * environment, currency and balance, opening + movements = closing, and the closing equals the
 * balance Kolo shows; the CSV parses and adds up the same way; a long range is prepared in the
 * background and downloaded when READY; another merchant's applications never appear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { prepareDueStatements } from '../../src/statements/index.ts';
import { startHarness, type Harness } from '../harness.ts';
import { asAccount, createDashboardAccount, createStaffAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

let h: Harness;

interface Merchant {
  account: DashboardAccount;
  applicationId: string;
  appName: string;
  key: string;
}

async function merchantWithApp(name: string): Promise<Merchant> {
  const account = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: account.accountId, name, currency: 'XAF' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'test', environment: 'TEST' });
  return { account, applicationId: app.id, appName: name, key: key.plainTextKey };
}

/** Sends a TEST transfer and lets the sandbox settle it. */
async function paidTransfer(m: Merchant, amount: number): Promise<string> {
  const reference = expectSuccess(await h.request('POST', PATHS.transfer, { key: m.key, body: transferBody({ amount }) }), 201).reference as string;
  h.clock.advance(h.services.config.sandboxDelayMs + 5000);
  await pollOnce(h.services);
  return reference;
}

const asMerchant = async (m: Merchant, method: string, path: string, body?: unknown) =>
  asAccount(h, (await login(h, m.account.email, m.account.password)).accessToken, method, path, body === undefined ? {} : { body });

/** Parses the statement CSV (no quoted field holds a comma or a line break here). */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.replace(/^\uFEFF/, '').split('\r\n').filter((l) => l.length > 0);
  const names = header!.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((v, i) => [names[i], v.replace(/^"(.*)"$/, '$1')])));
}

let alice: Merchant;
let bob: Merchant;
const today = () => h.clock.now().toISOString().slice(0, 10);
let day1: string;
let day2: string;
const references: string[] = [];

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, STATEMENT_SYNC_MAX_DAYS: '1' });
  alice = await merchantWithApp('Boutique Alice');
  bob = await merchantWithApp('Atelier Bob');
  day1 = today();
  references.push(await paidTransfer(alice, 5000));
  await paidTransfer(bob, 7000);
  h.clock.advance(86_400_000);
  day2 = today();
  references.push(await paidTransfer(alice, 3000));
  // One still PENDING at the end: its reservation is a movement of RESERVED.
  references.push(expectSuccess(await h.request('POST', PATHS.transfer, { key: alice.key, body: transferBody({ amount: 1000 }) }), 201).reference as string);
});
afterAll(async () => {
  await h?.close();
});

describe('merchant statements', () => {
  it('adds up: opening + movements = closing per balance, and the closing is the balance Kolo shows', async () => {
    const statement = expectSuccess(await asMerchant(alice, 'GET', `/api/v1/merchants/statement?from=${day2}&to=${day2}`), 200);
    // Only balances that exist are listed (no pay-in yet: no PENDING account).
    expect(statement.totals.map((t: { balance: string }) => t.balance)).toEqual(['AVAILABLE', 'RESERVED']);
    for (const total of statement.totals) {
      const moved = statement.movements.filter((m: { balance: string; environment: string; currency: string }) => m.balance === total.balance && m.environment === total.environment && m.currency === total.currency);
      expect(moved).toHaveLength(total.movementCount);
      expect(total.opening + moved.reduce((s: number, m: { amount: number }) => s + m.amount, 0)).toBe(total.closing);
      expect(total.opening + total.credits - total.debits).toBe(total.closing);
    }
    const balances = expectSuccess(await asMerchant(alice, 'GET', `/api/v1/merchants/balance?environment=TEST`), 200);
    const shown = JSON.stringify(balances);
    const available = statement.totals.find((t: { balance: string }) => t.balance === 'AVAILABLE').closing;
    const reserved = statement.totals.find((t: { balance: string }) => t.balance === 'RESERVED').closing;
    expect(shown).toContain(String(available));
    expect(reserved).toBe(1000);
    // Day 2's opening is day 1's closing.
    const first = expectSuccess(await asMerchant(alice, 'GET', `/api/v1/merchants/statement?from=${day1}&to=${day1}`), 200);
    expect(first.totals.map((t: { closing: number }) => t.closing)).toEqual(statement.totals.map((t: { opening: number }) => t.opening));
    const refs = statement.movements.map((m: { reference: string | null }) => m.reference);
    expect(refs).toContain(references[1]);
    expect(refs).toContain(references[2]);
    expect(refs).not.toContain(references[0]);
    await expectLedgerBalanced(h.services.db);
  });

  it('the CSV parses and adds up the same way; no line of another merchant', async () => {
    const response = await asMerchant(alice, 'GET', `/api/v1/merchants/statement/csv?from=${day1}&to=${day1}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(response.text);
    const keys = new Set(rows.map((r) => `${r.environment}|${r.currency}|${r.balance}`));
    for (const key of keys) {
      const of = rows.filter((r) => `${r.environment}|${r.currency}|${r.balance}` === key);
      const opening = Number(of.find((r) => r.line === 'OPENING')!.amount);
      const closing = Number(of.find((r) => r.line === 'CLOSING')!.amount);
      const moved = of.filter((r) => r.line === 'MOVEMENT').reduce((s, r) => s + Number(r.amount), 0);
      expect(opening + moved).toBe(closing);
    }
    expect(rows.filter((r) => r.line === 'MOVEMENT').every((r) => r.application === alice.appName)).toBe(true);
    expect(response.text).not.toContain(bob.appName);
    const bobs = expectSuccess(await asMerchant(bob, 'GET', `/api/v1/merchants/statement?from=${day1}&to=${day1}`), 200);
    expect(JSON.stringify(bobs)).not.toContain(alice.applicationId);
  });

  it('a range longer than STATEMENT_SYNC_MAX_DAYS is refused at once and prepared in the background', async () => {
    const tooLong = await asMerchant(alice, 'GET', `/api/v1/merchants/statement?from=${day1}&to=${day2}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.code).toBe('VALIDATION_ERROR');
    const requested = await asMerchant(alice, 'POST', '/api/v1/merchants/statements', { from: day1, to: day2 });
    expect(requested.status).toBe(202);
    const id = requested.json.data.id as string;
    // Not Bob's to read.
    expect((await asMerchant(bob, 'GET', `/api/v1/merchants/statements/${id}/csv`)).status).toBe(404);
    await prepareDueStatements(h.services);
    const list = expectSuccess(await asMerchant(alice, 'GET', '/api/v1/merchants/statements'), 200);
    expect(list.find((s: { id: string }) => s.id === id)).toMatchObject({ status: 'READY', from: day1, to: day2 });
    const file = await asMerchant(alice, 'GET', `/api/v1/merchants/statements/${id}/csv`);
    expect(file.status).toBe(200);
    const rows = parseCsv(file.text);
    expect(rows.filter((r) => r.line === 'MOVEMENT').map((r) => r.reference)).toEqual(expect.arrayContaining(references));
    expect(file.text).not.toContain(bob.appName);
  });

  it('staff have no statement', async () => {
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    expect((await asAccount(h, admin.accessToken, 'GET', `/api/v1/merchants/statement?from=${day2}&to=${day2}`)).status).toBe(403);
  });
});
