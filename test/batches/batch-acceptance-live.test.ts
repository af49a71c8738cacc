/**
 * A month's pay run from end to end, as a merchant's team lives it, with a LIVE key against the
 * MTN MoMo simulator: a 50-item list with 2 invalid numbers is refused whole, each error naming
 * its row; the corrected list waits for approval, and its creator may not approve it; no operator
 * hears of it before a second person approves with a fresh second factor; approval reserves the
 * sum of amounts and fees in one ledger entry; the dispatcher then sends one item per run, so the
 * transfer call of a late row can be made to time out (processed by the operator, no answer, no
 * callback): 46 items are paid, the 3 numbers MTN declines fail, and the timed-out item stays
 * PENDING until the status poller settles it; the same request under the same Idempotency-Key is
 * the same batch; retrying the failures makes exactly 3 new pay-outs; and `kolo ledger verify`'s
 * checks are clean.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { dispatchBatches } from '../../src/batches/index.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { setFeeOverride } from '../../src/dashboard/fee-overrides.ts';
import { batches } from '../../src/db/schema-batches.ts';
import { ledgerAccounts, ledgerEntries, ledgerLines } from '../../src/db/schema-ledger.ts';
import { transactions } from '../../src/db/schema.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import type { Harness } from '../harness.ts';
import { createBatchMerchant, joinTeam, stepUp, validBatchItems, type BatchMerchant, type TeamMember } from '../helpers/batches.ts';
import { asAccount, DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { mtnEnv, rowOf, settled, waitUntil } from '../helpers/live.ts';
import { chargeBody, expectError, expectSuccess, PATHS } from '../helpers/merchant-api.ts';

let sim: MtnSimulator;
let h: Harness;
let merchant: BatchMerchant;
let finance: TeamMember;
let approver: TeamMember;
const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  // One item per rail per run: the test chooses the run in which the timeout happens.
  env: (s) => mtnEnv(s, { ...DASHBOARD_TEST_ENV, BATCH_ITEMS_PER_RAIL_PER_RUN: '1' }),
  async ready(l) {
    merchant = await createBatchMerchant(l.h, { ownerName: 'Awa Paie', appName: 'Salaires', environment: 'LIVE' });
    finance = await joinTeam(l.h, merchant.owner.accessToken, 'FINANCE');
    approver = await joinTeam(l.h, merchant.owner.accessToken, 'APPROVER');
    // The merchant's own pay-out fee on MTN (the rail's is nil), so the reservation has fees to hold.
    await setFeeOverride(l.h.services, { actorId: null, actorRole: 'ADMIN', clientIp: null }, merchant.owner.accountId, { providerCode: 'MTN_MOMO_CM', direction: 'PAY_OUT', feePercentage: 1, feeFixed: 25 });
    // LIVE pay-outs are funded by settled LIVE pay-ins.
    const funding = expectSuccess(await l.h.request('POST', PATHS.charge, { key: merchant.key, body: chargeBody({ payerAccount: '237677000900', amount: 500_000 }) }), 201);
    expect((await settled(l.h, funding.reference)).status).toBe('SUCCESS');
  },
});
beforeAll(() => ({ sim, h } = live));

/** Rows (from 1) of the numbers MTN's transfer column declines: …456 PAYER_LIMIT_REACHED, …457 PAYEE_NOT_FOUND, …458 NOT_ALLOWED. */
const DECLINED_ROWS = { 9: '237677200456', 24: '237677200457', 38: '237677200458' } as const;
/** The late row whose transfer call is held past Kolo's connector timeout. */
const TIMEOUT_ROW = 47;
/** The rows whose numbers are mistyped in the first upload. */
const INVALID_ROWS = { 12: '2376772', 31: '23767720001' } as const;

/** The month's 50 salaries of 1,000 XAF; with `mistyped`, 2 numbers are invalid. */
function payRun(mistyped: boolean): Record<string, unknown>[] {
  const list = validBatchItems(50, { prefix: '2376772', name: 'Agent', reference: 'PAIE-12' });
  for (const [row, msisdn] of Object.entries(DECLINED_ROWS)) list[Number(row) - 1]!.beneficiaryAccount = msisdn;
  if (mistyped) for (const [row, msisdn] of Object.entries(INVALID_ROWS)) list[Number(row) - 1]!.beneficiaryAccount = msisdn;
  return list;
}

const BODY = (mistyped: boolean) => ({ items: payRun(mistyped), environment: 'LIVE' });
const IDEMPOTENCY = { 'idempotency-key': 'paie-decembre-2026' };
const createPath = () => `/api/v1/merchants/apps/${merchant.appId}/batches`;
const viewAs = async (token: string, id: string) => expectSuccess(await asAccount(h, token, 'GET', `/api/v1/merchants/batches/${id}`), 200);
const transfers = () => sim.requests.filter((r) => r.path === '/disbursement/v1_0/transfer' && r.method === 'POST');
const batchCount = async () => (await h.services.db.select().from(batches).where(eq(batches.applicationId, merchant.appId))).length;
const payOutCount = async () =>
  (await h.services.db.select({ id: transactions.id }).from(transactions).where(and(eq(transactions.applicationId, merchant.appId), eq(transactions.direction, 'PAY_OUT')))).length;
const balance = (kind: 'AVAILABLE' | 'BATCH_RESERVED') => accountBalance(h.services.db, merchantAccount(merchant.appId, 'LIVE', 'XAF', kind).key);

/** What each BATCH_RESERVE entry put on this application's BATCH_RESERVED account, base units. */
async function batchReservations(): Promise<number[]> {
  const rows = await h.services.db
    .select({ amount: ledgerLines.amount })
    .from(ledgerEntries)
    .innerJoin(ledgerLines, eq(ledgerLines.entryId, ledgerEntries.id))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerLines.accountId))
    .where(and(eq(ledgerEntries.kind, 'BATCH_RESERVE'), eq(ledgerAccounts.key, merchantAccount(merchant.appId, 'LIVE', 'XAF', 'BATCH_RESERVED').key)));
  return rows.map((r) => Math.abs(r.amount));
}

describe('a 50-item pay run (LIVE, MTN simulator)', () => {
  let batchId: string;
  let reservedAmount: number;

  it('refuses the list with 2 mistyped numbers, naming their rows, and creates nothing', async () => {
    const requestsBefore = sim.requests.length;
    const errors = expectError(await asAccount(h, merchant.owner.accessToken, 'POST', createPath(), { headers: IDEMPOTENCY, body: BODY(true) }), 400, 'VALIDATION_ERROR');
    expect(errors).toEqual({
      'items[11].beneficiaryAccount': expect.stringMatching(/^ligne 12 : beneficiaryAccount /),
      'items[30].beneficiaryAccount': expect.stringMatching(/^ligne 31 : beneficiaryAccount /),
    });
    expect(await batchCount()).toBe(0);
    expect(await payOutCount()).toBe(0);
    expect(sim.requests.length).toBe(requestsBefore);
  });

  it('takes the corrected list, which waits: its creator may not approve it and no operator hears of it', async () => {
    const requestsBefore = sim.requests.length;
    const created = expectSuccess(await asAccount(h, merchant.owner.accessToken, 'POST', createPath(), { headers: IDEMPOTENCY, body: BODY(false) }), 201).batch;
    expect(created).toMatchObject({ status: 'AWAITING_APPROVAL', environment: 'LIVE', itemCount: 50, totalAmount: 50_000, createdBy: merchant.owner.accountId });
    batchId = created.id;
    reservedAmount = created.reservedAmount;

    expectError(await asAccount(h, merchant.owner.accessToken, 'POST', `/api/v1/merchants/batches/${batchId}/approve`), 403, 'BATCH_SELF_APPROVAL');
    // The dispatcher runs, and still nothing leaves before approval.
    await dispatchBatches(h.services);
    await dispatchBatches(h.services);
    expect(sim.requests.length - requestsBefore).toBe(0);
    expect(await payOutCount()).toBe(0);
    expect(await batchReservations()).toEqual([]);
    expect((await viewAs(finance.token, batchId)).status).toBe('AWAITING_APPROVAL');
  });

  it('an approver with a fresh second factor approves it: one reservation of the amounts plus their fees', async () => {
    const fee = expectSuccess(
      await asAccount(h, merchant.owner.accessToken, 'GET', `/api/v1/merchants/apps/${merchant.appId}/transfer/fee?amount=1000&currency=XAF&paymentMethod=MTN_MOMO_CM&environment=LIVE`),
      200,
    ).feeAmount as number;
    expect(fee).toBe(35);
    expect(reservedAmount).toBe(50 * 1000 + 50 * fee);
    const available = await balance('AVAILABLE');
    h.clock.advance(5 * 60_000 + 1000);
    expectError(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${batchId}/approve`), 403, 'FRESH_SECOND_FACTOR_REQUIRED');
    await stepUp(h, approver);
    const approved = expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${batchId}/approve`), 200);
    expect(approved).toMatchObject({ status: 'APPROVED', approvedBy: approver.accountId });
    expect(await batchReservations()).toEqual([reservedAmount]);
    expect(await balance('BATCH_RESERVED')).toBe(reservedAmount);
    expect(await balance('AVAILABLE')).toBe(available - reservedAmount);
    await expectLedgerBalanced(h.services.db);
  });

  it('pays 46, fails the 3 declined numbers, and keeps the timed-out transfer PENDING until the poller settles it', async () => {
    const sentBefore = transfers().length;
    for (let row = 1; row <= 50; row++) {
      if (row === TIMEOUT_ROW) {
        // Every earlier callback has arrived before the switch that drops callbacks is on.
        await waitUntil('the earlier pay-outs to settle', async () => (await viewAs(finance.token, batchId)).progress.pending === 0);
        sim.options.callbacks.drop = true;
        sim.fault = { mode: 'timeout', on: 'initiate', landed: true, remaining: 1 };
      }
      expect(await dispatchBatches(h.services)).toMatchObject({ sent: 1 });
      if (row === TIMEOUT_ROW) sim.options.callbacks.drop = false;
    }
    expect(transfers().length - sentBefore).toBe(50);
    expect(await balance('BATCH_RESERVED')).toBe(0);

    await waitUntil('all but the timed-out pay-out to settle', async () => (await viewAs(finance.token, batchId)).progress.pending === 1);
    await dispatchBatches(h.services);
    const waiting = await viewAs(finance.token, batchId);
    expect(waiting).toMatchObject({ status: 'PROCESSING', progress: { waiting: 0, pending: 1, succeeded: 46, failed: 3 } });
    expect(waiting.items.filter((i: any) => i.status === 'FAILED').map((i: any) => i.rowNumber)).toEqual([9, 24, 38]);
    const timedOut = waiting.items.find((i: any) => i.status === 'PENDING');
    expect(timedOut.rowNumber).toBe(TIMEOUT_ROW);
    // Kolo does not know whether MTN paid: the pay-out waits, it is not failed blind.
    expect(await rowOf(h, timedOut.reference)).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
    expect(expectSuccess(await h.request('GET', PATHS.payOutStatus(timedOut.reference), { key: merchant.key }), 200).status).toBe('PENDING');

    // The poller's status query learns that MTN paid it; the batch then closes.
    await live.pollAfter(10_000);
    expect((await rowOf(h, timedOut.reference)).status).toBe('SUCCESS');
    await dispatchBatches(h.services);
    const done = await viewAs(finance.token, batchId);
    expect(done).toMatchObject({ status: 'PARTLY_FAILED', progress: { waiting: 0, pending: 0, succeeded: 47, failed: 3 } });
    expect(done.items.find((i: any) => i.rowNumber === TIMEOUT_ROW).status).toBe('SUCCESS');
    await expectLedgerBalanced(h.services.db);
  });

  it('the same request under the same Idempotency-Key is the same batch, and sends nothing again', async () => {
    const requestsBefore = sim.requests.length;
    const again = expectSuccess(await asAccount(h, merchant.owner.accessToken, 'POST', createPath(), { headers: IDEMPOTENCY, body: BODY(false) }), 201).batch;
    expect(again.id).toBe(batchId);
    await dispatchBatches(h.services);
    expect(await batchCount()).toBe(1);
    expect(sim.requests.length).toBe(requestsBefore);
  });

  it('retrying the failures makes exactly 3 new pay-outs, to the 3 declined numbers; the ledger checks are clean', async () => {
    const payOutsBefore = await payOutCount();
    const sentBefore = transfers().length;
    const retry = expectSuccess(await asAccount(h, finance.token, 'POST', `/api/v1/merchants/batches/${batchId}/retry`), 201);
    expect(retry).toMatchObject({ status: 'AWAITING_APPROVAL', itemCount: 3, totalAmount: 3000, createdBy: finance.accountId });
    await stepUp(h, approver);
    expectSuccess(await asAccount(h, approver.token, 'POST', `/api/v1/merchants/batches/${retry.id}/approve`), 200);
    for (let i = 0; i < 4; i++) await dispatchBatches(h.services);
    expect((await payOutCount()) - payOutsBefore).toBe(3);
    expect(transfers().length - sentBefore).toBe(3);
    expect(transfers().slice(sentBefore).map((r) => JSON.parse(r.body).payee.partyId).sort()).toEqual(Object.values(DECLINED_ROWS));
    const retried = await viewAs(finance.token, retry.id);
    expect(retried.items.map((i: any) => i.rowNumber)).toEqual([9, 24, 38]);
    await waitUntil('the retried pay-outs to settle', async () => (await viewAs(finance.token, retry.id)).progress.pending === 0);
    await dispatchBatches(h.services);
    expect((await viewAs(finance.token, retry.id)).status).toBe('PARTLY_FAILED');
    // The first batch's paid items were not sent again.
    expect(transfers().length - sentBefore).toBe(3);
    await expectLedgerBalanced(h.services.db);
  });
});
