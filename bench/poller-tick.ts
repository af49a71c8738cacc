/**
 * Poller phase of the benchmark (the poller tick of docs/performance.md), PostgreSQL only, on two
 * fresh databases side by side: one with 10,000 not-yet-due PENDING rows, the other with 1,000,000.
 * For each it opens the server's own runtime in-process (`openRuntime`: the same migrations and
 * services as `kolo serve`; src is imported, never modified) and seeds the demo application, then
 *
 * 1. seeds the not-yet-due PENDING charges (one `INSERT … SELECT generate_series`, `next_poll_at`
 *    1–2 h ahead) plus `POLLER_BATCH_SIZE` due ones, `ANALYZE`;
 * 2. times the poller's claim (`claimDueTransactions`, exactly what a tick runs first) `runs`
 *    times, putting the claimed rows back to due between runs, and takes the median;
 * 3. times a whole idle tick (`pollOnce` with nothing due: the claims plus the tick's other
 *    scans: idempotency purge, settlements, late successes, withdrawals), median;
 * 4. captures the SQL the claim sent (node-postgres clients wrapped) and prints its
 *    `EXPLAIN (ANALYZE, BUFFERS)` (inside a rolled-back transaction: it is an UPDATE).
 *
 * Steps 2 and 3 alternate between the two sizes, run by run (which one goes first alternates too),
 * so both medians are taken over the same minutes: on these shared machines the speed of the same
 * code moves by half within minutes (docs/performance.md), and a size measured a
 * minute after the other compared the machine's moments as much as the table sizes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openRuntime, type Runtime } from '../src/bootstrap.ts';
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

/** Sizes measured, in this order (the verdict compares the second with the first). */
const SIZES = [10_000, 1_000_000] as const;

/** One database of the phase: its runtime, an admin connection and what it was seeded with. */
interface Sized {
  rows: number;
  seedSeconds: number;
  runtime: Runtime;
  admin: pg.Client;
  dataDir: string;
  claimTimes: number[];
  tickTimes: number[];
  claimed: number;
  claimSql: Captured[];
}

/**
 * Runs the poller phase against `databaseUrls` (two empty databases: the 10,000-row table in the
 * first, the 1,000,000-row one in the second). Returns the figures of both, smaller first.
 */
export async function measurePollerTick(databaseUrls: readonly [string, string], runs: number, log: (line: string) => void): Promise<PollerFigures[]> {
  // Capture what the claim sends, whatever builds it (Drizzle today, maybe raw SQL tomorrow):
  // every query of a node-postgres client while a sink is set (the pools' go through it).
  let sink: Captured[] | null = null;
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const originalQuery = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    if (sink) {
      const [first, second] = args;
      if (typeof first === 'string') sink.push({ text: first, values: Array.isArray(second) ? second : [] });
      else if (first && typeof first === 'object' && 'text' in first) {
        const q = first as { text: string; values?: unknown[] };
        sink.push({ text: q.text, values: Array.isArray(second) ? second : (q.values ?? []) });
      }
    }
    return originalQuery.apply(this, args);
  };
  const opened: Sized[] = [];
  try {
    for (const [i, rows] of SIZES.entries()) opened.push(await openSized(databaseUrls[i]!, rows));
    const batch = opened[0]!.runtime.services.config.pollerBatchSize;
    for (const sized of opened) await sized.admin.query('analyze transactions');

    // Claims, alternating sizes run by run; the last run of each size is captured.
    for (let i = 0; i < runs; i++) {
      for (const sized of inTurn(opened, i)) {
        await makeDue(sized.admin);
        const captured: Captured[] = [];
        sink = i === runs - 1 ? captured : null;
        const started = performance.now();
        const got = await claimDueTransactions(sized.runtime.services, batch);
        sized.claimTimes.push(performance.now() - started);
        sink = null;
        if (captured.length > 0) sized.claimSql = captured;
        sized.claimed = got.length;
      }
    }
    // Idle ticks, alternating the same way.
    for (const sized of opened) await makeNotDue(sized.admin);
    for (let i = 0; i < runs; i++) {
      for (const sized of inTurn(opened, i)) {
        const started = performance.now();
        await pollOnce(sized.runtime.services);
        sized.tickTimes.push(performance.now() - started);
      }
    }

    const results: PollerFigures[] = [];
    for (const sized of opened) {
      const plan = await explainClaim(sized, batch);
      const indexes = [...new Set(plan.flatMap((line) => [...line.matchAll(/Index (?:Only )?Scan (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1]!)))];
      const top = plan.find((line) => /Buffers: shared/.test(line)) ?? '';
      const buffers = [...top.matchAll(/(?:hit|read)=(\d+)/g)].reduce((total, m) => total + Number(m[1]), 0);
      const figures: PollerFigures = {
        rows: sized.rows,
        seedSeconds: sized.seedSeconds,
        claimMedianMs: median(sized.claimTimes),
        claimed: sized.claimed,
        idleTickMedianMs: median(sized.tickTimes),
        indexes,
        buffers,
        seqScan: plan.some((line) => /Seq Scan on transactions/.test(line)),
        plan,
      };
      log(
        `  ${sized.rows.toLocaleString('en')} not-due PENDING rows (seeded in ${sized.seedSeconds.toFixed(1)} s): claim of ${figures.claimed} due rows median ${figures.claimMedianMs.toFixed(2)} ms, idle tick median ${figures.idleTickMedianMs.toFixed(2)} ms (${runs} runs each, alternating with the other size); claim plan uses ${indexes.join(', ') || 'no index'} (${buffers} buffers)${figures.seqScan ? ' and a Seq Scan on transactions' : ''}`,
      );
      results.push(figures);
    }
    log(`  EXPLAIN (ANALYZE, BUFFERS) of the claim at ${results[1]!.rows.toLocaleString('en')} rows:`);
    for (const line of results[1]!.plan) log(`    ${line}`);
    return results;
  } finally {
    prototype.query = originalQuery;
    for (const sized of opened) {
      await sized.admin.end().catch(() => {});
      await sized.runtime.close().catch(() => {});
      rmSync(sized.dataDir, { recursive: true, force: true });
    }
  }
}

/** The sizes in the order run `run` measures them: as opened on even runs, reversed on odd ones. */
const inTurn = (sizes: Sized[], run: number): Sized[] => (run % 2 === 0 ? sizes : [...sizes].reverse());

/** Opens `databaseUrl` with the server's runtime, seeds the demo application, `rows` not-due PENDING charges and one batch of due ones. */
async function openSized(databaseUrl: string, rows: number): Promise<Sized> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kolo-bench-poller-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PG_POOL_MAX: '4' });
  const runtime = await openRuntime(config);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const seed = await seedDemo(runtime.services);
  const applicationId = seed?.applicationId ?? (await admin.query<{ id: string }>('select id from applications limit 1')).rows[0]!.id;
  // The due rows: a full batch, so a claim claims `POLLER_BATCH_SIZE` rows.
  await seedPending(admin, applicationId, {
    count: config.pollerBatchSize,
    reference: `'${DUE_PREFIX}' || lpad(upper(to_hex(g)), 4, '0')`,
    tag: 'due',
    nextPollAt: `now() - interval '1 second'`,
    pollAttempts: 0,
  });
  const started = performance.now();
  await seedPending(admin, applicationId, {
    count: rows,
    reference: `'PI-' || lpad(upper(to_hex(g)), 12, '0')`,
    tag: 'seed',
    nextPollAt: `now() + interval '1 hour' + (g % 3600) * interval '1 second'`,
    pollAttempts: 3,
  });
  const seedSeconds = (performance.now() - started) / 1000;
  return { rows, seedSeconds, runtime, admin, dataDir, claimTimes: [], tickTimes: [], claimed: 0, claimSql: [] };
}

/**
 * Inserts `count` PENDING sandbox charges of `applicationId` with one `INSERT … SELECT
 * generate_series` (`g` = 1…count): `reference` and `nextPollAt` are SQL expressions of `g`,
 * `tag` names their merchant and operator references.
 */
async function seedPending(
  admin: pg.Client,
  applicationId: string,
  rows: { count: number; reference: string; tag: string; nextPollAt: string; pollAttempts: number },
): Promise<void> {
  await admin.query(
    `insert into transactions (id, reference, application_id, direction, type, environment, status, amount, currency,
       payment_method, payer_account, merchant_reference, operator_reference, initiation_outcome, initiated_at,
       deadline_at, next_poll_at, poll_attempts, created_at, updated_at)
     select gen_random_uuid(), ${rows.reference}, $1, 'PAY_IN', 'CHARGE', 'TEST', 'PENDING', 5000, 'XAF',
       'MTN_MOMO_CM', '237677000001', '${rows.tag}-' || g, 'SBX-${rows.tag}-' || g, 'ACCEPTED', now(),
       now() + interval '1 day', ${rows.nextPollAt}, $3::int, now(), now()
     from generate_series(1, $2::int) g`,
    [applicationId, rows.count, rows.pollAttempts],
  );
}

/**
 * Puts the batch of due rows back to due: an hour ago, so that they are still due for a claim's
 * captured parameters (its `now`) when its plan is explained later, after the other size's runs.
 */
const makeDue = (admin: pg.Client) =>
  admin.query(`update transactions set next_poll_at = now() - interval '1 hour', poll_attempts = 0 where reference like '${DUE_PREFIX}%'`);
const makeNotDue = (admin: pg.Client) => admin.query(`update transactions set next_poll_at = now() + interval '3 hours' where reference like '${DUE_PREFIX}%'`);

/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of each statement the claim sent, rows due again, in a transaction
 * rolled back. When nothing could be captured (another driver), today's claim SQL is explained.
 */
async function explainClaim(sized: Sized, batch: number): Promise<string[]> {
  await makeDue(sized.admin);
  const statements = sized.claimSql.filter((statement) => /^\s*(select|update|with)/i.test(statement.text));
  const plan: string[] = [];
  if (statements.length === 0) {
    plan.push('(the claim\'s own SQL could not be captured: plan of the claim as written in status-poller.ts at the time of this bench)');
    statements.push({ text: REPRODUCED_CLAIM, values: [new Date(), new Date(Date.now() + sized.runtime.services.config.pollerLeaseMs), batch] });
  }
  await sized.admin.query('begin');
  try {
    for (const statement of statements) {
      const result = await sized.admin.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement.text}`, statement.values as unknown[]);
      plan.push(...result.rows.map((r) => r['QUERY PLAN']));
    }
  } finally {
    await sized.admin.query('rollback').catch(() => {});
  }
  return plan;
}
