/**
 * Poller phase of the benchmark (issue 14, point 4), PostgreSQL only, on its own fresh database:
 * opens the server's own runtime in-process (`openRuntime`: the same migrations and services as
 * `kolo serve`; src is imported, never modified), seeds the demo application, then
 *
 * 1. seeds 10,000 not-yet-due PENDING charges (one `INSERT … SELECT generate_series`,
 *    `next_poll_at` 1–2 h ahead) plus `POLLER_BATCH_SIZE` due ones, `ANALYZE`;
 * 2. times the poller's claim (`claimDueTransactions`, exactly what a tick runs first) `runs`
 *    times, putting the claimed rows back to due between runs, and takes the median;
 * 3. times a whole idle tick (`pollOnce` with nothing due: the claims plus the tick's other
 *    scans: idempotency purge, settlements, late successes, withdrawals), median;
 * 4. captures the SQL the claim sent (node-postgres clients wrapped) and prints its
 *    `EXPLAIN (ANALYZE, BUFFERS)` (inside a rolled-back transaction: it is an UPDATE);
 * 5. grows the table to 1,000,000 rows and repeats 2–4.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openRuntime } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { seedDemo } from '../src/accounts/demo-seed.ts';
import { claimDueTransactions, pollOnce } from '../src/jobs/status-poller.ts';
import { median } from './lib.ts';

/** Figures at one table size. */
export interface PollerFigures {
  rows: number;
  seedSeconds: number;
  claimMedianMs: number;
  claimed: number;
  idleTickMedianMs: number;
  /** Index names the claim's plan scans (`Index Scan using …`, `Bitmap Index Scan on …`). */
  indexes: string[];
  /** Shared buffers the claim's top plan node touched (hit + read): independent of the machine's load. */
  buffers: number;
  /** True when the plan scans `transactions` sequentially. */
  seqScan: boolean;
  plan: string[];
}

interface Captured {
  text: string;
  values: unknown[];
}

const DUE_PREFIX = 'PI-FFFFFFFF';

/** The claim of claimDueTransactions as Drizzle writes it today ($1 now, $2 lease end, $3 batch). */
const REPRODUCED_CLAIM = `update "transactions" set "next_poll_at" = $2, "poll_attempts" = "transactions"."poll_attempts" + 1
  where ("transactions"."id" in (select "id" from "transactions" where ("transactions"."status" = 'PENDING' and "transactions"."next_poll_at" <= $1)
    order by "transactions"."next_poll_at" asc limit $3 for update skip locked) and "transactions"."status" = 'PENDING') returning *`;

/** Runs the poller phase against `databaseUrl` (an empty database). */
export async function measurePollerTick(databaseUrl: string, runs: number, log: (line: string) => void): Promise<PollerFigures[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kolo-bench-poller-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PG_POOL_MAX: '4' });
  const runtime = await openRuntime(config);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  let restore = () => {};
  try {
    const seed = await seedDemo(runtime.services);
    const applicationId = seed?.applicationId ?? (await admin.query<{ id: string }>('select id from applications limit 1')).rows[0]!.id;
    const batch = config.pollerBatchSize;

    // Capture what the claim sends, whatever builds it (Drizzle today, maybe raw SQL tomorrow):
    // every query of a node-postgres client while the flag is up (the pool's go through it).
    let captured: Captured[] = [];
    let capturing = false;
    const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const originalQuery = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      if (capturing) {
        const [first, second] = args;
        if (typeof first === 'string') captured.push({ text: first, values: Array.isArray(second) ? second : [] });
        else if (first && typeof first === 'object' && 'text' in first) {
          const q = first as { text: string; values?: unknown[] };
          captured.push({ text: q.text, values: Array.isArray(second) ? second : (q.values ?? []) });
        }
      }
      return originalQuery.apply(this, args);
    };
    restore = () => {
      prototype.query = originalQuery;
    };

    const seedRows = async (from: number, to: number) => {
      const started = performance.now();
      await admin.query(
        `insert into transactions (id, reference, application_id, direction, type, environment, status, amount, currency,
           payment_method, payer_account, merchant_reference, operator_reference, initiation_outcome, initiated_at,
           deadline_at, next_poll_at, poll_attempts, created_at, updated_at)
         select gen_random_uuid(), 'PI-' || lpad(upper(to_hex(g)), 12, '0'), $1, 'PAY_IN', 'CHARGE', 'TEST', 'PENDING', 5000, 'XAF',
           'MTN_MOMO_CM', '237677000001', 'seed-' || g, 'SBX-seed-' || g, 'ACCEPTED', now(),
           now() + interval '1 day', now() + interval '1 hour' + (g % 3600) * interval '1 second', 3, now(), now()
         from generate_series($2::int, $3::int) g`,
        [applicationId, from, to],
      );
      return (performance.now() - started) / 1000;
    };
    const makeDue = () =>
      admin.query(`update transactions set next_poll_at = now() - interval '1 second', poll_attempts = 0 where reference like '${DUE_PREFIX}%'`);
    const makeNotDue = () => admin.query(`update transactions set next_poll_at = now() + interval '3 hours' where reference like '${DUE_PREFIX}%'`);

    // The due rows: a full batch, so a claim claims `batch` rows.
    await admin.query(
      `insert into transactions (id, reference, application_id, direction, type, environment, status, amount, currency,
         payment_method, payer_account, merchant_reference, operator_reference, initiation_outcome, initiated_at,
         deadline_at, next_poll_at, poll_attempts, created_at, updated_at)
       select gen_random_uuid(), '${DUE_PREFIX}' || lpad(upper(to_hex(g)), 4, '0'), $1, 'PAY_IN', 'CHARGE', 'TEST', 'PENDING', 5000, 'XAF',
         'MTN_MOMO_CM', '237677000001', 'due-' || g, 'SBX-due-' || g, 'ACCEPTED', now(),
         now() + interval '1 day', now() - interval '1 second', 0, now(), now()
       from generate_series(1, $2::int) g`,
      [applicationId, batch],
    );

    const measureAt = async (rows: number, seedSeconds: number): Promise<PollerFigures> => {
      await admin.query('analyze transactions');
      const claimTimes: number[] = [];
      let claimed = 0;
      for (let i = 0; i < runs; i++) {
        await makeDue();
        capturing = i === runs - 1;
        captured = capturing ? [] : captured;
        const started = performance.now();
        const got = await claimDueTransactions(runtime.services, batch);
        claimTimes.push(performance.now() - started);
        capturing = false;
        claimed = got.length;
      }
      const claimSql = captured;
      await makeNotDue();
      const tickTimes: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await pollOnce(runtime.services);
        tickTimes.push(performance.now() - started);
      }
      // EXPLAIN each statement the claim sent, rows due again, in a transaction rolled back. When
      // nothing could be captured (another driver), today's claim SQL is explained instead.
      await makeDue();
      const statements = claimSql.filter((statement) => /^\s*(select|update|with)/i.test(statement.text));
      const plan: string[] = [];
      if (statements.length === 0) {
        plan.push('(the claim\'s own SQL could not be captured: plan of the claim as written in status-poller.ts at the time of this bench)');
        statements.push({ text: REPRODUCED_CLAIM, values: [new Date(), new Date(Date.now() + config.pollerLeaseMs), batch] });
      }
      await admin.query('begin');
      try {
        for (const statement of statements) {
          const result = await admin.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement.text}`, statement.values as unknown[]);
          plan.push(...result.rows.map((r) => r['QUERY PLAN']));
        }
      } finally {
        await admin.query('rollback').catch(() => {});
      }
      const indexes = [...new Set(plan.flatMap((line) => [...line.matchAll(/Index (?:Only )?Scan (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1]!)))];
      const top = plan.find((line) => /Buffers: shared/.test(line)) ?? '';
      const buffers = [...top.matchAll(/(?:hit|read)=(\d+)/g)].reduce((total, m) => total + Number(m[1]), 0);
      const seqScan = plan.some((line) => /Seq Scan on transactions/.test(line));
      const figures = {
        rows,
        seedSeconds,
        claimMedianMs: median(claimTimes),
        claimed,
        idleTickMedianMs: median(tickTimes),
        indexes,
        buffers,
        seqScan,
        plan,
      };
      log(
        `  ${rows.toLocaleString('en')} not-due PENDING rows (seeded in ${seedSeconds.toFixed(1)} s): claim of ${claimed} due rows median ${figures.claimMedianMs.toFixed(2)} ms, idle tick median ${figures.idleTickMedianMs.toFixed(2)} ms (${runs} runs each); claim plan uses ${indexes.join(', ') || 'no index'} (${buffers} buffers)${seqScan ? ' and a Seq Scan on transactions' : ''}`,
      );
      return figures;
    };

    const results: PollerFigures[] = [];
    results.push(await measureAt(10_000, await seedRows(1, 10_000)));
    results.push(await measureAt(1_000_000, await seedRows(10_001, 1_000_000)));
    log(`  EXPLAIN (ANALYZE, BUFFERS) of the claim at 1,000,000 rows:`);
    for (const line of results[1]!.plan) log(`    ${line}`);
    return results;
  } finally {
    restore();
    await admin.end().catch(() => {});
    await runtime.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
