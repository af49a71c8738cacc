/**
 * Status changes asked at the same moment (callbacks arriving together) are written in one
 * database transaction each group (`applyTransition`'s group commit), each caller still getting
 * its own answer: the updated row, null when its change no longer applies, or its own error —
 * a change whose side records fail is refused alone, the others of its group commit. Two changes
 * of one transaction asked together: exactly one applies.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { applyTransition, type StatusChange } from '../../src/payments/apply-transition.ts';
import type { Db } from '../../src/db/client.ts';
import { expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

let h: Harness;
let t: Tenant;
/** Sizes of the groups the status listeners saw, and the transaction whose listener fails. */
const groups: number[] = [];
let failFor: string | null = null;

beforeAll(async () => {
  h = await startHarness();
  const listener = {
    written: async (_tx: Db, changes: StatusChange[]) => {
      groups.push(changes.length);
      if (changes.some((c) => c.row.id === failFor)) throw new Error('side record refused');
    },
  };
  h.services.statusListeners.push(listener);
  t = await h.createTenant();
});
afterAll(async () => h?.close());

async function pendingCharges(n: number): Promise<string[]> {
  const references: string[] = [];
  for (let i = 0; i < n; i++) {
    references.push(
      expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 1000 + i, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' } }), 201)
        .reference as string,
    );
  }
  const rows = await h.services.db.select({ id: transactions.id, reference: transactions.reference }).from(transactions).where(inArray(transactions.reference, references));
  const byReference = new Map(rows.map((r) => [r.reference, r.id]));
  return references.map((r) => byReference.get(r)!);
}

describe('group commit of status changes', () => {
  it('writes changes asked together in one transaction, each caller answered with its own row', async () => {
    const ids = await pendingCharges(6);
    groups.length = 0;
    const rows = await Promise.all(ids.map((id) => applyTransition(h.services, { transactionId: id, event: 'MONEY_MOVED', cause: 'CALLBACK' })));
    expect(rows.map((r) => [r?.id, r?.status])).toEqual(ids.map((id) => [id, 'SUCCESS']));
    expect(groups).toEqual([6]);
    const events = await h.services.db.select().from(transactionEvents).where(inArray(transactionEvents.transactionId, ids));
    expect(events.filter((e) => e.toStatus === 'SUCCESS')).toHaveLength(6);
    await expectLedgerBalanced(h.services.db);
  });

  it('refuses only the change whose side records fail; the rest of its group commits', async () => {
    const ids = await pendingCharges(4);
    failFor = ids[2]!;
    const results = await Promise.allSettled(ids.map((id) => applyTransition(h.services, { transactionId: id, event: 'MONEY_MOVED', cause: 'CALLBACK' })));
    failFor = null;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const rows = await h.services.db.select({ id: transactions.id, status: transactions.status }).from(transactions).where(inArray(transactions.id, ids));
    const statusOf = new Map(rows.map((r) => [r.id, r.status]));
    expect(ids.map((id) => statusOf.get(id))).toEqual(['SUCCESS', 'SUCCESS', 'PENDING', 'SUCCESS']);
    await expectLedgerBalanced(h.services.db);
  });

  it('applies exactly one of two changes of the same transaction asked together', async () => {
    const [id] = await pendingCharges(1);
    const [paid, declined] = await Promise.all([
      applyTransition(h.services, { transactionId: id!, event: 'MONEY_MOVED', cause: 'CALLBACK' }),
      applyTransition(h.services, { transactionId: id!, event: 'DECLINED', cause: 'CALLBACK', failureCode: 'INSUFFICIENT_FUNDS', failureReason: 'Solde insuffisant.' }),
    ]);
    expect([paid, declined].filter((r) => r !== null)).toHaveLength(1);
    const [row] = await h.services.db.select().from(transactions).where(eq(transactions.id, id!));
    expect(row!.status).toBe((paid ?? declined)!.status);
    const events = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, id!));
    expect(events.filter((e) => e.fromStatus === 'PENDING' && e.toStatus !== 'PENDING')).toHaveLength(1);
    await expectLedgerBalanced(h.services.db);
  });
});
