/**
 * A status change planned from a row its caller read (an operator's callback reads the row, asks
 * the operator, then applies the answer without reading the row again) is written only if the row
 * has not moved since: otherwise it is read and planned again. A pay-out whose initiation was
 * recorded after the caller's read is held at its deadline, not released; a charge's webhook event
 * says what the row says when it is written; a read still current is applied as it is.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { ledgerEntries } from '../../src/db/schema-ledger.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { transactionsForTransition } from '../../src/db/queries/transactions.ts';
import { applyTransition } from '../../src/payments/apply-transition.ts';
import { expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

let h: Harness;
let t: Tenant;

beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant({ application: { webhookUrl: 'http://127.0.0.1:9/hooks' } });
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

const charge = { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' };

/** The row of a new charge or transfer, as a status change reads it. */
async function created(path: string, body: Record<string, unknown>) {
  const reference = expectSuccess(await h.request('POST', path, { key: t.key, body }), 201).reference as string;
  const row = await transactionRow(h, reference);
  return { reference, id: row.id };
}

async function readForTransition(id: string) {
  const [read] = await transactionsForTransition(h.services.db, [id]);
  return read!;
}

async function entryKinds(id: string): Promise<string[]> {
  const rows = await h.services.db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.transactionId, id));
  return rows.map((r) => r.kind);
}

describe('a status change planned from the caller’s read', () => {
  it('holds a pay-out whose initiation was recorded after the read, instead of releasing it', async () => {
    const payOut = await created(PATHS.transfer, transferBody());
    await h.services.db.update(transactions).set({ initiatedAt: null }).where(eq(transactions.id, payOut.id));
    const read = await readForTransition(payOut.id);
    // Recorded after the caller's read: the operator may have the pay-out now.
    await h.services.db.update(transactions).set({ initiatedAt: h.clock.now() }).where(eq(transactions.id, payOut.id));

    const updated = await applyTransition(h.services, {
      transactionId: payOut.id,
      event: 'TIMED_OUT',
      cause: 'DEADLINE',
      failureCode: 'TIMEOUT',
      failureReason: 'Pas de réponse de l’opérateur.',
      readAs: read,
    });

    expect(updated).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    expect(await entryKinds(payOut.id)).toEqual(['PAYOUT_RESERVE']);
    const status = expectSuccess(await h.request('GET', PATHS.payOutStatus(payOut.reference), { key: t.key }), 200);
    expect(status.status).toBe('FAILED');
    expect(status.heldAmount).toBeGreaterThan(0);
  });

  it('announces a charge as the row is when written, not as it was read', async () => {
    const payIn = await created(PATHS.charge, charge);
    const read = await readForTransition(payIn.id);
    await h.services.db.update(transactions).set({ payerName: 'Awa Ngono' }).where(eq(transactions.id, payIn.id));

    const updated = await applyTransition(h.services, { transactionId: payIn.id, event: 'MONEY_MOVED', cause: 'CALLBACK', readAs: read });

    expect(updated).toMatchObject({ status: 'SUCCESS', payerName: 'Awa Ngono' });
    const announced = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, payIn.id));
    expect(announced.map((e) => e.eventName)).toEqual(['payment.success']);
    expect(JSON.parse(announced[0]!.payload).data).toMatchObject({ reference: payIn.reference, status: 'SUCCESS', payerName: 'Awa Ngono' });
  });

  it('applies a read still current once: one event, one entry, one webhook event', async () => {
    const payIn = await created(PATHS.charge, charge);
    const read = await readForTransition(payIn.id);

    const [first, again] = await Promise.all([
      applyTransition(h.services, { transactionId: payIn.id, event: 'MONEY_MOVED', cause: 'CALLBACK', readAs: read }),
      applyTransition(h.services, { transactionId: payIn.id, event: 'MONEY_MOVED', cause: 'CALLBACK', readAs: read }),
    ]);

    expect([first, again].filter((r) => r !== null)).toHaveLength(1);
    const events = await h.services.db
      .select()
      .from(transactionEvents)
      .where(and(eq(transactionEvents.transactionId, payIn.id), eq(transactionEvents.toStatus, 'SUCCESS')));
    expect(events).toHaveLength(1);
    expect(await entryKinds(payIn.id)).toEqual(['PAYIN_SUCCESS']);
    expect(await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, payIn.id))).toHaveLength(1);
  });

  it('answers each changed row exactly as it is stored', async () => {
    const payIn = await created(PATHS.charge, charge);
    const paid = await applyTransition(h.services, { transactionId: payIn.id, event: 'MONEY_MOVED', cause: 'CALLBACK', operatorTransactionId: 'MP-1', readAs: await readForTransition(payIn.id) });
    expect(paid?.feeAmount).not.toBeNull();
    expect(paid).toEqual(await transactionRow(h, payIn.reference));

    const payOut = await created(PATHS.transfer, transferBody());
    const held = await applyTransition(h.services, { transactionId: payOut.id, event: 'TIMED_OUT', cause: 'DEADLINE', failureCode: 'TIMEOUT', failureReason: 'Pas de réponse.' });
    expect(held?.lateWatchUntil).not.toBeNull();
    expect(held).toEqual(await transactionRow(h, payOut.reference));

    const declined = await created(PATHS.charge, charge);
    const failed = await applyTransition(h.services, { transactionId: declined.id, event: 'DECLINED', cause: 'POLL', failureCode: 'INSUFFICIENT_FUNDS', failureReason: 'Solde insuffisant.' });
    expect(failed).toEqual(await transactionRow(h, declined.reference));
  });
});
