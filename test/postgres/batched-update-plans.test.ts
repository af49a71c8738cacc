/**
 * Issue 14: the batched updates keyed by id (initiation records, the poller's settlements and
 * next polls, the webhook worker's attempts) must find their rows by primary key whatever the
 * table's statistics say. Written with a literal `status = 'PENDING'`, they matched the partial
 * index of PENDING rows, and on a table that had grown since its last ANALYZE PostgreSQL read
 * every PENDING row of that index to update a batch of twenty (9 ms a batch under the bench,
 * growing with the table). Checked here on the generic plan each prepared statement gets, with
 * 5,000 PENDING rows inserted and never analyzed. PostgreSQL only (TEST_DATABASE_URL, as in CI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../harness.ts';
import { openRuntime, type Runtime } from '../../src/bootstrap.ts';
import { loadConfig } from '../../src/config.ts';
import { seedDemo } from '../../src/accounts/demo-seed.ts';
import { declaredStatements } from '../../src/db/statement.ts';

/** The statements under test and the table each one updates. */
const KEYED_UPDATES: Record<string, string> = {
  record_initiations_v3: 'transactions',
  settle_many_v2: 'transactions',
  schedule_next_polls_v2: 'transactions',
  record_webhook_attempts_v2: 'webhook_deliveries',
};

let database: { url: string; drop: () => Promise<void> };
let runtime: Runtime;
let client: pg.Client;
let dataDir: string;

beforeAll(async () => {
  database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, 'kolo_plans');
  dataDir = mkdtempSync(join(tmpdir(), 'kolo-plans-'));
  runtime = await openRuntime(loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PG_POOL_MAX: '2' }));
  const seed = await seedDemo(runtime.services);
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // Statistics as the migrations left them (an empty table), then 5,000 PENDING rows.
  await client.query('analyze transactions');
  await client.query(
    `insert into transactions (id, reference, application_id, direction, type, environment, status, amount, currency,
       payment_method, payer_account, operator_reference, initiation_outcome, initiated_at, deadline_at, next_poll_at,
       poll_attempts, created_at, updated_at)
     select gen_random_uuid(), 'PI-' || lpad(upper(to_hex(g)), 12, '0'), $1, 'PAY_IN', 'CHARGE', 'TEST', 'PENDING', 5000, 'XAF',
       'MTN_MOMO_CM', '237677000001', 'SBX-' || g, 'ACCEPTED', now(), now() + interval '1 day', now() + interval '1 hour', 0, now(), now()
     from generate_series(1, 5000) g`,
    [seed!.applicationId],
  );
}, 60_000);

afterAll(async () => {
  await client?.end();
  await runtime?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
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
