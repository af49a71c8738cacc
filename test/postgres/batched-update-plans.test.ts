/**
 * Issue 14: the batched updates keyed by id (initiation records, the poller's settlements and
 * next polls, the webhook worker's attempts) must find their rows by primary key whatever the
 * table's statistics say. Written with a literal `status = 'PENDING'`, they matched the partial
 * index of PENDING rows, and on a table that had grown since its last ANALYZE PostgreSQL read
 * every PENDING row of that index to update a batch of twenty (9 ms a batch under the bench,
 * growing with the table). Checked here on the generic plan each prepared statement gets, with
 * 5,000 PENDING rows inserted and never analyzed. PostgreSQL only (TEST_DATABASE_URL, as in CI).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPayIns, openSeededPostgres, type SeededPostgres } from '../helpers/seeded-postgres.ts';
import { declaredStatements } from '../../src/db/statement.ts';

/** The statements under test and the table each one updates. */
const KEYED_UPDATES: Record<string, string> = {
  record_initiations_v3: 'transactions',
  settle_many_v2: 'transactions',
  schedule_next_polls_v2: 'transactions',
  record_webhook_attempts_v2: 'webhook_deliveries',
};

let db: SeededPostgres;
let client: pg.Client;

beforeAll(async () => {
  db = await openSeededPostgres('kolo_plans', 2);
  ({ client } = db);
  // Statistics as the migrations left them (an empty table), then 5,000 PENDING rows.
  await client.query('analyze transactions');
  await insertPayIns(db, 5000, 'PENDING');
}, 60_000);

afterAll(async () => {
  await db?.close();
});

/** The generic plan of a declared statement, as EXPLAIN prints it. */
async function genericPlan(name: string): Promise<string> {
  const st = declaredStatements().get(name);
  if (!st) throw new Error(`statement ${name} is not declared`);
  const parameters = Math.max(...[...st.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  await client.query('set plan_cache_mode = force_generic_plan');
  await client.query(`prepare plan_check as ${st.text}`);
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `explain execute plan_check(${Array.from({ length: parameters }, () => 'null').join(', ')})`,
    );
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('deallocate plan_check');
  }
}

describe('batched updates keyed by id', () => {
  for (const [name, table] of Object.entries(KEYED_UPDATES)) {
    it(`${name} reaches ${table} by its primary key, never by the partial PENDING index nor a sequential scan`, async () => {
      const plan = await genericPlan(name);
      expect(plan).toContain(`${table}_pkey`);
      expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}`));
      expect(plan).not.toMatch(/pending_poll_idx|_due_idx|pending_idx/);
    });
  }
});
