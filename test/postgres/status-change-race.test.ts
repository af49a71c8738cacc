/**
 * A status change is planned from the row as it was read and written only if the row is still at
 * that version: when another writer updates the row in between (here a second connection holding
 * the row's lock until the change waits on it), the change reads the row again and is planned from
 * what that writer left. A pay-out whose deadline passes while its initiation is being recorded is
 * held, not released (the operator may have paid it), and a charge's webhook event says what the
 * row says. PostgreSQL only (two connections; TEST_DATABASE_URL, as in CI).
 */
import { and, eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { ledgerEntries } from '../../src/db/schema-ledger.ts';
import { webhookEvents } from '../../src/db/schema-webhooks.ts';
import { applyTransition, type TransitionInput } from '../../src/payments/apply-transition.ts';
import type { TransactionRow } from '../../src/payments/transaction-view.ts';
import { expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { transactionRow } from '../helpers/webhooks.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';

let h: Harness;
let t: Tenant;
let other: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant({ application: { webhookUrl: 'http://127.0.0.1:9/hooks' } });
  other = new pg.Client({ connectionString: h.config.databaseUrl! });
  await other.connect();
  // The application's first money movement opens its sandbox balance: done before the races.
  const first = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: charge() }), 201);
  await applyTransition(h.services, { transactionId: (await transactionRow(h, first.reference as string)).id, event: 'MONEY_MOVED', cause: 'TEST' });
});
afterAll(async () => {
  await other?.end();
  await h?.close();
});
afterEach(async () => expectLedgerBalanced(h.services.db));

function charge() {
  return { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' };
}

/**
 * Applies `input` while the other connection updates its row with `update` (SQL after `set`):
 * the other connection takes the row's lock first, the change reads the row and waits on the
 * lock with its write, then the other connection commits. Returns what the change returned.
 */
async function applyDuringUpdate(input: TransitionInput, update: string): Promise<TransactionRow | null> {
  await other.query('begin');
  await other.query(`update transactions set ${update} where id = $1`, [input.transactionId]);
  const { rows: mine } = await other.query<{ xid: string }>('select backend_xid::text as xid from pg_stat_activity where pid = pg_backend_pid()');
  const applied = applyTransition(h.services, input);
  // Waiting: a backend asks for this transaction's lock (it wants the row this transaction updated).
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await other.query(`select count(*)::int as n from pg_locks where locktype = 'transactionid' and not granted and transactionid::text = $1`, [mine[0]!.xid]);
    if (rows[0].n > 0) break;
    if (Date.now() > deadline) {
      await other.query('rollback');
      throw new Error('the status change never waited on the row');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await other.query('commit');
  return applied;
}

describe('a row updated between the status change’s read and its write', () => {
  it('holds a pay-out whose initiation was recorded meanwhile instead of releasing it', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201);
    const row = await transactionRow(h, created.reference as string);
    // Not sent yet, as far as the status change's read can tell.
    await h.services.db.update(transactions).set({ initiatedAt: null }).where(eq(transactions.id, row.id));

    const updated = await applyDuringUpdate(
      { transactionId: row.id, event: 'TIMED_OUT', cause: 'DEADLINE', failureCode: 'TIMEOUT', failureReason: 'Pas de réponse de l’opérateur.' },
      `initiated_at = now()`,
    );

    expect(updated).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT', isReservationHeld: true });
    expect(updated?.initiatedAt).not.toBeNull();
    const entries = await h.services.db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.transactionId, row.id));
    expect(entries.map((e) => e.kind)).toEqual(['PAYOUT_RESERVE']);
    const status = expectSuccess(await h.request('GET', PATHS.payOutStatus(created.reference as string), { key: t.key }), 200);
    expect(status).toMatchObject({ status: 'FAILED', heldAmount: row.reservedAmount });
  });

  it('announces a charge with the row the other writer left, once, with one event and one entry', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: charge() }), 201);
    const row = await transactionRow(h, created.reference as string);

    const updated = await applyDuringUpdate({ transactionId: row.id, event: 'MONEY_MOVED', cause: 'CALLBACK' }, `payer_name = 'Awa Ngono'`);

    expect(updated).toMatchObject({ status: 'SUCCESS', payerName: 'Awa Ngono' });
    const events = await h.services.db.select().from(transactionEvents).where(and(eq(transactionEvents.transactionId, row.id), eq(transactionEvents.toStatus, 'SUCCESS')));
    expect(events).toHaveLength(1);
    const entries = await h.services.db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.transactionId, row.id));
    expect(entries.map((e) => e.kind)).toEqual(['PAYIN_SUCCESS']);
    const announced = await h.services.db.select().from(webhookEvents).where(eq(webhookEvents.transactionId, row.id));
    expect(announced.map((e) => e.eventName)).toEqual(['payment.success']);
    expect(JSON.parse(announced[0]!.payload).data).toMatchObject({ status: 'SUCCESS', payerName: 'Awa Ngono', reference: created.reference });
  });
});
