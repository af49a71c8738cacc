/**
 * A transfer with an idempotency key locks its merchant's available balance, then claims the key,
 * in one statement. A creation that claims a key first and locks the balance after (a refund) may
 * meet it on the same key at the same moment: PostgreSQL then ends one of them to break the
 * deadlock, and the transfer, run again, answers as a reused key would (409), never a 500.
 * PostgreSQL only (a second connection holds the other transaction; TEST_DATABASE_URL, as in CI).
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { startHarness, type Harness } from '../harness.ts';
import { countTransactions, expectError, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { tenantBalances } from '../helpers/ledger.ts';

let h: Harness;
let other: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  other = new pg.Client({ connectionString: h.config.databaseUrl! });
  await other.connect();
});
afterAll(async () => {
  await other?.end();
  await h?.close();
});

/** Sessions of this database waiting for a lock (other than the asking one). */
async function lockWaiters(): Promise<number> {
  const rows = rowsOf<{ n: number }>(
    await h.services.db.execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
  );
  return rows[0]!.n;
}

it('a keyed transfer meeting a refund that claimed its key first and then locks the balance answers 409, not 500', async () => {
  const t = await h.createTenant();
  // Two transfers one after the other write the opening balance and make it known: the keyed
  // transfer below is then one statement of its own.
  for (const n of [1, 2]) expect((await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 100, merchantReference: `S-${n}` }) })).status).toBe(201);
  const available = merchantAccount(t.applicationId, 'TEST', 'XAF', 'AVAILABLE');

  // The refund's shape: its transaction claims the key first…
  await other.query('begin');
  await other.query(
    `insert into idempotency_keys (application_id, key, endpoint, request_hash, transaction_id, response_status, response_body, created_at, expires_at)
     values ($1, 'shared', 'refund', 'refund-request', null, 201, '{}', now(), now() + interval '1 day')`,
    [t.applicationId],
  );
  // …the transfer locks the balance, then waits for the key…
  const transfer = h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 100 }), headers: { 'Idempotency-Key': 'shared' } });
  for (let i = 0; i < 200 && (await lockWaiters()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(await lockWaiters()).toBe(1);
  // …and the refund then locks the balance: a deadlock, which PostgreSQL breaks by ending the
  // transfer's statement (it waited first); the refund goes on and commits.
  await other.query('select id from ledger_accounts where key = $1 for no key update', [available.key]);
  await other.query('commit');

  expectError(await transfer, 409, 'IDEMPOTENCY_KEY_REUSED');
  expect(await countTransactions(h, t.applicationId)).toBe(2);
  expect(await tenantBalances(h, t)).toEqual({ available: 999_800, pending: 0, reserved: 200 });
});
