/**
 * `npm run bench`: the speed figures of docs/performance.md, in one run, against a real Kolo as
 * `npm start` runs it (`npm run build` first, then scripts/start.sh, which execs
 * `node dist/main.js serve`: its own process, poller and webhook worker on as by default),
 * next to a bare Fastify JSON echo on the same machine as the ceiling. Load from autocannon on the
 * same machine.
 *
 * Phases:
 * 0. Ceiling: `POST /echo` and `GET /echo` of bench/echo-server.ts.
 * For each target database (PostgreSQL, then PGlite):
 * 1. Start Kolo on a fresh database, read the demo key and webhook secret from its banner, start
 *    a local webhook receiver (bench/webhook-receiver.ts, signatures verified) and set it as the
 *    demo application's webhook URL (`PATCH /api/v1/webhook`).
 * 2. Charge run: `POST /api/v1/pay-in/charge`, a new charge per request (sandbox numbers that
 *    succeed), every created reference recorded. Then the server's resident memory (VmRSS), and
 *    a bounded wait until every created charge is settled (PostgreSQL: SQL on the bench
 *    database; PGlite, whose data directory the server locks: `GET check_status` of every
 *    reference) and, on PostgreSQL, every webhook delivery is finished.
 * 3. Status reads: `GET /api/v1/pay-in/check_status/{reference}` against `GET /echo`, with each
 *    server's CPU per request during its run (from /proc). The echo GET is measured again right
 *    before and right after the status reads (a fresh echo process each time, with the same
 *    warm-up), and the status reads' ratio is to the mean of those two: on these shared 2-core
 *    machines the ceiling moves by half within minutes (docs/performance.md), so a
 *    ceiling taken minutes earlier says more about the machine's moment than about Kolo. The
 *    ratio to the start's ceiling is printed too.
 * 4. PostgreSQL only: webhook drain: N events + PENDING deliveries inserted by SQL the way
 *    src/webhooks/webhook-events.ts writes them (payload: a real event's body with a new id),
 *    timed until the worker has finished them all; the receiver must have seen every delivered
 *    event at least once (duplicates reported).
 * 5. PostgreSQL only, two fresh databases of its own: poller tick at 10,000 and 1,000,000
 *    not-yet-due PENDING rows, the two sizes measured in alternation (bench/poller-tick.ts), with
 *    the claim's EXPLAIN (ANALYZE, BUFFERS).
 * 6. PostgreSQL only, a fresh database of its own: the LIVE path (bench/live-path.ts): the MTN and
 *    Orange simulators with operator latencies and faults, a LIVE key, open-model arrivals of mixed
 *    traffic in steps, reconciliation with the simulators and `kolo ledger verify` after each step.
 * Then a table, the same figures as Markdown (for docs/performance.md), and PASS/FAIL per threshold.
 *
 * Options (environment):
 * - BENCH_TARGETS: `pg,pglite` (default), `pg` or `pglite`.
 * - BENCH_DURATION_S (10): seconds of each autocannon run. BENCH_CONNECTIONS (64).
 * - BENCH_WARMUP_S (2): seconds of the same load, not measured, before each run that changes
 *   nothing (the echo ceilings and the status reads), so that each is measured with its code
 *   compiled by the JIT, the ceiling as much as Kolo. The charge run has none: its every request
 *   creates a charge the bench must then see settled.
 * - BENCH_DATABASE_URL: an existing, EMPTY PostgreSQL database for the charge run (the demo seed
 *   must print its key), kept at the end. Unset: `kolo_bench_<timestamp>` is created on
 *   BENCH_PG_ADMIN_URL and dropped at the end.
 * - BENCH_PG_ADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres): where fresh databases are
 *   created (the charge run's unless BENCH_DATABASE_URL is set, and always the poller phase's two).
 * - BENCH_SETTLE_TIMEOUT_S (120): longest wait for settlement (and webhooks) after the run.
 * - BENCH_WEBHOOKS (20000): deliveries of the webhook drain; BENCH_WEBHOOK_TIMEOUT_S (90): longest wait.
 * - BENCH_POLLER_RUNS (21): timed runs per size in the poller phase; BENCH_POLLER=0 skips it.
 * - BENCH_LIVE=0 skips the LIVE path; BENCH_ONLY=live runs only it (no ceiling, sandbox phases or
 *   poller; with BENCH_TARGETS=pg or the default). Its own options (BENCH_LIVE_STEPS,
 *   BENCH_LIVE_STEP_S, the simulators' latencies and fault rates…) are listed in bench/live-path.ts.
 * - Any variable of src/config.ts is passed to the server as set; the bench sets
 *   SANDBOX_DELAY_MS=200 (unless set), WEBHOOK_ALLOW_PRIVATE_HOSTS=true, LOG_LEVEL=warn.
 * Not part of the tests; the exit code is 0 whatever the verdicts (1 when the harness fails).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { commandLine, freePort, load, mapLimit, processCpuSeconds, scrapeMetric, serverRss, sleep, startProcess, stop, type Figures, type Started } from './lib.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { measurePollerTick, type PollerFigures } from './poller-tick.ts';
import { liveMarkdown, liveOptionsFromEnv, runLivePath, stepHolds, type LiveResult } from './live-path.ts';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const targets = (process.env.BENCH_TARGETS ?? 'pg,pglite').split(',').map((t) => t.trim()).filter(Boolean);
const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const settleTimeoutS = Number(process.env.BENCH_SETTLE_TIMEOUT_S ?? 120);
const webhookCount = Number(process.env.BENCH_WEBHOOKS ?? 20_000);
const webhookTimeoutS = Number(process.env.BENCH_WEBHOOK_TIMEOUT_S ?? 90);
const pollerRuns = Number(process.env.BENCH_POLLER_RUNS ?? 21);
const pollerEnabled = process.env.BENCH_POLLER !== '0';
const warmUpS = Number(process.env.BENCH_WARMUP_S ?? 2);
const only = process.env.BENCH_ONLY?.trim() || null;
if (only !== null && only !== 'live') throw new Error(`BENCH_ONLY: unknown phase ${only} (live)`);
const liveEnabled = process.env.BENCH_LIVE !== '0';
if (only === 'live' && !liveEnabled) throw new Error('BENCH_ONLY=live and BENCH_LIVE=0 leave nothing to run');
const liveOptions = liveOptionsFromEnv(process.env);
for (const t of targets) if (t !== 'pg' && t !== 'pglite') throw new Error(`BENCH_TARGETS: unknown target ${t} (pg, pglite)`);

const say = (line = '') => console.log(line);
const fmt = (n: number, digits = 0) => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * `load`, after `warmUpS` seconds of the same load that are not measured (runs that change nothing
 * only); with `serverPid`, the serving process's CPU per request of the measured run
 * (`serverCpuMs`): Kolo is held by its one thread under this load (the echo by its thread and the
 * load generator), so the ratio of their CPU per request goes most of the way to explaining the
 * ratio of their rates.
 */
async function loadWarm(name: string, options: Parameters<typeof load>[1], serverPid?: number): Promise<Figures> {
  if (warmUpS > 0) await load(`${name} (warm-up)`, { ...options, duration: warmUpS });
  const cpuBefore = serverPid === undefined ? 0 : processCpuSeconds(serverPid);
  const figures = await load(name, options);
  if (serverPid !== undefined && figures.total > 0) figures.serverCpuMs = ((processCpuSeconds(serverPid) - cpuBefore) * 1000) / figures.total;
  return figures;
}

/** ` (server CPU x ms a request)`, when measured. */
const cpuNote = (f: Figures, unit: string) => (f.serverCpuMs === undefined ? '' : `, server CPU ${f.serverCpuMs.toFixed(4)} ms ${unit}`);

/**
 * A charge body: amounts and currency as the demo application takes them, a sandbox number whose
 * last three digits are 200–999 (never a magic suffix, README "Sandbox numbers": every charge
 * succeeds after SANDBOX_DELAY_MS), a merchant reference naming the run.
 */
const chargeBody = (i: number, tag: string) =>
  JSON.stringify({
    amount: 5000,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    payerAccount: `2376770${String(Math.floor(i / 800) % 100).padStart(2, '0')}${200 + (i % 800)}`,
    merchantReference: `${tag}-${i}`,
  });

/** What one target database's phases measured. */
interface TargetResult {
  target: 'pg' | 'pglite';
  label: string;
  charge: Figures;
  created: number;
  settled: number;
  /** Seconds after the charge run ended until every created charge was settled; null: not within the bound. */
  settleSeconds: number | null;
  rssMb: number;
  rssTreeMb: number;
  status: Figures;
  /** The echo GET measured right before and right after `status`, and their mean rate and CPU. */
  statusCeiling: { before: Figures; after: Figures; rps: number; serverCpuMs: number | undefined };
  chargeWebhooks: { events: number; received: number; invalid: number };
  drain?: DrainResult;
}

interface DrainResult {
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  seconds: number;
  perSecond: number;
  missing: number;
  duplicates: number;
  invalid: number;
}

/** Creates a fresh database on the admin server; returns its URL and a function dropping it. */
async function freshDatabase(suffix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `kolo_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * How `npm start` runs the server: package.json's `start` is `sh <script>`, which execs node
 * (scripts/start.sh); the bench runs that same script, so the server is measured exactly as
 * started.
 */
const startScript = (() => {
  const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  const parsed = /^sh\s+(\S+)$/.exec(script.trim());
  if (!parsed) throw new Error(`package.json's start script is not \`sh <script>\`: ${script}`);
  return { command: 'sh', args: [parsed[1]!] };
})();

/** Starts Kolo with the bench's settings; resolves once its demo banner is out. */
async function startKolo(port: number, extra: Record<string, string>): Promise<{ server: Started; key: string; secret: string }> {
  const server = await startProcess(
    startScript.args,
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEMO_SEED: 'true',
      SANDBOX_DELAY_MS: process.env.SANDBOX_DELAY_MS ?? '200',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      ...extra,
    },
    /sk_test_[0-9a-f]{128}[\s\S]*whsec_[0-9a-f]{64}[\s\S]*={20,}/,
    startScript.command,
  );
  say(`server started as npm start starts it (${startScript.command} ${startScript.args.join(' ')}): ${commandLine(server.child.pid!)}`);
  const key = /sk_test_[0-9a-f]{128}/.exec(server.output())![0];
  const secret = /whsec_[0-9a-f]{64}/.exec(server.output())![0];
  return { server, key, secret };
}

/**
 * Transactions created and finished so far, from the server's Prometheus metrics
 * (`kolo_transactions_created_total`, `kolo_transactions_finished_total`, summed over labels);
 * null when the metrics cannot be read.
 */
async function scrapeCounts(metricsPort: number): Promise<{ created: number; finished: number } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    if (!res.ok) return null;
    const text = await res.text();
    const sum = (name: string) =>
      [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((total, m) => total + Number(m[1]), 0);
    if (!text.includes('kolo_transactions_created_total')) return null;
    return { created: sum('kolo_transactions_created_total'), finished: sum('kolo_transactions_finished_total') };
  } catch {
    return null;
  }
}

/** Runs `measure` against a fresh echo server (bench/echo-server.ts), stopped after. */
async function withEcho<T>(measure: (url: string, pid: number) => Promise<T>): Promise<T> {
  const port = await freePort();
  const echo = await startProcess(['--import', 'tsx', 'bench/echo-server.ts', String(port)], {}, /LISTENING/);
  try {
    return await measure(`http://127.0.0.1:${port}/echo`, echo.child.pid!);
  } finally {
    await stop(echo.child);
  }
}

/**
 * The echo GET ceiling as the bench's start measures it (warm-up, then `durationS` seconds, the
 * echo's CPU per request), on a fresh echo process.
 */
function measureEchoGet(name: string): Promise<Figures> {
  return withEcho((url, pid) => loadWarm(name, { url, method: 'GET', connections, duration: durationS }, pid));
}

/** Runs the phases of one target database. */
async function runTarget(target: 'pg' | 'pglite', ceilings: { post: Figures; get: Figures }): Promise<TargetResult> {
  const label = target === 'pg' ? 'PostgreSQL' : 'PGlite (embedded)';
  say(`\n== ${label} ==`);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    let databaseUrl: string | undefined;
    const serverEnv: Record<string, string> = {};
    if (target === 'pg') {
      if (process.env.BENCH_DATABASE_URL) databaseUrl = process.env.BENCH_DATABASE_URL;
      else {
        const fresh = await freshDatabase('');
        databaseUrl = fresh.url;
        cleanups.push(fresh.drop);
      }
      serverEnv.DATABASE_URL = databaseUrl;
      serverEnv.DATA_DIR = mkdtempSync(join(tmpdir(), 'kolo-bench-pg-'));
    } else {
      serverEnv.DATABASE_URL = ''; // empty = unset for loadConfig: PGlite
      serverEnv.DATA_DIR = mkdtempSync(join(tmpdir(), 'kolo-bench-pglite-'));
    }
    const dataDir = serverEnv.DATA_DIR;
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));

    const port = await freePort();
    const metricsPort = await freePort();
    serverEnv.METRICS_PORT = String(metricsPort);
    serverEnv.METRICS_HOST = '127.0.0.1';
    const { server, key, secret } = await startKolo(port, serverEnv);
    const receiver = await startWebhookReceiver(await freePort(), secret);
    // Stop the server before its receiver, so no delivery under way fails.
    cleanups.unshift(() => stop(server.child), () => receiver.close());
    const sqlClient = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
    if (sqlClient) {
      await sqlClient.connect();
      cleanups.unshift(() => sqlClient.end());
    }

    const base = `http://127.0.0.1:${port}`;
    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    const patched = await fetch(`${base}/api/v1/webhook`, { method: 'PATCH', headers, body: JSON.stringify({ webhookUrl: receiver.url }) });
    if (!patched.ok) throw new Error(`setting the webhook URL failed: ${patched.status} ${await patched.text()}`);
    const first = await fetch(`${base}/api/v1/pay-in/charge`, { method: 'POST', headers, body: chargeBody(0, 'bench-first') });
    if (!first.ok) throw new Error(`first charge failed: ${first.status} ${await first.text()}`);
    const reference = ((await first.json()) as { data: { reference: string } }).data.reference;

    const createdBefore = (await scrapeCounts(metricsPort))?.created ?? null;
    // Charge run: every created reference recorded from the responses.
    const references: string[] = [];
    let n = 1;
    const charge = await load('charge create', {
      url: base,
      connections,
      duration: durationS,
      headers,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/pay-in/charge',
          setupRequest: (request) => ({ ...request, body: chargeBody(n++, 'bench-run') }),
          onResponse: (status, body) => {
            if (status >= 200 && status < 300) {
              const match = /"reference":"([^"]+)"/.exec(body);
              if (match) references.push(match[1]!);
            }
          },
        },
      ],
    });
    const runEnded = performance.now();
    const rss = serverRss(server.child.pid!);
    say(`charge run: ${fmt(charge.rps)} charges/s, p50 ${charge.p50} ms, p99 ${charge.p99} ms, ${charge.non2xx} non-2xx, ${charge.errors} errors, ${charge.timeouts} timeouts`);
    say(`server resident memory at the end of the charge run: ${fmt(rss.mb, 1)} MB (pid ${rss.pid}; process tree ${fmt(rss.treeMb, 1)} MB)`);
    const heapMb = async (name: string) => ((await scrapeMetric(metricsPort, name)) ?? 0) / 1024 / 1024;
    say(
      `  of which the JavaScript heap: ${fmt(await heapMb('kolo_nodejs_heap_size_used_bytes'), 1)} MB used of ${fmt(await heapMb('kolo_nodejs_heap_size_total_bytes'), 1)} MB; ` +
        `memory outside it (buffers, WebAssembly): ${fmt(await heapMb('kolo_nodejs_external_memory_bytes'), 1)} MB`,
    );

    // Settlement: every created charge leaves PENDING; on PostgreSQL, every webhook delivery finishes too.
    const deadline = runEnded + settleTimeoutS * 1000;
    let created = references.length;
    let settled = 0;
    let settleSeconds: number | null = null;
    if (sqlClient) {
      for (;;) {
        const { rows } = await sqlClient.query<{ total: number; pending: number; deliveries: number }>(
          `select count(*)::int as total, count(*) filter (where status = 'PENDING')::int as pending,
             (select count(*)::int from webhook_deliveries where status = 'PENDING') as deliveries
           from transactions where merchant_reference like 'bench-run-%'`,
        );
        const row = rows[0]!;
        created = row.total;
        settled = row.total - row.pending;
        if (row.pending === 0 && settleSeconds === null) settleSeconds = (performance.now() - runEnded) / 1000;
        if ((row.pending === 0 && row.deliveries === 0) || performance.now() > deadline) break;
        await sleep(250);
      }
      if (created !== references.length) say(`note: ${created} charges in the database, ${references.length} created answers received`);
    } else {
      // PGlite: the server locks its data directory, so count through its own metrics
      // (kolo_transactions_created_total / _finished_total on METRICS_PORT): unlike the answers
      // autocannon received, they include the charges still in flight when the run stopped.
      let viaMetrics = createdBefore !== null;
      let pending = references.slice();
      for (;;) {
        const counts = viaMetrics ? await scrapeCounts(metricsPort) : null;
        if (counts && createdBefore !== null) {
          created = counts.created - createdBefore;
          settled = created - (counts.created - counts.finished);
          if (counts.created === counts.finished) {
            settleSeconds = (performance.now() - runEnded) / 1000;
            break;
          }
        } else {
          // No metrics: GET check_status of every reference the run received.
          viaMetrics = false;
          const statuses = await mapLimit(pending, 16, async (ref) => {
            try {
              const res = await fetch(`${base}/api/v1/pay-in/check_status/${ref}`, { headers: { 'x-api-key': key } });
              return ((await res.json()) as { data?: { status?: string } }).data?.status ?? 'UNKNOWN';
            } catch {
              return 'UNKNOWN';
            }
          });
          pending = pending.filter((_, i) => statuses[i] === 'PENDING' || statuses[i] === 'UNKNOWN');
          created = references.length;
          settled = references.length - pending.length;
          if (pending.length === 0) {
            settleSeconds = (performance.now() - runEnded) / 1000;
            break;
          }
        }
        if (performance.now() > deadline) break;
        await sleep(500);
      }
      say(`(PGlite counts from ${viaMetrics ? 'the server metrics' : `check_status of the ${fmt(references.length)} references answered`}; ${fmt(references.length)} created answers received)`);
      // Webhooks of the settled charges (one event each), within what is left of the bound.
      while (receiver.seen.size < settled + 1 && performance.now() < deadline) await sleep(250);
    }
    say(
      `settlement: ${fmt(created)} created, ${fmt(settled)} settled, ${settleSeconds === null ? `NOT all settled within ${settleTimeoutS} s` : `all settled ${settleSeconds.toFixed(1)} s after the run ended`}`,
    );
    let events = settled + 1; // the first charge's event too
    if (sqlClient) events = (await sqlClient.query<{ n: number }>('select count(*)::int as n from webhook_events')).rows[0]!.n;
    const chargeWebhooks = { events, received: receiver.seen.size, invalid: receiver.invalid() };
    say(`charge-run webhooks: ${fmt(chargeWebhooks.events)} events ${sqlClient ? 'written' : 'expected'}, ${fmt(chargeWebhooks.received)} distinct received with a valid signature, ${chargeWebhooks.invalid} refused`);

    const before = await measureEchoGet('echo GET (before the status reads)');
    const status = await loadWarm('status read', { url: `${base}/api/v1/pay-in/check_status/${reference}`, method: 'GET', headers, connections, duration: durationS }, server.child.pid);
    const after = await measureEchoGet('echo GET (after the status reads)');
    const statusCeiling = {
      before,
      after,
      rps: (before.rps + after.rps) / 2,
      serverCpuMs: before.serverCpuMs !== undefined && after.serverCpuMs !== undefined ? (before.serverCpuMs + after.serverCpuMs) / 2 : undefined,
    };
    say(`echo GET around the status reads: ${fmt(before.rps)} req/s before${cpuNote(before, 'a request')}, ${fmt(after.rps)} after${cpuNote(after, 'a request')}`);
    say(
      `status reads: ${fmt(status.rps)} reads/s (${(status.rps / statusCeiling.rps).toFixed(3)} of the echo GET around them, ${(status.rps / ceilings.get.rps).toFixed(3)} of the start's), p50 ${status.p50} ms, p99 ${status.p99} ms, ${status.non2xx + status.errors + status.timeouts} failures${cpuNote(status, 'a read')}`,
    );

    const result: TargetResult = { target, label, charge, created, settled, settleSeconds, rssMb: rss.mb, rssTreeMb: rss.treeMb, status, statusCeiling, chargeWebhooks };
    if (sqlClient) result.drain = await webhookDrain(sqlClient, receiver);
    return result;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => say(`cleanup failed: ${String(error)}`));
  }
}

/**
 * Inserts `webhookCount` events with one PENDING delivery each (due now), as
 * `insertEventWithDelivery` writes them, and times the worker until none is PENDING.
 */
async function webhookDrain(sql: pg.Client, receiver: WebhookReceiver): Promise<DrainResult> {
  const template = (await sql.query<{ id: string; payload: string; application_id: string }>('select id, payload, application_id from webhook_events order by created_at limit 1')).rows[0];
  const app = template?.application_id ?? (await sql.query<{ id: string }>('select id from applications limit 1')).rows[0]!.id;
  const payload = template?.payload ?? JSON.stringify({ event: 'payment.success', timestamp: Math.floor(Date.now() / 1000), applicationId: app, data: { status: 'SUCCESS' }, id: 'evt_TEMPLATE' });
  const oldId = template?.id ?? 'evt_TEMPLATE';
  const marker = new Date(Date.now() - 1000); // created_at of exactly these deliveries
  const pendingBefore = (await sql.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where status = 'PENDING'`)).rows[0]!.n;
  await sql.query(
    `with ev as (
       insert into webhook_events (id, application_id, event_name, transaction_id, payload, created_at, environment)
       select 'evt_' || md5('kolo-bench-' || g || '-' || $4::text), $1::uuid, 'payment.success', null,
              replace($2::text, $3::text, 'evt_' || md5('kolo-bench-' || g || '-' || $4::text)), $5::timestamptz, 'TEST'
       from generate_series(1, $6::int) g
       returning id
     )
     insert into webhook_deliveries (id, event_id, application_id, status, attempt_count, round_attempts, next_attempt_at, created_at, updated_at)
     select gen_random_uuid(), id, $1::uuid, 'PENDING', 0, 0, $5::timestamptz, $5::timestamptz, $5::timestamptz from ev`,
    [app, payload, oldId, String(Date.now()), marker, webhookCount],
  );
  const started = performance.now();
  const total = webhookCount + pendingBefore;
  let counts = { pending: total, delivered: 0, failed: 0 };
  let seconds = 0;
  for (;;) {
    const { rows } = await sql.query<{ pending: number; delivered: number; failed: number }>(
      `select count(*) filter (where status = 'PENDING')::int as pending, count(*) filter (where status = 'DELIVERED')::int as delivered,
              count(*) filter (where status = 'FAILED')::int as failed
       from webhook_deliveries where created_at = $1 or status = 'PENDING'`,
      [marker],
    );
    counts = rows[0]!;
    seconds = (performance.now() - started) / 1000;
    if (counts.pending === 0 || seconds > webhookTimeoutS) break;
    await sleep(100);
  }
  // At-least-once: every event the database marks delivered (charge run's and these) was received.
  const delivered = (await sql.query<{ id: string }>(`select event_id as id from webhook_deliveries where status = 'DELIVERED'`)).rows.map((r) => r.id);
  const missing = delivered.filter((id) => !receiver.seen.has(id)).length;
  let duplicates = 0;
  for (const count of receiver.seen.values()) duplicates += count - 1;
  const result: DrainResult = {
    total,
    delivered: counts.delivered,
    failed: counts.failed,
    pending: counts.pending,
    seconds,
    perSecond: counts.delivered / seconds,
    missing,
    duplicates,
    invalid: receiver.invalid(),
  };
  say(
    `webhook drain: ${fmt(result.delivered)} of ${fmt(total)} delivered in ${seconds.toFixed(1)} s (${fmt(result.perSecond)}/s)${result.pending ? `, ${fmt(result.pending)} still PENDING at the ${webhookTimeoutS} s bound` : ''}, ${result.failed} failed; receiver: ${result.missing} delivered events never received, ${result.duplicates} duplicates, ${result.invalid} bad signatures`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
// The server runs compiled, as `npm start` runs it (its prestart is this build).
execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
say(`Kolo benchmark: ${connections} connections, ${durationS} s per run (${warmUpS} s of warm-up before the runs that change nothing), targets ${targets.join(', ')}, SANDBOX_DELAY_MS=${process.env.SANDBOX_DELAY_MS ?? '200'}`);

const ceilings = only === 'live' ? null : await measureCeilings();
/** Phase 0: the echo's POST and GET. */
async function measureCeilings() {
  say('\n== ceiling: bare Fastify echo ==');
  return withEcho(async (url, pid) => {
  const headers = { 'content-type': 'application/json' };
  const post = await loadWarm('echo POST (ceiling)', { url, method: 'POST', headers, body: chargeBody(0, 'echo'), connections, duration: durationS });
  const get = await loadWarm('echo GET (ceiling)', { url, method: 'GET', connections, duration: durationS }, pid);
  return { post, get };
  });
}
if (ceilings) say(`echo POST ${fmt(ceilings.post.rps)} req/s (p99 ${ceilings.post.p99} ms), echo GET ${fmt(ceilings.get.rps)} req/s (p99 ${ceilings.get.p99} ms${cpuNote(ceilings.get, 'a request')})`);

const results: TargetResult[] = [];
if (ceilings) for (const target of targets as ('pg' | 'pglite')[]) results.push(await runTarget(target, ceilings));

let poller: PollerFigures[] | null = null;
if (ceilings && targets.includes('pg') && pollerEnabled) {
  say('\n== poller tick (PostgreSQL, two databases of their own, measured in alternation) ==');
  const small = await freshDatabase('_poller_10k');
  try {
    const large = await freshDatabase('_poller_1m');
    try {
      poller = await measurePollerTick([small.url, large.url], pollerRuns, say);
    } finally {
      await large.drop();
    }
  } finally {
    await small.drop();
  }
}

let live: LiveResult | null = null;
if (liveEnabled && targets.includes('pg')) {
  say(`\n== LIVE path (PostgreSQL, a database of its own): steps ${liveOptions.steps.join(', ')}/s, ${liveOptions.stepS} s each ==`);
  live = await runLivePath(liveOptions, { freshDatabase, startKolo, say });
}

// ---------------------------------------------------------------------------------------------
// Table, Markdown, verdicts.

interface Row {
  run: string;
  database: string;
  figure: string;
  p50: string;
  p99: string;
  failures: string;
  ratio: string;
}
const rows: Row[] = [];
const fail = (f: Figures) => (f.non2xx + f.errors + f.timeouts === 0 ? '0' : `${f.non2xx} non-2xx, ${f.errors} err, ${f.timeouts} t/o`);
const ratio = (a: number, b: number) => (a / b).toFixed(3);
if (ceilings) rows.push({ run: 'echo POST (ceiling)', database: '—', figure: `${fmt(ceilings.post.rps)} req/s`, p50: String(ceilings.post.p50), p99: String(ceilings.post.p99), failures: fail(ceilings.post), ratio: '1' });
if (ceilings) rows.push({ run: 'echo GET (ceiling)', database: '—', figure: `${fmt(ceilings.get.rps)} req/s`, p50: String(ceilings.get.p50), p99: String(ceilings.get.p99), failures: fail(ceilings.get), ratio: '1' });
for (const r of results) {
  rows.push({ run: 'charge create', database: r.label, figure: `${fmt(r.charge.rps)} req/s`, p50: String(r.charge.p50), p99: String(r.charge.p99), failures: fail(r.charge), ratio: ratio(r.charge.rps, ceilings!.post.rps) });
  rows.push({
    run: 'charges settled',
    database: r.label,
    figure: `${fmt(r.settled)} / ${fmt(r.created)} in ${r.settleSeconds === null ? `>${settleTimeoutS}` : r.settleSeconds.toFixed(1)} s after the run`,
    p50: '—',
    p99: '—',
    failures: String(r.created - r.settled),
    ratio: '—',
  });
  const around = r.statusCeiling;
  rows.push({
    run: 'echo GET before / after the status reads',
    database: r.label,
    figure: `${fmt(around.before.rps)} / ${fmt(around.after.rps)} req/s`,
    p50: `${around.before.p50} / ${around.after.p50}`,
    p99: `${around.before.p99} / ${around.after.p99}`,
    failures: `${fail(around.before)} / ${fail(around.after)}`,
    ratio: ratio(around.rps, ceilings!.get.rps),
  });
  rows.push({
    run: 'status read',
    database: r.label,
    figure: `${fmt(r.status.rps)} req/s`,
    p50: String(r.status.p50),
    p99: String(r.status.p99),
    failures: fail(r.status),
    ratio: `${ratio(r.status.rps, around.rps)} (start's: ${ratio(r.status.rps, ceilings!.get.rps)})`,
  });
  rows.push({ run: 'resident memory (end of charge run)', database: r.label, figure: `${fmt(r.rssMb, 1)} MB`, p50: '—', p99: '—', failures: '—', ratio: '—' });
  rows.push({
    run: 'charge-run webhooks received',
    database: r.label,
    figure: `${fmt(r.chargeWebhooks.received)} / ${fmt(r.chargeWebhooks.events)} events`,
    p50: '—',
    p99: '—',
    failures: String(r.chargeWebhooks.invalid),
    ratio: '—',
  });
  if (r.drain) {
    const d = r.drain;
    rows.push({
      run: `webhook delivery (${fmt(d.total)})`,
      database: r.label,
      figure: `${fmt(d.perSecond)} deliveries/s`,
      p50: '—',
      p99: '—',
      failures: `${d.pending} pending, ${d.failed} failed, ${d.missing} missing, ${d.duplicates} dup`,
      ratio: ratio(d.perSecond, ceilings!.post.rps),
    });
  }
}
if (poller) {
  for (const p of poller) {
    rows.push({
      run: `poller claim, ${fmt(p.rows)} not-due rows`,
      database: 'PostgreSQL',
      figure: `${p.claimMedianMs.toFixed(2)} ms median (idle tick ${p.idleTickMedianMs.toFixed(2)} ms)`,
      p50: '—',
      p99: '—',
      failures: '—',
      ratio: '—',
    });
    rows.push({ run: `claim plan, ${fmt(p.rows)} rows`, database: 'PostgreSQL', figure: `${p.indexes.join(', ') || 'no index'}${p.seqScan ? ' + Seq Scan' : ''}, ${p.buffers} buffers`, p50: '—', p99: '—', failures: '—', ratio: '—' });
  }
}

const headersRow: Row = { run: 'run', database: 'database', figure: 'figure', p50: 'p50 ms', p99: 'p99 ms', failures: 'failures', ratio: 'ratio to ceiling' };
const keys = Object.keys(headersRow) as (keyof Row)[];
const widths = keys.map((k) => Math.max(...[headersRow, ...rows].map((r) => r[k].length)));
say('\n== results ==');
for (const r of [headersRow, ...rows]) say(keys.map((k, i) => r[k].padEnd(widths[i]!)).join('  '));

// Verdicts.
const verdicts: string[] = [];
const verdict = (name: string, pass: boolean | null, detail: string) => verdicts.push(`${pass === null ? 'SKIP' : pass ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
const pgResult = results.find((r) => r.target === 'pg');
const pgliteResult = results.find((r) => r.target === 'pglite');
if (pgResult) {
  const c = pgResult.charge;
  const failures = c.non2xx + c.errors + c.timeouts;
  verdict(
    '1 PostgreSQL charges ≥ 2,500/s, p99 < 100 ms, 0 errors, all settled',
    c.rps >= 2500 && c.p99 < 100 && failures === 0 && pgResult.settled === pgResult.created && pgResult.settleSeconds !== null,
    `${fmt(c.rps)}/s, p99 ${c.p99} ms, ${failures} errors, ${fmt(pgResult.settled)}/${fmt(pgResult.created)} settled`,
  );
  const s = pgResult.status;
  const around = pgResult.statusCeiling;
  verdict(
    '2 status reads ≥ 0.5 × echo GET, p99 < 20 ms',
    s.rps >= 0.5 * around.rps && s.p99 < 20,
    `${ratio(s.rps, around.rps)} × the echo GET around them (${fmt(around.before.rps)} / ${fmt(around.after.rps)} req/s; ${ratio(s.rps, ceilings!.get.rps)} × the start's), p99 ${s.p99} ms${s.serverCpuMs !== undefined && around.serverCpuMs !== undefined ? ` (server CPU a read ${ratio(s.serverCpuMs, around.serverCpuMs)} × echo's a request)` : ''}`,
  );
} else {
  verdict('1 PostgreSQL charges', null, 'pg not in BENCH_TARGETS');
  verdict('2 status reads', null, 'pg not in BENCH_TARGETS');
}
if (pgliteResult) {
  const c = pgliteResult.charge;
  verdict('3 PGlite charges ≥ 400/s, 0 timeouts, p99 < 1 s', c.rps >= 400 && c.timeouts === 0 && c.p99 < 1000, `${fmt(c.rps)}/s, ${c.timeouts} timeouts, p99 ${c.p99} ms`);
} else verdict('3 PGlite charges', null, 'pglite not in BENCH_TARGETS');
if (poller) {
  const [small, large] = poller as [PollerFigures, PollerFigures];
  // "The same": within 1.5× (+1 ms of timer noise), and no sequential scan of transactions.
  const flat = (a: number, b: number) => b <= 1.5 * a + 1;
  verdict(
    '4 poller tick flat from 10k to 1M not-due rows',
    flat(small.claimMedianMs, large.claimMedianMs) && flat(small.idleTickMedianMs, large.idleTickMedianMs) && !large.seqScan,
    `claim ${small.claimMedianMs.toFixed(2)} → ${large.claimMedianMs.toFixed(2)} ms, idle tick ${small.idleTickMedianMs.toFixed(2)} → ${large.idleTickMedianMs.toFixed(2)} ms, plan ${large.indexes.join(', ') || 'no index'}${large.seqScan ? ' + Seq Scan' : ''}, buffers ${small.buffers} → ${large.buffers}`,
  );
} else verdict('4 poller tick', null, 'needs pg (and BENCH_POLLER not 0)');
if (pgResult?.drain) {
  const d = pgResult.drain;
  verdict(
    '5 webhooks ≥ 2,000 deliveries/s, at-least-once',
    d.perSecond >= 2000 && d.pending === 0 && d.failed === 0 && d.missing === 0 && d.invalid === 0,
    `${fmt(d.perSecond)}/s, ${d.pending} left pending, ${d.failed} failed, ${d.missing} never received, ${d.duplicates} duplicates`,
  );
} else verdict('5 webhooks', null, 'needs pg');
if (results.length > 0) {
  verdict('6 resident memory < 250 MB at the end of the charge run', results.every((r) => r.rssMb < 250), results.map((r) => `${r.label} ${fmt(r.rssMb, 1)} MB`).join(', '));
} else verdict('6 memory', null, 'no target');

if (live) {
  const at500 = live.steps.find((step) => step.offered === 500);
  if (live.error) verdict('7 LIVE path ran', false, live.error);
  if (at500) {
    verdict(
      '8 LIVE 500 arrivals/s on PostgreSQL: 0 errors not by an operator, own p99 ≤ 50 ms, 0 money differences, ledger clean',
      at500.errors.notByOperator === 0 && at500.own.all.p99 !== null && at500.own.all.p99 <= 50 && at500.reconciliation.differences === 0 && at500.ledgerVerify.clean,
      `${at500.errors.notByOperator} errors not by an operator (${at500.errors.byOperator} by one), own p99 ${at500.own.all.p99?.toFixed(0) ?? '—'} ms, ${at500.reconciliation.differences} differences, ledger ${at500.ledgerVerify.clean ? 'clean' : 'NOT clean'}, achieved ${at500.achieved.toFixed(0)}/s`,
    );
  } else verdict('8 LIVE 500 arrivals/s', null, `500 not among BENCH_LIVE_STEPS (${liveOptions.steps.join(', ')})`);
  const holding = live.steps.filter(stepHolds).map((step) => step.offered);
  const highest = holding.length ? Math.max(...holding) : null;
  verdict('9 LIVE highest step that holds (reported; FAIL: none held)', live.steps.length > 0 ? highest !== null : null, highest === null ? 'none of the steps held' : `${highest} arrivals/s`);
} else verdict('7 LIVE path', null, liveEnabled ? 'needs pg' : 'BENCH_LIVE=0');

say('\n== thresholds ==');
for (const line of verdicts) say(line);

say('\n== Markdown (for docs/performance.md) ==\n');
say(`Run of ${new Date().toISOString().slice(0, 10)}: ${connections} connections, ${durationS} s per run, ${warmUpS} s of warm-up before the echo and status runs, SANDBOX_DELAY_MS=${process.env.SANDBOX_DELAY_MS ?? '200'}.\n`);
say(`| ${keys.map((k) => headersRow[k]).join(' | ')} |`);
say(`|${keys.map(() => '---').join('|')}|`);
for (const r of rows) say(`| ${keys.map((k) => r[k].replace(/\|/g, '\\|')).join(' | ')} |`);
say('');
for (const line of verdicts) say(`- ${line.replace(/^(\w+)\s+/, '**$1** ')}`);
if (live && live.steps.length > 0) {
  say(`\nLIVE path, ${liveOptions.stepS} s a step; operators: latency median ${liveOptions.latency.medianMs} ms, p99 ${liveOptions.latency.p99Ms} ms; ${liveOptions.error500Rate * 100} % answered 5xx after processing, ${liveOptions.holdRate * 100} % held past the ${liveOptions.connectorTimeoutMs} ms timeout; ${liveOptions.callbackDropRate * 100} % callbacks dropped, ${liveOptions.callbackDuplicateRate * 100} % sent twice; payers decide after ${liveOptions.decisionMs.min}–${liveOptions.decisionMs.max} ms.\n`);
  for (const line of liveMarkdown(live)) say(line);
}
if (poller?.[1]) {
  say('\nClaim plan at 1,000,000 not-due rows (`EXPLAIN (ANALYZE, BUFFERS)`):\n\n```');
  for (const line of poller[1].plan) say(line);
  say('```');
}
say(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
