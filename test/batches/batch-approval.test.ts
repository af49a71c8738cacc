/**
 * Batch pay-outs before they are sent, through real HTTP and the real database (TEST sandbox):
 * creation by API key and from the dashboard, the dry run, per-row errors (JSON and CSV),
 * idempotency, approval by a person other than the creator with a fresh second factor, the one
 * reservation of amounts + fees, refusal with nothing reserved, rejection, cancellation, expiry,
 * and the automatic approval under the application's amount. Nothing reaches an operator: no
 * pay-out exists before the dispatcher runs.
 */
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema-dashboard.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches } from '../../src/db/schema-batches.ts';
import { ledgerEntries } from '../../src/db/schema-ledger.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { fundSandbox } from '../../src/payments/transaction-postings.ts';
import { startHarness, type Harness } from '../harness.ts';
import { createBatchMerchant, joinTeam, stepUp, validBatchItems, type TeamMember } from '../helpers/batches.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, login, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { countTransactions, expectError, expectSuccess } from '../helpers/merchant-api.ts';

const BATCHES = '/api/v1/pay-out/batches';
let h: Harness;
let owner: DashboardAccount;
let appId: string;
let key: string;
let finance: TeamMember;
let approver: TeamMember;

/** `n` valid items of `amount` XAF to distinct MTN numbers, each with a merchant reference. */
const items = (n: number, amount = 1000) => validBatchItems(n, { amount, reference: 'SAL' });

const balance = (kind: 'AVAILABLE' | 'BATCH_RESERVED' | 'RESERVED') => accountBalance(h.services.db, merchantAccount(appId, 'TEST', 'XAF', kind).key);
const batchEntries = async () => (await h.services.db.select().from(ledgerEntries).where(eq(ledgerEntries.kind, 'BATCH_RESERVE'))).length;
const batchCount = async () => (await h.services.db.select().from(batches).where(eq(batches.applicationId, appId))).length;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  ({ owner, appId, key } = await createBatchMerchant(h, { ownerName: 'Awa Propriétaire', appName: 'Paie' }));
  finance = await joinTeam(h, owner.accessToken, 'FINANCE');
  approver = await joinTeam(h, owner.accessToken, 'APPROVER');
  // Open the sandbox balance (1,000,000 XAF, and 1 more) so the figures below start from it.
  await fundSandbox(h.services, appId, 'TEST', 'XAF', 1);
});
afterAll(async () => h?.close());

describe('creating a batch', () => {
  it('a dry run checks and prices every item and writes nothing', async () => {
    const fee = expectSuccess(
      await asAccount(h, owner.accessToken, 'GET', `/api/v1/merchants/apps/${appId}/transfer/fee?amount=1000&currency=XAF&paymentMethod=MTN_MOMO_CM&environment=TEST`),
      200,
    ).feeAmount as number;
    const data = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(50), dryRun: true } }), 200);
    expect(data).toEqual({ dryRun: true, batch: null, totals: { itemCount: 50, totalAmount: 50_000, feeAmount: 50 * fee, reservedAmount: 50_000 + 50 * fee, currency: 'XAF' } });
    expect(await batchCount()).toBe(0);
    expect(await countTransactions(h, appId)).toBe(0);
  });

  it('names the row and field of each invalid item, and writes nothing', async () => {
    const list = items(50);
    list[6]!.beneficiaryAccount = '12';
    list[41]!.beneficiaryAccount = '2379999';
    list[44]!.amount = -5;
    const response = await h.request('POST', BATCHES, { key, body: { items: list } });
    const errors = expectError(response, 400, 'VALIDATION_ERROR');
    expect(Object.keys(errors).sort()).toEqual(['items[41].beneficiaryAccount', 'items[44].amount', 'items[6].beneficiaryAccount']);
    expect(errors['items[6].beneficiaryAccount']).toMatch(/^ligne 7 : beneficiaryAccount n'est pas un numéro de téléphone valide/);
    expect(errors['items[41].beneficiaryAccount']).toMatch(/^ligne 42 :/);
    expect(errors['items[44].amount']).toMatch(/^ligne 45 : amount /);
    expect(await batchCount()).toBe(0);
  });

  it('reads a CSV file and names the file line of each invalid row', async () => {
    const csv = [
      'amount;currency;paymentMethod;beneficiaryAccount;beneficiaryName;merchantReference',
      '1000;XAF;MTN_MOMO_CM;237677000101;Awa Ngono;A-1',
      '',
      'mille;XAF;MTN_MOMO_CM;237677000102;Paul Mbarga;A-2',
      '1000;XAF;MTN_MOMO_CM;42;Jean Kamga;',
    ].join('\n');
    const errors = expectError(await h.request('POST', BATCHES, { key, body: { csv } }), 400, 'VALIDATION_ERROR');
    expect(errors).toEqual({
      'items[1].amount': expect.stringMatching(/^ligne 4 : amount /),
      'items[2].beneficiaryAccount': expect.stringMatching(/^ligne 5 : beneficiaryAccount /),
    });
    const missing = expectError(await h.request('POST', BATCHES, { key, body: { csv: 'amount,currency\n1000,XAF' } }), 400, 'VALIDATION_ERROR');
    expect(missing.csv).toContain('paymentMethod');
    const good = expectSuccess(await h.request('POST', BATCHES, { key, body: { csv: csv.split('\n').slice(0, 2).join('\n'), dryRun: true } }), 200);
    expect(good.totals).toMatchObject({ itemCount: 1, totalAmount: 1000 });
    expect(await batchCount()).toBe(0);
  });

  it('is refused with more than 1,000 items, and to a key without the PAYOUT scope', async () => {
    expectError(await h.request('POST', BATCHES, { key, body: { items: items(1001) } }), 400, 'VALIDATION_ERROR');
    const collectKey = expectSuccess(
      await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: { name: 'Collecte', environment: 'TEST', scopes: ['COLLECT'] } }),
      201,
    ).plainTextKey;
    expectError(await h.request('POST', BATCHES, { key: collectKey, body: { items: items(2) } }), 403, 'API_KEY_SCOPE_DENIED');
    key = expectSuccess(
      await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, { body: { name: 'Paie', environment: 'TEST', scopes: ['PAYOUT', 'READ'] } }),
      201,
    ).plainTextKey;
    expect(await batchCount()).toBe(0);
  });

  it('waits for approval; the same request under the same Idempotency-Key is the same batch', async () => {
    const headers = { 'idempotency-key': 'paie-novembre' };
    const first = expectSuccess(await h.request('POST', BATCHES, { key, headers, body: { items: items(3) } }), 201);
    expect(first.batch).toMatchObject({ status: 'AWAITING_APPROVAL', itemCount: 3, totalAmount: 3000, createdBy: null, progress: { waiting: 3, pending: 0 } });
    const again = expectSuccess(await h.request('POST', BATCHES, { key, headers, body: { items: items(3) } }), 201);
    expect(again.batch.id).toBe(first.batch.id);
    expectError(await h.request('POST', BATCHES, { key, headers, body: { items: items(4) } }), 409, 'IDEMPOTENCY_KEY_REUSED');
    const read = expectSuccess(await h.request('GET', `${BATCHES}/${first.batch.id}`, { key }), 200);
    expect(read.items.map((i: any) => [i.rowNumber, i.status, i.reference])).toEqual([
      [1, 'WAITING', null],
      [2, 'WAITING', null],
      [3, 'WAITING', null],
    ]);
    expect(await countTransactions(h, appId)).toBe(0);
  });
});

describe('approving a batch', () => {
  it('its creator cannot approve it; an approver can, with a fresh second factor, and it is reserved in one entry', async () => {
    const before = await balance('AVAILABLE');
    const created = expectSuccess(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/apps/${appId}/batches`, { body: { items: items(10, 2000), environment: 'TEST' } }), 201).batch;
    expect(created.createdBy).toBe(finance.accountId);
    // Finance may not approve at all; the owner may, but not a batch the owner created.
    expectError(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 403, 'ACCESS_DENIED');
    const own = expectSuccess(await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/batches`, { body: { items: items(2), environment: 'TEST' } }), 201).batch;
    expectError(await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/batches/${own.id}/approve`), 403, 'BATCH_SELF_APPROVAL');

    h.clock.advance(5 * 60_000 + 1000);
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expect(await balance('AVAILABLE')).toBe(before);
    await stepUp(h, approver);
    const approved = expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'APPROVED', approvedBy: approver.accountId });
    // The audit log names the member who approved.
    const audit = await h.services.db.select().from(auditLog).where(and(eq(auditLog.action, 'BATCH_APPROVED'), eq(auditLog.targetId, created.id)));
    expect(audit).toEqual([expect.objectContaining({ actorId: approver.accountId, actorRole: 'MEMBER_APPROVER' })]);
    expect(await balance('AVAILABLE')).toBe(before - created.reservedAmount);
    expect(await balance('BATCH_RESERVED')).toBe(created.reservedAmount);
    expect(await batchEntries()).toBe(1);
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 409, 'BATCH_NOT_AWAITING_APPROVAL');
    expect(await batchEntries()).toBe(1);
    // Approved, not sent: no pay-out exists until the dispatcher runs, so no operator was asked anything.
    expect(await countTransactions(h, appId)).toBe(0);
    await expectLedgerBalanced(h.services.db);
  });

  it('without enough balance, is refused and nothing is reserved', async () => {
    const available = await balance('AVAILABLE');
    const reserved = await balance('BATCH_RESERVED');
    const entries = await batchEntries();
    const big = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(2, Math.ceil(available / 2) + 1000) } }), 201).batch;
    await stepUp(h, approver);
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${big.id}/approve`), 400, 'INSUFFICIENT_BALANCE');
    expect(await balance('AVAILABLE')).toBe(available);
    expect(await balance('BATCH_RESERVED')).toBe(reserved);
    expect(await batchEntries()).toBe(entries);
    expect(expectSuccess(await h.request('GET', `${BATCHES}/${big.id}`, { key }), 200).status).toBe('AWAITING_APPROVAL');
    await expectLedgerBalanced(h.services.db);
  });

  it('is rejected by an approver or cancelled by finance before approval, and then cannot be approved', async () => {
    const a = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(2) } }), 201).batch;
    const b = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(2) } }), 201).batch;
    await stepUp(h, finance);
    expectError(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/batches/${a.id}/reject`), 403, 'ACCESS_DENIED');
    expect(expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${a.id}/reject`), 200).status).toBe('REJECTED');
    expect(expectSuccess(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/batches/${b.id}/cancel`), 200).status).toBe('CANCELLED');
    await stepUp(h, approver);
    const entries = await batchEntries();
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${a.id}/approve`), 409, 'BATCH_NOT_AWAITING_APPROVAL');
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${b.id}/approve`), 409, 'BATCH_NOT_AWAITING_APPROVAL');
    expect(await batchEntries()).toBe(entries);
  });

  it('expires unapproved after BATCH_EXPIRY_HOURS', async () => {
    const a = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(2) } }), 201).batch;
    h.clock.advance(72 * 3_600_000 + 1000);
    owner = { ...owner, ...(await login(h, owner.email, owner.password)) };
    expectError(await asAccount(h, owner.accessToken, 'POST', `/api/v1/merchants/batches/${a.id}/approve`), 409, 'BATCH_NOT_AWAITING_APPROVAL');
    expect(expectSuccess(await h.request('GET', `${BATCHES}/${a.id}`, { key }), 200).status).toBe('EXPIRED');
  });

  it("another merchant's batch does not exist for you", async () => {
    const a = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(1) } }), 201).batch;
    const other = await createDashboardAccount(h);
    expectError(await asAccount(h, other.accessToken, 'GET', `/api/v1/merchants/batches/${a.id}`), 404, 'BATCH_NOT_FOUND');
    expectError(await asAccount(h, other.accessToken, 'POST', `/api/v1/merchants/batches/${a.id}/approve`), 404, 'BATCH_NOT_FOUND');
  });

  it('is approved automatically when its amount + fees is under the application’s setting', async () => {
    const settings = `/api/v1/merchants/apps/${appId}/money-settings`;
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', settings), 200)).toEqual({ lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 0 });
    expectSuccess(await asAccount(h, owner.accessToken, 'PUT', settings, { body: { lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 10_000 } }), 200);
    const available = await balance('AVAILABLE');
    const small = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(2) } }), 201).batch;
    expect(small).toMatchObject({ status: 'APPROVED', approvedBy: null });
    expect(await balance('AVAILABLE')).toBe(available - small.reservedAmount);
    const large = expectSuccess(await h.request('POST', BATCHES, { key, body: { items: items(20) } }), 201).batch;
    expect(large.status).toBe('AWAITING_APPROVAL');
    await expectLedgerBalanced(h.services.db);
  });
});
