/**
 * The dashboard's side of batch pay-outs, through real HTTP and the real database (TEST sandbox):
 * the list of batches with their progress, what each person may do to a batch (by role, and never
 * the creator approving), the amount reserved for approved batches shown apart in the balances,
 * `kolo ledger verify`'s check of that reservation against the items not yet sent, and the fresh
 * second factor the automatic-approval amount asks for.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchBatches } from '../../src/batches/index.ts';
import { batchItems } from '../../src/db/schema-batches.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { fundSandbox } from '../../src/payments/transaction-postings.ts';
import { startHarness, type Harness } from '../harness.ts';
import { createBatchMerchant, joinTeam, stepUp, validBatchItems, type TeamMember } from '../helpers/batches.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { enrolTotp } from '../helpers/totp.ts';

let h: Harness;
let owner: DashboardAccount;
let appId: string;
let finance: TeamMember;
let approver: TeamMember;

/** `n` valid items of `amount` XAF to distinct MTN numbers. */
const items = (n: number, amount = 1000) => validBatchItems(n, { amount, prefix: '2376771', name: 'Agent' });

const createAs = async (token: string, n: number, amount = 1000) =>
  expectSuccess(await asAccount(h, token, 'POST', `/api/v1/merchants/apps/${appId}/batches`, { body: { items: items(n, amount), environment: 'TEST' } }), 201).batch;
const balanceLine = async () => expectSuccess(await asAccount(h, owner.accessToken, 'GET', '/api/v1/merchants/balance?environment=TEST'), 200)[0];

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
  ({ owner, appId } = await createBatchMerchant(h, { ownerName: 'Awa Tableau', appName: 'Agents' }));
  finance = await joinTeam(h, owner.accessToken, 'FINANCE');
  approver = await joinTeam(h, owner.accessToken, 'APPROVER');
  await fundSandbox(h.services, appId, 'TEST', 'XAF', 1);
});
afterAll(async () => h?.close());

describe('the dashboard batch list and detail', () => {
  it('lists my batches newest first with their progress, one application or all', async () => {
    const first = await createAs(finance.token, 2);
    h.clock.advance(1000);
    const second = await createAs(finance.token, 3);
    const page = expectSuccess(await asAccount(h, finance.token, 'GET', '/api/v1/merchants/batches?environment=TEST&size=1'), 200);
    expect(page).toMatchObject({ totalElements: 2, totalPages: 2, first: true, last: false });
    expect(page.content).toEqual([expect.objectContaining({ id: second.id, applicationId: appId, status: 'AWAITING_APPROVAL', itemCount: 3, progress: { waiting: 3, pending: 0, succeeded: 0, failed: 0 } })]);
    const next = expectSuccess(await asAccount(h, finance.token, 'GET', `/api/v1/merchants/batches?environment=TEST&appId=${appId}&page=1&size=1`), 200);
    expect(next.content.map((b: { id: string }) => b.id)).toEqual([first.id]);
    expect(expectSuccess(await asAccount(h, finance.token, 'GET', '/api/v1/merchants/batches?environment=LIVE'), 200).totalElements).toBe(0);
    // Nobody else's batches, and no probing of another merchant's application.
    const other = await createDashboardAccount(h);
    expect(expectSuccess(await asAccount(h, other.accessToken, 'GET', '/api/v1/merchants/batches?environment=TEST'), 200).content).toEqual([]);
    expectError(await asAccount(h, other.accessToken, 'GET', `/api/v1/merchants/batches?appId=${appId}`), 404, 'APP_NOT_FOUND');
    expectError(await asAccount(h, finance.token, 'GET', '/api/v1/merchants/batches?size=0'), 400, 'INVALID_PARAMETER');
  });

  it('tells each person what they may do: the creator never approves, an approver approves or rejects, finance cancels', async () => {
    const created = await createAs(finance.token, 1);
    const actionsOf = async (token: string) => expectSuccess(await asAccount(h, token, 'GET', `/api/v1/merchants/batches/${created.id}`), 200).allowedActions;
    expect(await actionsOf(finance.token)).toEqual(['CANCEL']);
    expect(await actionsOf(approver.token)).toEqual(['APPROVE', 'REJECT']);
    expect(await actionsOf(owner.accessToken)).toEqual(['APPROVE', 'REJECT', 'CANCEL']);
    const own = await createAs(owner.accessToken, 1);
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', `/api/v1/merchants/batches/${own.id}`), 200).allowedActions).toEqual(['REJECT', 'CANCEL']);
    expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/reject`), 200);
    expect(await actionsOf(owner.accessToken)).toEqual([]);
  });
});

describe('the batch reservation', () => {
  it('shows apart in the balances what approved batches hold until their items are sent', async () => {
    const before = await balanceLine();
    expect(before.batchReservedAmount).toBe(0);
    const created = await createAs(finance.token, 3, 5000);
    // Awaiting approval: nothing reserved.
    expect(await balanceLine()).toEqual(before);
    await stepUp(h, approver);
    expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 200);
    const approved = await balanceLine();
    expect(approved).toMatchObject({ availableAmount: before.availableAmount - created.reservedAmount, batchReservedAmount: created.reservedAmount, reservedAmount: before.reservedAmount });
    await expectLedgerBalanced(h.services.db);

    // Sent: the items' shares move to their pay-outs' own reservations, none stays with the batch.
    await dispatchBatches(h.services);
    const sent = await balanceLine();
    expect(sent.batchReservedAmount).toBe(0);
    expect(sent.availableAmount).toBeLessThanOrEqual(approved.availableAmount);
    await expectLedgerBalanced(h.services.db);
  });

  it('`kolo ledger verify` fails when the reservation is not the amount + fees of the items not yet sent', async () => {
    const created = await createAs(finance.token, 2, 3000);
    await stepUp(h, approver);
    expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${created.id}/approve`), 200);
    await expectLedgerBalanced(h.services.db);
    // An item marked as failed without its share being released: the reservation now holds too much.
    const [item] = await h.services.db.select().from(batchItems).where(and(eq(batchItems.batchId, created.id), eq(batchItems.rowNumber, 1)));
    await h.services.db.update(batchItems).set({ status: 'FAILED', failureReason: 'altéré par le test' }).where(eq(batchItems.id, item!.id));
    const report = await verifyLedger(h.services.db);
    expect(report.ok).toBe(false);
    const share = item!.amount + item!.feeAmount;
    expect(report.discrepancies).toEqual([
      {
        check: 'BATCH_RESERVATION',
        detail: `application ${appId} (TEST XAF): ${created.reservedAmount} held for batches, expected ${created.reservedAmount - share} (items of approved batches not yet sent)`,
      },
    ]);
    await h.services.db.update(batchItems).set({ status: 'WAITING', failureReason: null }).where(eq(batchItems.id, item!.id));
    await expectLedgerBalanced(h.services.db);
  });
});

describe('the automatic-approval amount', () => {
  it('asks a fresh second factor of whoever has one before it changes', async () => {
    const settings = `/api/v1/merchants/apps/${appId}/money-settings`;
    const auth = await enrolTotp(h, owner.accessToken);
    h.clock.advance(5 * 60_000 + 1000);
    expectError(await asAccount(h, owner.accessToken, 'PUT', settings, { body: { lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 50_000 } }), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', settings), 200).batchAutoApproveBelow).toBe(0);
    await stepUp(h, { token: owner.accessToken, auth });
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'PUT', settings, { body: { lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 50_000 } }), 200)).toEqual({
      lateSuccessPolicy: 'REFUND',
      batchAutoApproveBelow: 50_000,
    });
    expect(expectSuccess(await asAccount(h, owner.accessToken, 'GET', settings), 200).batchAutoApproveBelow).toBe(50_000);
    // Finance moves money out but does not set the application's money settings.
    await stepUp(h, finance);
    expectError(await asAccount(h, finance.token, 'PUT', settings, { body: { lateSuccessPolicy: 'REFUND', batchAutoApproveBelow: 1 } }), 403, 'ACCESS_DENIED');
  });
});
