/**
 * Late successes announced by the operator's callback (a late success is never dropped): a charge
 * failed at its rail's deadline and is no longer watched (here LATE_SUCCESS_WATCH_HOURS=0); the
 * operator then calls back. The callback proves nothing, but it reopens the watch: the next
 * background run asks the operator, whose SUCCEEDED is recorded as a late success (suspense,
 * LATE_SUCCESS event, payment.late_success, refund to the payer). A callback on a transaction that
 * was declined outright changes nothing.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { providers, transactionEvents } from '../../src/db/schema.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { callbacksIdle } from '../../src/http/routes/callbacks.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ LATE_SUCCESS_WATCH_HOURS: '0' });
  await h.services.db.update(providers).set({ pendingTimeoutSeconds: 60 }).where(eq(providers.code, 'MTN_MOMO_CM'));
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

async function tick(ms: number): Promise<void> {
  h.clock.advance(ms);
  await pollOnce(h.services);
}

async function charge(key: string, payerAccount: string): Promise<string> {
  const created = expectSuccess(await h.request('POST', PATHS.charge, { key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount } }), 201);
  return created.reference as string;
}

describe('an operator callback on a pay-in closed without a final answer', () => {
  it('reopens the watch, and the status query records the late success', async () => {
    const t = await h.createTenant({ application: { webhookUrl: 'https://merchant.example/hooks' } });
    const reference = await charge(t.key, '237677000198'); // the sandbox's late number: succeeds after 120 s
    await tick(61_000);
    const failed = await transactionRow(h, reference);
    expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', lateWatchUntil: null, isLateSuccess: false });
    await tick(70_000); // the money moves at the operator; nobody is asking any more
    expect((await transactionRow(h, reference)).isLateSuccess).toBe(false);

    const callback = await h.request('POST', `/api/v1/callbacks/mtn-momo/${failed.callbackToken}`, { body: { status: 'SUCCESSFUL' } });
    expect(callback.status).toBe(200);
    // The route answers at once and handles the callback in the background: wait for it.
    await callbacksIdle(h.services);
    await tick(1000);
    const row = await transactionRow(h, reference);
    expect(row).toMatchObject({ status: 'FAILED', isLateSuccess: true });
    const history = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id)).orderBy(asc(transactionEvents.id));
    expect(history.at(-1)).toMatchObject({ cause: 'LATE_SUCCESS' });
    const names = (await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id))).map((e) => e.eventName);
    expect(names).toContain('payment.late_success');
    // A second callback finds it recorded: nothing more happens.
    expect((await h.request('POST', `/api/v1/callbacks/mtn-momo/${failed.callbackToken}`, { body: {} })).status).toBe(200);
    await callbacksIdle(h.services);
    await tick(1000);
    expect((await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id))).length).toBe(history.length);
  });

  it('changes nothing on a pay-in the operator declined', async () => {
    const t = await h.createTenant();
    const reference = await charge(t.key, '237677000100'); // declined by the payer
    await tick(5_000);
    const declined = await transactionRow(h, reference);
    expect(declined).toMatchObject({ status: 'FAILED', failureCode: 'REJECTED_BY_PAYER' });
    expect((await h.request('POST', `/api/v1/callbacks/mtn-momo/${declined.callbackToken}`, { body: {} })).status).toBe(200);
    await callbacksIdle(h.services);
    await tick(1000);
    expect(await transactionRow(h, reference)).toMatchObject({ status: 'FAILED', isLateSuccess: false, lateWatchUntil: null });
  });
});
