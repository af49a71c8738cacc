/**
 * The key lookups (src/db/queries/api-keys.ts) and status reads (src/db/queries/status-view.ts)
 * of each event-loop turn run on connections that always use their prepared statement's generic
 * plan: with PostgreSQL's default (`plan_cache_mode = auto`), a statement over a table that grew
 * since its last ANALYZE can be planned again at every execution, which costs more than running
 * it. Checked as the bench leaves the database: 20,000 transactions in tables that no ANALYZE has
 * visited yet. PostgreSQL only (TEST_DATABASE_URL, as in CI).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPayIns, openSeededPostgres, type SeededPostgres } from '../helpers/seeded-postgres.ts';
import { authenticateApiKey } from '../../src/accounts/api-keys.ts';
import { readTransactionStatus } from '../../src/payments/get-transaction.ts';
import { connectionOf } from '../../src/db/handle.ts';

const STATUS_READS = 'status_views_by_scoped_reference_v3';
const KEY_LOOKUPS = 'auth_api_keys_batch_v5';

let db: SeededPostgres;
let client: pg.Client;
let key: string;

beforeAll(async () => {
  db = await openSeededPostgres('kolo_read_plans', 3);
  ({ client } = db);
  key = db.seed.plainTextKey;
  // No ANALYZE during the test either.
  for (const table of ['transactions', 'api_keys', 'applications', 'accounts']) await client.query(`alter table ${table} set (autovacuum_enabled = false)`);
  await insertPayIns(db, 20_000, 'SUCCESS');
}, 60_000);

afterAll(async () => {
  await db?.close();
});

const reference = (g: number) => `PI-${g.toString(16).toUpperCase().padStart(12, '0')}`;

/** Generic and custom plans made so far, per statement name, on one session. */
async function plansOf(session: pg.Client | pg.PoolClient): Promise<Map<string, { generic: number; custom: number }>> {
  const { rows } = await session.query<{ name: string; generic_plans: string; custom_plans: string }>('select name, generic_plans, custom_plans from pg_prepared_statements');
  return new Map(rows.map((r) => [r.name, { generic: Number(r.generic_plans), custom: Number(r.custom_plans) }]));
}

describe('status reads and key lookups on PostgreSQL', () => {
  it('use one generic plan per connection through Kolo, and answer each read', async () => {
    for (let round = 0; round < 10; round++) {
      const first = round * 40 + 1;
      const reads = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          readTransactionStatus(db.runtime.services, { applicationId: db.seed.applicationId, environment: 'TEST' }, 'PAY_IN', reference(first + i)),
        ),
      );
      reads.forEach((read, i) => expect(read).toMatchObject({ reference: reference(first + i), amount: 5000 + first + i }));
      const auths = await Promise.all(Array.from({ length: 10 }, () => authenticateApiKey(db.runtime.services, key)));
      expect(auths.every((auth) => auth !== null && auth.applicationId === auths[0]!.applicationId)).toBe(true);
    }
    const pool = connectionOf(db.runtime.services.db).genericPlanPool!;
    expect(pool).toBeDefined();
    // Every connection of that pool at once (each checkout while the others are held is another one).
    const sessions = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
    try {
      const totals: Record<string, { generic: number; custom: number }> = { [STATUS_READS]: { generic: 0, custom: 0 }, [KEY_LOOKUPS]: { generic: 0, custom: 0 } };
      for (const session of sessions) {
        for (const [name, plans] of await plansOf(session)) {
          if (!(name in totals)) continue;
          totals[name]!.generic += plans.generic;
          totals[name]!.custom += plans.custom;
        }
      }
      expect(totals[STATUS_READS]!.generic).toBeGreaterThan(0);
      expect(totals[KEY_LOOKUPS]!.generic).toBeGreaterThan(0);
      expect(totals[STATUS_READS]!.custom).toBe(0);
      expect(totals[KEY_LOOKUPS]!.custom).toBe(0);
    } finally {
      for (const session of sessions) session.release();
    }
  });
});
