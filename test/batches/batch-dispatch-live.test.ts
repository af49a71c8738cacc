/**
 * Sending an approved batch, with a LIVE key against the MTN MoMo simulator: before approval no
 * operator request is made; after it, the dispatcher sends each item as an ordinary pay-out (its
 * own reference, status and webhook), at most `BATCH_ITEMS_PER_RAIL_PER_RUN` per run, and each
 * item exactly once even when two dispatchers run at the same time. Declined numbers fail alone;
 * the batch ends PARTLY_FAILED with its `batch.partly_failed` event, the batch reservation is
 * emptied into the pay-outs' own, and `kolo ledger verify` is clean.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { approveBatch, dispatchBatches } from '../../src/batches/index.ts';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { batchItems } from '../../src/db/schema-batches.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import type { Harness, Tenant } from '../harness.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { mtnEnv, settled, waitUntil } from '../helpers/live.ts';
import { chargeBody, expectSuccess, PATHS } from '../helpers/merchant-api.ts';

let sim: MtnSimulator;
let h: Harness;
let t: Tenant;
const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30, delayedMs: 60_000 }),
  env: (s) => mtnEnv(s, { BATCH_ITEMS_PER_RAIL_PER_RUN: '5' }),
  async ready(l) {
    // LIVE pay-outs are funded by settled LIVE pay-ins.
    const funding = expectSuccess(await l.h.request('POST', PATHS.charge, { key: l.t.key, body: chargeBody({ payerAccount: '237677000900', amount: 500_000 }) }), 201);
    expect((await settled(l.h, funding.reference)).status).toBe('SUCCESS');
  },
});
beforeAll(() => ({ sim, h, t } = live));

const transfers = () => sim.requests.filter((r) => r.path === '/disbursement/v1_0/transfer' && r.method === 'POST');
const balance = (kind: 'AVAILABLE' | 'BATCH_RESERVED' | 'RESERVED') => accountBalance(h.services.db, merchantAccount(t.applicationId, 'LIVE', 'XAF', kind).key);

/** 20 items of 1,000 XAF; rows 5 and 12 go to numbers MTN declines (PAYEE_NOT_FOUND, NOT_ALLOWED). */
const ITEMS = Array.from({ length: 20 }, (_, i) => ({
  amount: 1000,
  currency: 'XAF',
  paymentMethod: 'MTN_MOMO_CM',
  beneficiaryAccount: i === 4 ? '237677000457' : i === 11 ? '237677000458' : `2376770${String(20000 + i)}`,
  beneficiaryName: `Agent ${i + 1}`,
  merchantReference: `AG-${i + 1}`,
}));

describe('dispatching an approved batch (LIVE, MTN simulator)', () => {
  it('sends nothing before approval, then each item once, at the per-rail rate, and closes PARTLY_FAILED', async () => {
    const created = expectSuccess(await h.request('POST', '/api/v1/pay-out/batches', { key: t.key, body: { items: ITEMS } }), 201).batch;
    const before = transfers().length;
    await dispatchBatches(h.services);
    await dispatchBatches(h.services);
    expect(transfers().length).toBe(before);

    const available = await balance('AVAILABLE');
    await approveBatch(h.services, t.applicationId, created.id, { personId: '00000000-0000-4000-8000-000000000001' });
    expect(await balance('BATCH_RESERVED')).toBe(created.reservedAmount);
    expect(await balance('AVAILABLE')).toBe(available - created.reservedAmount);

    // One run sends at most 5 items of the rail.
    const first = await dispatchBatches(h.services);
    expect(first).toMatchObject({ sent: 5, more: true });
    expect(transfers().length - before).toBe(5);
    // Two dispatchers at once, until nothing waits: every item still goes out exactly once.
    for (let i = 0; i < 10; i++) await Promise.all([dispatchBatches(h.services), dispatchBatches(h.services)]);
    const items = await h.services.db.select().from(batchItems).where(eq(batchItems.batchId, created.id));
    expect(items.every((i) => i.status === 'SENT' && i.transactionId !== null)).toBe(true);
    expect(new Set(items.map((i) => i.transactionId)).size).toBe(20);
    const sent = transfers().slice(before);
    expect(sent).toHaveLength(20);
    expect(new Set(sent.map((r) => JSON.parse(r.body).externalId)).size).toBe(20);
    // The batch reservation has moved, item by item, into the pay-outs' own reservations.
    expect(await balance('BATCH_RESERVED')).toBe(0);

    const view = () => h.request('GET', `/api/v1/pay-out/batches/${created.id}`, { key: t.key });
    await waitUntil('every pay-out to settle', async () => expectSuccess(await view(), 200).progress.pending === 0);
    await dispatchBatches(h.services);
    const done = expectSuccess(await view(), 200);
    expect(done).toMatchObject({ status: 'PARTLY_FAILED', progress: { waiting: 0, pending: 0, succeeded: 18, failed: 2 } });
    expect(done.items.filter((i: any) => i.status === 'FAILED').map((i: any) => i.rowNumber)).toEqual([5, 12]);
    for (const item of done.items) expect(item.reference).toMatch(/^PO-[0-9A-F]{12}$/);
    // Each item is an ordinary pay-out: its own status read.
    const one = expectSuccess(await h.request('GET', PATHS.payOutStatus(done.items[0].reference), { key: t.key }), 200);
    expect(one).toMatchObject({ status: 'SUCCESS', amount: 1000, beneficiaryAccount: '237677020000' });
    const events = await h.services.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.applicationId, t.applicationId), eq(webhookEvents.eventName, 'batch.partly_failed')));
    expect(events).toHaveLength(1);
    expect(await balance('RESERVED')).toBe(0);
    expect(await balance('AVAILABLE')).toBe(available - 18 * (1000 + (done.feeAmount / 20)));
    await expectLedgerBalanced(h.services.db);

    // The results file: one line per item, its status and pay-out reference.
    const file = await h.request('GET', `/api/v1/pay-out/batches/${created.id}/results.csv`, { key: t.key });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = file.text.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('rowNumber,merchantReference,beneficiaryAccount,beneficiaryName,paymentMethod,amount,feeAmount,currency,status,reference,failureReason');
    expect(lines).toHaveLength(21);
    expect(lines[5]).toMatch(/^5,AG-5,237677000457,Agent 5,MTN_MOMO_CM,1000,\d+,XAF,FAILED,PO-[0-9A-F]{12},/);

    // Retrying creates a new batch of the 2 failed items only; asking again gives the same batch.
    const retry = expectSuccess(await h.request('POST', `/api/v1/pay-out/batches/${created.id}/retry`, { key: t.key }), 201);
    expect(retry).toMatchObject({ status: 'AWAITING_APPROVAL', itemCount: 2, totalAmount: 2000 });
    expect(expectSuccess(await h.request('POST', `/api/v1/pay-out/batches/${created.id}/retry`, { key: t.key }), 201).id).toBe(retry.id);
    const sentBefore = transfers().length;
    await approveBatch(h.services, t.applicationId, retry.id, { personId: '00000000-0000-4000-8000-000000000001' });
    await dispatchBatches(h.services);
    const retried = expectSuccess(await h.request('GET', `/api/v1/pay-out/batches/${retry.id}`, { key: t.key }), 200);
    expect(retried.items.map((i: any) => i.rowNumber)).toEqual([5, 12]);
    expect(transfers().length - sentBefore).toBe(2);
    expect(transfers().slice(sentBefore).map((r) => JSON.parse(r.body).payee.partyId).sort()).toEqual(['237677000457', '237677000458']);
    await waitUntil('the retried pay-outs to settle', async () => expectSuccess(await h.request('GET', `/api/v1/pay-out/batches/${retry.id}`, { key: t.key }), 200).progress.pending === 0);
    await dispatchBatches(h.services);
    expect(expectSuccess(await h.request('GET', `/api/v1/pay-out/batches/${retry.id}`, { key: t.key }), 200).status).toBe('PARTLY_FAILED');
    await expectLedgerBalanced(h.services.db);
  });
});
