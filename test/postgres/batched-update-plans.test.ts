/**
 * The batched updates keyed by id (initiation records, the poller's settlements and next polls, the
 * webhook worker's attempts) must find their rows by primary key whatever the table's statistics
 * say. Written with a literal `status = 'PENDING'`, they matched the partial index of PENDING rows,
 * and on a table that had grown since its last ANALYZE PostgreSQL read every PENDING row of that
 * index to update a batch of twenty (9 ms a batch under the bench, growing with the table). Checked
 * here on the generic plan each prepared statement gets, with 5,000 PENDING rows inserted and never
 * analyzed. PostgreSQL only (TEST_DATABASE_URL, as in CI).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPayIns, openSeededPostgres, type SeededPostgres } from '../helpers/seeded-postgres.ts';
import { declaredStatements } from '../../src/db/statement.ts';
// The modules declaring the statements under test (the runtime does not load the background jobs).
import '../../src/db/queries/transactions.ts';
import '../../src/db/queries/checkout-attempts.ts';
import '../../src/db/queries/webhooks.ts';
import '../../src/db/queries/float.ts';
import '../../src/db/queries/api-keys.ts';
import '../../src/db/queries/reconciliation.ts';
import '../../src/db/queries/transaction-pages.ts';
import '../../src/db/queries/status-view.ts';
import '../../src/db/queries/ledger.ts';
import '../../src/db/queries/rails.ts';

/** The statements under test and the table each one updates. */
const KEYED_UPDATES: Record<string, string> = {
  record_initiations_v4: 'transactions',
  settle_with_effects_v4: 'transactions',
  schedule_next_polls_v3: 'transactions',
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
  const rows = await explainGeneric<{ 'QUERY PLAN': string }>(name, 'explain');
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The rows `explain` (with its options) prints for a declared statement's generic plan, all parameters null. */
async function explainGeneric<Row extends Record<string, unknown>>(name: string, explain: string): Promise<Row[]> {
  const st = declaredStatements().get(name);
  if (!st) throw new Error(`statement ${name} is not declared`);
  const parameters = Math.max(0, ...[...st.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  await client.query('set plan_cache_mode = force_generic_plan');
  await client.query(`prepare plan_check as ${st.text}`);
  try {
    const { rows } = await client.query<Row>(`${explain} execute plan_check(${Array.from({ length: parameters }, () => 'null').join(', ')})`);
    return rows;
  } finally {
    await client.query('deallocate plan_check');
  }
}

/** A node of EXPLAIN (FORMAT JSON)'s plan tree. */
interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'CTE Name'?: string;
  Plans?: PlanNode[];
}

/** The first node of `node`'s tree that writes a table (an update's), if any. */
function modifyTable(node: PlanNode): PlanNode | undefined {
  if (node['Node Type'] === 'ModifyTable') return node;
  for (const child of node.Plans ?? []) {
    const found = modifyTable(child);
    if (found) return found;
  }
  return undefined;
}

/** The generic plan of a declared statement, as EXPLAIN (FORMAT JSON) gives its root node. */
async function jsonPlan(name: string): Promise<PlanNode> {
  const [row] = await explainGeneric<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(name, 'explain (format json)');
  return row!['QUERY PLAN'][0].Plan;
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

/**
 * A PENDING checkout attempt for every PENDING transaction and 5,000 PENDING webhook deliveries
 * (events named `eventPrefix` and a number), all due in `dueIn` (an SQL interval, negative: due).
 */
async function insertPendingAttemptsAndDeliveries(options: { dueIn: string; eventPrefix: string }): Promise<void> {
  await client.query(
    `insert into checkout_attempts (id, transaction_id, attempt_number, rail_code, msisdn, status, correlation_id, initiated_at,
       deadline_at, next_poll_at, created_at, updated_at)
     select gen_random_uuid(), id, 1, 'MTN_MOMO_CM', '237677000001', 'PENDING', gen_random_uuid()::text, now(), now() + interval '1 day',
       now() + $1::interval, now(), now()
     from transactions where status = 'PENDING'`,
    [options.dueIn],
  );
  await client.query(
    `with ev as (
       insert into webhook_events (id, application_id, environment, event_name, transaction_id, payload, created_at)
       select $2 || g, $1::uuid, 'TEST', 'payment.success', null, '{}', now() from generate_series(1, 5000) g
       returning id)
     insert into webhook_deliveries (id, event_id, application_id, status, attempt_count, round_attempts, next_attempt_at, created_at, updated_at)
     select gen_random_uuid(), id, $1::uuid, 'PENDING', 0, 0, now() + $3::interval, now(), now() from ev`,
    [db.seed.applicationId, options.eventPrefix, options.dueIn],
  );
}

/** The claims under test and the table each one leases rows of. */
const CLAIMS: Record<string, string> = {
  claim_due_transactions_v5: 'transactions',
  claim_due_attempts_v4: 'checkout_attempts',
  claim_due_deliveries_v3: 'webhook_deliveries',
};

// The batch is chosen through the partial index of due rows, and the rows chosen are updated by
// primary key only: with a condition on the status, the update also read the whole partial index
// (every PENDING row, due or not) to intersect it with the batch, on a table grown since its last
// ANALYZE (1.2 ms a claim with 45,000 PENDING rows, growing with them).
describe('claims of due rows, on a table grown since its statistics', () => {
  // 5,000 PENDING attempts and deliveries beside the transactions, none due, never analyzed.
  beforeAll(async () => {
    await insertPendingAttemptsAndDeliveries({ dueIn: '1 hour', eventPrefix: 'evt_grown_' });
  }, 60_000);

  for (const [name, table] of Object.entries(CLAIMS)) {
    it(`${name} reaches the rows it leased without reading the partial index of pending rows`, async () => {
      const update = modifyTable(await jsonPlan(name))?.Plans?.find((child) => child['Parent Relationship'] === 'Outer');
      expect(JSON.stringify(update)).toContain(`${table}_pkey`);
      expect(JSON.stringify(update)).not.toMatch(/pending_poll_idx|_due_idx|pending_idx/);
    });
  }
});

// A backlog as an outage leaves it (every row due) and statistics that know it (autovacuum's
// ANALYZE came by). Joined to their batch as `from due where id = due.id`, the claims' updates were
// planned as a hash join over a sequential scan of the whole table once it held a few thousand
// rows: every claim of a draining backlog read the whole table (4.4 ms for 50 deliveries out of
// 10,000, growing with the table). The batch is handed to the update as an array of ids instead.
describe('claims of due rows, with a backlog of every row due and analyzed', () => {
  beforeAll(async () => {
    await client.query(`update transactions set next_poll_at = now() - interval '1 minute' where status = 'PENDING'`);
    // One PENDING attempt per transaction at most: the not-due ones of the describe above go.
    await client.query('delete from checkout_attempts');
    await insertPendingAttemptsAndDeliveries({ dueIn: '-1 minute', eventPrefix: 'evt_plan_' });
    for (const table of new Set(Object.values(CLAIMS))) await client.query(`analyze ${table}`);
  }, 60_000);

  for (const [name, table] of Object.entries(CLAIMS)) {
    it(`${name} updates the ${table} it leased by primary key, never by a sequential scan`, async () => {
      const plan = await genericPlan(name);
      expect(plan).toContain(`${table}_pkey`);
      expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}`));
    });

  }
});


/** The CTEs a nested loop of `node`'s tree rescans once per outer row (its inner side is a CTE scan). */
function ctesRescanned(node: PlanNode): string[] {
  const here =
    node['Node Type'] === 'Nested Loop'
      ? (node.Plans ?? [])
          .filter((child) => child['Parent Relationship'] === 'Inner')
          .flatMap((child) => (child['Node Type'] === 'Materialize' ? (child.Plans ?? []) : [child]))
          .filter((child) => child['Node Type'] === 'CTE Scan')
          .map((child) => child['CTE Name'] ?? '?')
      : [];
  return [...here, ...(node.Plans ?? []).flatMap(ctesRescanned)];
}

// PostgreSQL estimates a batch CTE at a row or ten whatever its size; a join of two of them was
// planned as a nested loop that rescanned one for each row of the other: the webhook deliveries
// of a status change of 160 payments took 8 ms of its 33, growing with the square of the batch.
// Checked on every statement declared by the query modules.
describe('declared statements', () => {
  it('include the batched writes of a status change and of events', () => {
    expect([...declaredStatements().keys()]).toEqual(expect.arrayContaining(['settle_with_effects_v4', 'insert_events_with_deliveries_v5']));
  });
  for (const name of declaredStatements().keys()) {
    it(`${name} never rescans a CTE for each row of another`, async () => {
      expect(ctesRescanned(await jsonPlan(name))).toEqual([]);
    });
  }
});
