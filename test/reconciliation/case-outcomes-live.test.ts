/**
 * What an open reconciliation case means for the merchant, and the resolutions that settle
 * pay-outs, with LIVE keys against the MTN simulator and its statement export:
 * - while a case is open the status read and a webhook delivered to the merchant's receiver carry
 *   `reconciliation: "IN_REVIEW"` (the status unchanged); resolved, both stop carrying it;
 * - APPLY_OPERATOR_SUCCESS of a pay-out MTN paid: still PENDING at Kolo (its callback lost) it
 *   goes SUCCESS through the state machine; failed and released it is reserved again and paid;
 *   failed at its deadline with its reservation held, the held reservation is consumed; each
 *   with its entries, event, webhook and audit entry;
 * - a MERCHANT_NOT_TOLD case closes itself on the next run once the merchant has read the event
 *   in the events feed, or once a retry of its webhook is acknowledged with a 2xx.
 * Every test ends with `kolo ledger verify`'s invariants.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount, operatorFloatAccount, platformAccount } from '../../src/ledger/accounts.ts';
import { TOLD_SINCE_NOTE } from '../../src/reconciliation/run-reconciliation.ts';
import type { Harness, Tenant } from '../harness.ts';
import type { Receiver } from '../helpers/webhooks.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mtnEnv, rowOf, webhookTypes } from '../helpers/live.ts';
import { PAST_DEADLINE_MS } from '../helpers/fault-scenarios.ts';
import { ledgerEntryKinds } from '../helpers/reconcile.ts';
import { reconciliationStaff, tellMerchants, type ApiCase } from '../helpers/reconciliation.ts';

let sim: MtnSimulator;
let receiver: Receiver;
let h: Harness;
let t: Tenant;
let staff: Awaited<ReturnType<typeof reconciliationStaff>>;

const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  env: (s: MtnSimulator) => ({ ...mtnEnv(s), ...DASHBOARD_TEST_ENV }),
  ready: (l) => {
    l.sim.options.nowMs = () => l.h.clock.now().getTime();
  },
});

const RAIL = 'MTN_MOMO_CM';
const float = () => operatorFloatAccount(RAIL, 'LIVE', 'XAF').key;
const balance = (key: string) => accountBalance(h.services.db, key);
const available = () => merchantAccount(t.applicationId, 'LIVE', 'XAF', 'AVAILABLE').key;
const reserved = () => merchantAccount(t.applicationId, 'LIVE', 'XAF', 'RESERVED').key;

const charge = async (payerAccount: string, amount: number) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount, payerAccount }) }), 201).reference as string;
const transfer = async (beneficiaryAccount: string, amount: number) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount, beneficiaryAccount }) }), 201).reference as string;
const payInStatus = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
const payOutStatus = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);

/** Polls (10 s steps, well inside the rail's 900 s deadline) until `reference` leaves PENDING. */
async function pollUntilFinal(reference: string): Promise<string> {
  for (let i = 0; i < 4 && (await rowOf(h, reference)).status === 'PENDING'; i++) {
    await live.pollAfter(10_000);
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await rowOf(h, reference)).status;
}
/** Reconciles `[from, now + 1 s)` from the simulator's export; returns the run. */
async function reconcileSince(from: Date) {
  const run = await staff.run({ railCode: RAIL, from, to: new Date(h.clock.now().getTime() + 1000), file: sim.statementCsv() });
  expect(run.status).toBe(201);
  return run.json.data as { casesOpened: number; drift: number };
}
async function openCaseOf(reference: string): Promise<ApiCase> {
  const id = (await rowOf(h, reference)).id;
  const found = (await staff.openCases()).filter((c) => c.transactionId === id);
  expect(found).toHaveLength(1);
  return found[0]!;
}
/** The webhook bodies the merchant's receiver got about `reference`. */
const hooksOf = (reference: string) =>
  receiver.received.map((r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> }).filter((b) => b.data?.reference === reference);

beforeAll(async () => {
  ({ sim, receiver, h, t } = live);
  staff = await reconciliationStaff(h);
  // The merchant's balance that the pay-outs below draw on.
  const funding = await charge('237677001001', 200_000);
  expect(await pollUntilFinal(funding)).toBe('SUCCESS');
  await tellMerchants(h);
});

describe('an open case as the merchant sees it (LIVE, MTN simulator)', () => {
  it('the status read and the webhook delivered meanwhile say IN_REVIEW; resolved, neither does', async () => {
    const from = h.clock.now();
    // MTN pays, but its callback is lost and Kolo has not asked again yet.
    sim.options.callbacks.drop = true;
    const reference = await charge('237677001198', 8000);
    await live.pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(sim.decideLate()).toBe(1);

    const run = await reconcileSince(from);
    expect(run).toMatchObject({ casesOpened: 1, drift: 8000 });
    const opened = await openCaseOf(reference);
    expect(opened).toMatchObject({ kind: 'STATUS_MISMATCH', amount: 8000 });
    expect(await payInStatus(reference)).toMatchObject({ status: 'PENDING', reconciliation: 'IN_REVIEW' });

    // Kolo learns the success while the case is open: the webhook says the case is open.
    expect(await pollUntilFinal(reference)).toBe('SUCCESS');
    await tellMerchants(h);
    const [success, ...others] = hooksOf(reference);
    expect(others).toEqual([]);
    expect(success).toMatchObject({ event: 'payment.success', data: { status: 'SUCCESS', reconciliation: 'IN_REVIEW' } });
    expect(await payInStatus(reference)).toMatchObject({ status: 'SUCCESS', reconciliation: 'IN_REVIEW' });

    expect((await staff.resolve(opened.id, 'ACCEPT')).status).toBe(200);
    const after = await payInStatus(reference);
    expect(after.status).toBe('SUCCESS');
    expect(after).not.toHaveProperty('reconciliation');
    // The ledger now holds the payment: the same period opens nothing and nothing is left open.
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 0, drift: 0 });
    await expectLedgerBalanced(h.services.db);
  });
});

describe('APPLY_OPERATOR_SUCCESS of a pay-out MTN paid (LIVE, MTN simulator)', () => {
  it('still PENDING at Kolo: SUCCESS through the state machine, reservation consumed, payout.success without IN_REVIEW, audited', async () => {
    const from = h.clock.now();
    sim.options.callbacks.drop = true;
    const reference = await transfer('237677002198', 6000);
    await live.pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    expect(sim.decideLate()).toBe(1);
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 1, drift: 6000 });
    const opened = await openCaseOf(reference);
    expect(opened.kind).toBe('STATUS_MISMATCH');
    const row = await rowOf(h, reference);
    expect(await payOutStatus(reference)).toMatchObject({ status: 'PENDING', reconciliation: 'IN_REVIEW', heldAmount: row.reservedAmount });

    const before = { float: await balance(float()), reserved: await balance(reserved()), available: await balance(available()) };
    const resolved = await staff.resolve(opened.id, 'APPLY_OPERATOR_SUCCESS');
    expect(resolved.status).toBe(200);
    expect(resolved.json.data).toMatchObject({ status: 'RESOLVED', resolution: 'APPLY_OPERATOR_SUCCESS' });
    expect(await rowOf(h, reference)).toMatchObject({ status: 'SUCCESS', operatorTransactionId: opened.evidence.operator.operatorTransactionId });
    expect(await ledgerEntryKinds(h, reference)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await balance(float())).toBe(before.float - 6000);
    expect(await balance(reserved())).toBe(before.reserved - row.reservedAmount!);
    expect(await balance(available())).toBe(before.available);

    expect(await webhookTypes(h, reference)).toEqual(['payout.success']);
    await tellMerchants(h);
    const [success] = hooksOf(reference);
    expect(success).toMatchObject({ event: 'payout.success', data: { status: 'SUCCESS', heldAmount: 0 } });
    expect(success!.data).not.toHaveProperty('reconciliation');
    expect(await payOutStatus(reference)).not.toHaveProperty('reconciliation');
    const audit = await staff.as(staff.admin, 'GET', '/api/v1/admin/audit-log?size=50');
    expect((audit.json.data.content as { action: string; targetId: string }[]).filter((e) => e.targetId === opened.id).map((e) => e.action)).toEqual([
      'RECONCILIATION_APPLY_OPERATOR_SUCCESS',
    ]);

    // Kolo asking MTN again changes nothing; the same period opens nothing.
    await live.pollAfter(30_000);
    expect(await ledgerEntryKinds(h, reference)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 0, drift: 0 });
    await expectLedgerBalanced(h.services.db);
  });

  it('FAILED and released: reserved again and paid from the merchant, payout.late_success; the status stays FAILED', async () => {
    const from = h.clock.now();
    const reference = await transfer('237677000457', 7000);
    expect(await pollUntilFinal(reference)).toBe('FAILED');
    const planted = sim.statement.plant({ kind: 'SUCCESS_OF', reference });
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 1, drift: 7000 });
    const opened = await openCaseOf(reference);
    const row = await rowOf(h, reference);
    const fee = row.feeAmount ?? 0;
    const before = { float: await balance(float()), available: await balance(available()), fees: await balance(platformAccount('FEE_REVENUE', 'LIVE', 'XAF').key) };

    expect((await staff.resolve(opened.id, 'APPLY_OPERATOR_SUCCESS')).status).toBe(200);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', isLateSuccess: true, operatorTransactionId: planted.id });
    expect(await ledgerEntryKinds(h, reference)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_RELEASE', 'RECON_PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await balance(available())).toBe(before.available - (7000 + fee));
    expect(await balance(float())).toBe(before.float - 7000);
    expect(await balance(platformAccount('FEE_REVENUE', 'LIVE', 'XAF').key)).toBe(before.fees - fee);
    expect(await webhookTypes(h, reference)).toEqual(['payout.failed', 'payout.late_success']);
    await tellMerchants(h);
    const late = hooksOf(reference).find((b) => b.event === 'payout.late_success');
    expect(late?.data).toMatchObject({ status: 'FAILED', lateSuccess: true, reservation: { amount: row.reservedAmount, outcome: 'CONSUMED' } });
    expect(late?.data).not.toHaveProperty('reconciliation');
    expect(await payOutStatus(reference)).toMatchObject({ status: 'FAILED', lateSuccess: true, heldAmount: 0 });

    const again = await staff.resolve(opened.id, 'APPLY_OPERATOR_SUCCESS');
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('RECONCILIATION_CASE_CLOSED');
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 0, drift: 0 });
    await expectLedgerBalanced(h.services.db);
  });

  it('FAILED at its deadline with the reservation held: the held reservation is consumed, payout.late_success', async () => {
    const from = h.clock.now();
    sim.options.callbacks.drop = true;
    const reference = await transfer('237677003198', 4000);
    await live.pollAfter(10_000);
    expect((await rowOf(h, reference)).status).toBe('PENDING');
    await live.pollAfter(PAST_DEADLINE_MS);
    const row = await rowOf(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    await tellMerchants(h);
    expect(sim.decideLate()).toBe(1);
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 1, drift: 4000 });
    const opened = await openCaseOf(reference);
    const before = { float: await balance(float()), reserved: await balance(reserved()), available: await balance(available()) };

    expect((await staff.resolve(opened.id, 'APPLY_OPERATOR_SUCCESS')).status).toBe(200);
    expect(await rowOf(h, reference)).toMatchObject({ status: 'FAILED', isLateSuccess: true, isReservationHeld: false });
    expect(await ledgerEntryKinds(h, reference)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await balance(reserved())).toBe(before.reserved - row.reservedAmount!);
    expect(await balance(available())).toBe(before.available);
    expect(await balance(float())).toBe(before.float - 4000);
    expect(await webhookTypes(h, reference)).toEqual(['payout.failed', 'payout.late_success']);
    // The late watch asking MTN afterwards finds nothing held: nothing moves twice.
    await live.pollAfter(3_600_000);
    expect(await ledgerEntryKinds(h, reference)).toEqual(['PAYOUT_RESERVE', 'PAYOUT_SUCCESS']);
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 0, drift: 0 });
    await expectLedgerBalanced(h.services.db);
  });

  it('does not fit an amount mismatch (409 RECONCILIATION_ACTION_NOT_APPLICABLE)', async () => {
    const from = h.clock.now();
    const reference = await charge('237677001002', 9000);
    expect(await pollUntilFinal(reference)).toBe('SUCCESS');
    await tellMerchants(h);
    sim.statement.plant({ kind: 'AMOUNT_OF', reference, amount: 8000 });
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 1 });
    const opened = await openCaseOf(reference);
    const refused = await staff.resolve(opened.id, 'APPLY_OPERATOR_SUCCESS');
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('RECONCILIATION_ACTION_NOT_APPLICABLE');
    expect((await staff.resolve(opened.id, 'ACCEPT')).status).toBe(200);
    await expectLedgerBalanced(h.services.db);
  });
});

describe('MERCHANT_NOT_TOLD closes itself once the merchant is told (LIVE, MTN simulator)', () => {
  it('by reading the events feed, then by a webhook retry acknowledged 2xx: the next run of the period closes it', async () => {
    // Read through the feed: the merchant's server refuses every webhook meanwhile.
    const from = h.clock.now();
    receiver.fallback = { status: 500, body: 'down' };
    const read = await charge('237677001005', 3000);
    expect(await pollUntilFinal(read)).toBe('SUCCESS');
    await tellMerchants(h);
    h.clock.advance(2 * 3_600_000);
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 1, drift: 0 });
    const notTold = await openCaseOf(read);
    expect(notTold.kind).toBe('MERCHANT_NOT_TOLD');
    expect(await payInStatus(read)).toMatchObject({ reconciliation: 'IN_REVIEW' });

    let after = '';
    for (let page = 0; page < 20; page++) {
      const data = expectSuccess(await h.request('GET', `/api/v1/events?limit=100${after}`, { key: t.key }), 200);
      if (!data.hasMore) break;
      after = `&after=${encodeURIComponent(data.nextCursor)}`;
    }
    expect(await reconcileSince(from)).toMatchObject({ casesOpened: 0, drift: 0 });
    const closed = (await staff.as(staff.admin, 'GET', `/api/v1/admin/reconciliation/cases/${notTold.id}`)).json.data;
    expect(closed).toMatchObject({ status: 'RESOLVED', resolution: 'ACCEPT', resolutionNote: TOLD_SINCE_NOTE, resolvedBy: null });
    expect(await payInStatus(read)).not.toHaveProperty('reconciliation');

    // Told by a webhook retry: its delivery is answered 200 once the server is back.
    const from2 = h.clock.now();
    const hooked = await charge('237677001006', 2000);
    expect(await pollUntilFinal(hooked)).toBe('SUCCESS');
    await tellMerchants(h);
    h.clock.advance(2 * 3_600_000);
    expect(await reconcileSince(from2)).toMatchObject({ casesOpened: 1 });
    const notTold2 = await openCaseOf(hooked);
    expect(notTold2.kind).toBe('MERCHANT_NOT_TOLD');
    // A run before the merchant is told leaves it open.
    expect(await reconcileSince(from2)).toMatchObject({ casesOpened: 0 });
    expect((await openCaseOf(hooked)).id).toBe(notTold2.id);
    receiver.fallback = { status: 200, body: 'ok' };
    await tellMerchants(h);
    expect(hooksOf(hooked).at(-1)).toMatchObject({ event: 'payment.success' });
    await reconcileSince(from2);
    expect((await staff.openCases()).filter((c) => c.kind === 'MERCHANT_NOT_TOLD')).toEqual([]);
    expect(await payInStatus(hooked)).not.toHaveProperty('reconciliation');
    await expectLedgerBalanced(h.services.db);
  });
});
