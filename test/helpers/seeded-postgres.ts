/**
 * A fresh PostgreSQL database (TEST_DATABASE_URL) with Kolo's runtime opened on it, the demo
 * merchant seeded, and a plain client for the test's own SQL: for the plan checks of
 * test/postgres, which build a table's state with SQL and look at what PostgreSQL does with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freshPostgresDatabase } from '../harness.ts';
import { openRuntime, type Runtime } from '../../src/bootstrap.ts';
import { loadConfig } from '../../src/config.ts';
import { seedDemo, type DemoSeed } from '../../src/accounts/demo-seed.ts';

/** The opened database; `close` stops the runtime and the client, then drops the database. */
export interface SeededPostgres {
  runtime: Runtime;
  seed: DemoSeed;
  client: pg.Client;
  close(): Promise<void>;
}

/** Opens it: database named after `prefix`, runtime with `PG_POOL_MAX` = `poolMax`. */
export async function openSeededPostgres(prefix: string, poolMax: number): Promise<SeededPostgres> {
  const database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, prefix);
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PG_POOL_MAX: String(poolMax) }));
  const seed = (await seedDemo(runtime.services))!;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return {
    runtime,
    seed,
    client,
    async close() {
      await client.end();
      await runtime.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Inserts `count` TEST pay-ins of the demo application with one SQL statement: references
 * `PI-` + the hexadecimal of 1…count on 12 digits, amount 5000 + that number; PENDING ones are due
 * for a poll in an hour, SUCCESS ones not at all.
 */
export async function insertPayIns(db: SeededPostgres, count: number, status: 'PENDING' | 'SUCCESS'): Promise<void> {
  await db.client.query(
    `insert into transactions (id, reference, application_id, direction, type, environment, status, amount, currency,
       payment_method, payer_account, operator_reference, initiation_outcome, initiated_at, deadline_at, next_poll_at,
       poll_attempts, created_at, updated_at)
     select gen_random_uuid(), 'PI-' || lpad(upper(to_hex(g)), 12, '0'), $1, 'PAY_IN', 'CHARGE', 'TEST', $2, 5000 + g, 'XAF',
       'MTN_MOMO_CM', '237677000001', 'SBX-' || g, 'ACCEPTED', now(), now() + interval '1 day',
       case when $2 = 'PENDING' then now() + interval '1 hour' end, 0, now(), now()
     from generate_series(1, $3::int) g`,
    [db.seed.applicationId, status, count],
  );
}
