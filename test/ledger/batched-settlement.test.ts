/**
 * The poller's batched settlement: `applyTransitions` writes many status changes in one database
 * transaction with exactly the records `applyTransition` writes one by one — the status, one event
 * each, the ledger entry (fees, balances), the webhook outbox row — skips what no longer applies,
 * and a full claim makes the poller go again at once.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookDeliveries, webhookEvents } from '../../src/db/schema-webhooks.ts';
import { applyTransitions, type TransitionInput } from '../../src/payments/apply-transition.ts';
import { claimDueTransactions, pollOnce } from '../../src/jobs/status-poller.ts';
import { transactionsForTransition } from '../../src/db/queries/transactions.ts';
import { ledgerEntries } from '../../src/db/schema-ledger.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';

const OPENING = 1_000_000;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ POLLER_BATCH_SIZE: '20' });
});
afterAll(async () => h?.close());

async function charge(t: Tenant, amount: number, payerAccount = '237677000001'): Promise<string> {
  const created = expectSuccess(
    await h.request('POST', PATHS.charge, { key: t.key, body: { amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount } }),
    201,
  );
  return created.reference as string;
}

async function idsOf(references: string[]): Promise<Map<string, string>> {
  const rows = await h.services.db.select({ id: transactions.id, reference: transactions.reference }).from(transactions).where(inArray(transactions.reference, references));
  return new Map(rows.map((r) => [r.reference, r.id]));
}

describe('applyTransitions', () => {
  it('settles a mixed batch in one go: statuses, one event each, fees and balances, events for every change, deliveries only where a webhook URL is set', async () => {
    const withHook = await h.createTenant({ application: { webhookUrl: 'https://merchant.example/hooks' } });
    const without = await h.createTenant();
    const paidWithHook = [await charge(withHook, 5000), await charge(withHook, 1100), await charge(withHook, 20_000)];
    const paidWithout = [await charge(without, 1099), await charge(without, 5000)];
    const declined = [await charge(withHook, 5000), await charge(without, 5000)];
    const ids = await idsOf([...paidWithHook, ...paidWithout, ...declined]);

    const inputs: TransitionInput[] = [
      ...[...paidWithHook, ...paidWithout].map((r) => ({ transactionId: ids.get(r)!, event: 'MONEY_MOVED' as const, cause: 'POLL' })),
      ...declined.map((r) => ({
        transactionId: ids.get(r)!,
        event: 'DECLINED' as const,
        cause: 'POLL',
        failureCode: 'INSUFFICIENT_FUNDS' as const,
        failureReason: 'Solde insuffisant.',
      })),
      // Not a transaction: ignored.
      { transactionId: '00000000-0000-4000-8000-000000000000', event: 'MONEY_MOVED', cause: 'POLL' },
    ];
    const changed = await applyTransitions(h.services, inputs);
    expect(changed.map((r) => r.reference).sort()).toEqual([...paidWithHook, ...paidWithout, ...declined].sort());

    for (const reference of [...paidWithHook, ...paidWithout]) {
      const row = changed.find((r) => r.reference === reference)!;
      expect(row).toMatchObject({ status: 'SUCCESS', failureCode: null, nextPollAt: null });
      expect(row.completedAt).toBeInstanceOf(Date);
    }
    // 1.5 % half-up: 5 000 → 75, 1 100 → 17, 20 000 → 300, 1 099 → 16.
    const fees = Object.fromEntries(changed.map((r) => [r.reference, r.feeAmount]));
    expect([fees[paidWithHook[0]!], fees[paidWithHook[1]!], fees[paidWithHook[2]!], fees[paidWithout[0]!]]).toEqual([75, 17, 300, 16]);
    for (const reference of declined) {
      expect(changed.find((r) => r.reference === reference)).toMatchObject({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', failureReason: 'Solde insuffisant.' });
    }

    // One status-change event per transaction, from PENDING.
    const events = await h.services.db.select().from(transactionEvents).where(inArray(transactionEvents.transactionId, [...ids.values()]));
    const changes = events.filter((e) => e.toStatus !== 'PENDING');
    expect(changes).toHaveLength(7);
    for (const e of changes) expect(e).toMatchObject({ fromStatus: 'PENDING', cause: 'POLL' });
    expect(changes.filter((e) => e.toStatus === 'FAILED').every((e) => e.failureCode === 'INSUFFICIENT_FUNDS')).toBe(true);

    // One ledger entry per success, balances credited with amount − fee, the ledger balanced.
    const entryCount = async () =>
      (await h.services.db.select({ id: ledgerEntries.id }).from(ledgerEntries).where(inArray(ledgerEntries.transactionId, [...ids.values()]))).length;
    expect(await entryCount()).toBe(5);
    expect((await tenantBalances(h, withHook)).available).toBe(OPENING + (5000 - 75) + (1100 - 17) + (20_000 - 300));
    expect((await tenantBalances(h, without)).available).toBe(OPENING + (1099 - 16) + (5000 - 75));
    await expectLedgerBalanced(h.services.db);

    // The outbox: one event per change of either application (the events API lists them), and one
    // due delivery per event of the application with a URL only.
    const allEvents = await h.services.db.select().from(webhookEvents).where(inArray(webhookEvents.transactionId, [...ids.values()]));
    const hookEvents = allEvents.filter((e) => e.applicationId === withHook.applicationId);
    const otherEvents = allEvents.filter((e) => e.applicationId === without.applicationId);
    expect(hookEvents.map((e) => e.eventName).sort()).toEqual(['payment.failed', 'payment.success', 'payment.success', 'payment.success']);
    expect(otherEvents).toHaveLength(allEvents.length - hookEvents.length);
    expect(otherEvents.length).toBeGreaterThan(0);
    for (const e of allEvents) {
      const payload = JSON.parse(e.payload);
      expect(payload).toMatchObject({ event: e.eventName, applicationId: e.applicationId, id: e.id });
      const deliveries = await h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, e.id));
      if (e.applicationId === withHook.applicationId) expect(deliveries).toMatchObject([{ status: 'PENDING', attemptCount: 0 }]);
      else expect(deliveries).toEqual([]);
    }
    const success = hookEvents.find((e) => JSON.parse(e.payload).data.reference === paidWithHook[1])!;
    expect(JSON.parse(success.payload).data).toMatchObject({ status: 'SUCCESS', amount: 1100, feeAmount: 17, netAmount: 1083 });

    // Applied again: nothing applies any more, nothing is written.
    expect(await applyTransitions(h.services, inputs)).toEqual([]);
    expect(await entryCount()).toBe(5);
    expect(await h.services.db.select().from(webhookEvents).where(inArray(webhookEvents.transactionId, [...ids.values()]))).toHaveLength(allEvents.length);
  });
});

describe('the poller in batches', () => {
  it('claims a full batch, says more is due, and settles the rest on the next tick; every charge ends SUCCESS', async () => {
    const t = await h.createTenant();
    const references: string[] = [];
    for (let i = 0; i < 30; i++) references.push(await charge(t, 1000 + i));
    h.clock.advance(h.config.sandboxDelayMs + 60_000);
    const first = await pollOnce(h.services);
    expect(first).toMatchObject({ claimed: 20, more: true });
    expect(first.outcomes.SUCCESS).toBe(20);
    const second = await pollOnce(h.services);
    expect(second.claimed).toBe(10);
    expect(second.more).toBe(false);
    const rows = await h.services.db.select({ status: transactions.status }).from(transactions).where(inArray(transactions.reference, references));
    expect(rows.every((r) => r.status === 'SUCCESS')).toBe(true);
    await expectLedgerBalanced(h.services.db);
  });

  // The poller's status change starts from the rows its claim returned; a row claimed and then
  // changed is read again (the compare-and-set on its version, test/ledger/status-change-version).
  it('claims each row as a status change reads it: the row as leased, its version, its fee terms', async () => {
    const t = await h.createTenant();
    const reference = await charge(t, 2500);
    h.clock.advance(h.config.sandboxDelayMs + 60_000);
    const [leased, ...others] = await claimDueTransactions(h.services, 20);
    expect(others).toEqual([]);
    expect(leased!.row.reference).toBe(reference);
    expect(leased!.row.pollAttempts).toBe(1);
    expect(leased!.payInTerms.feePercentage).not.toBeNull();
    expect(await transactionsForTransition(h.services.db, [leased!.row.id])).toEqual([leased]);

    await h.services.db.update(transactions).set({ nextPollAt: h.clock.now() }).where(eq(transactions.id, leased!.row.id));
    const [reread] = await transactionsForTransition(h.services.db, [leased!.row.id]);
    expect(reread!.version).not.toBe(leased!.version);
  });
});
