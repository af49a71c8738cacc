/**
 * The LIVE-path scenario of `npm run bench` (docs/performance.md, "LIVE path"): Kolo on a fresh
 * PostgreSQL database with its MTN MoMo and Orange Money connectors pointed at the operator
 * simulators (src/connectors/*\/simulator, each in a worker thread of its own,
 * bench/simulator-worker.ts, so that they take neither the load generator's event loop nor its
 * CPU), a LIVE key, and open-model arrivals in steps of a mix of 70 % charges (MTN and Orange in
 * turn), 20 % MTN transfers and 10 % status reads.
 *
 * Simulators, by default playing operators as they were measured answering real payments (environment overrides):
 * latency log-normal, median BENCH_LIVE_LATENCY_MEDIAN_MS (120), p99 BENCH_LIVE_LATENCY_P99_MS
 * (380), on every call; BENCH_LIVE_5XX_RATE (0.01) of money-moving calls answered 500 after
 * processing, BENCH_LIVE_HOLD_RATE (0.005) held past Kolo's timeout after processing;
 * BENCH_LIVE_CALLBACK_DROP_RATE (0.02) of callbacks never sent, BENCH_LIVE_CALLBACK_DUPLICATE_RATE
 * (0.01) sent twice; payers decide BENCH_LIVE_DECISION_MS (`1000-4000`) after the prompt.
 *
 * Arrivals: open model (constant arrival rate, whatever the answers): each step offers `rate`
 * requests a second for BENCH_LIVE_STEP_S seconds (steps BENCH_LIVE_STEPS, `100,250,500`). The
 * scheduler is written here on node:http's keep-alive Agent (at most BENCH_LIVE_MAX_SOCKETS
 * sockets, 1024): autocannon is closed-model (a request leaves only when a connection is free,
 * so a slow server lowers the offered load), and no npm load library offers open-model arrivals
 * with a body per request and the response read back. Latency is measured from each request's
 * scheduled arrival, so time spent queued in the client counts (no coordinated omission); an
 * arrival whose request is still unanswered after BENCH_LIVE_CLIENT_TIMEOUT_S (30) is a
 * client-visible error.
 *
 * Per step: achieved rate (answers received within the step's window, a second), client p50/p99
 * per call kind, client-visible errors (non-2xx, socket errors, timeouts) split into caused by an
 * operator (the request's operator call was answered 500 or held) or not, Kolo's own share per
 * charge and transfer (client latency minus the time the simulators spent on that payment's calls,
 * the simulators' times taken in their threads on the clock the bench shares, `absoluteNowMs()`),
 * time from creation to final status for payments the operator called back for and for those only
 * the poller found final (callback dropped), TCP connections each simulator accepted and its peak
 * concurrent requests, status queries per operator (the poller's questions), Kolo's event-loop
 * delay p99 (its /metrics, `kolo_nodejs_eventloop_lag_p99_seconds`, which prom-client measures
 * since its previous reading: the previous step's end) and resident memory. After each step, a
 * bounded wait (BENCH_LIVE_SETTLE_S, 60) until every payment is final, then every simulator
 * movement reconciled with the ledger lines on the rails' OPERATOR_FLOAT accounts per transaction
 * (as test/helpers/reconcile.ts does) and `kolo ledger verify` run against the database.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pg from 'pg';
import { MTN_SIM_DEFAULTS } from '../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { ORANGE_SIM_DEFAULTS } from '../src/connectors/orange-money/simulator/orange-simulator.ts';
import { orangeOrderId } from '../src/connectors/orange-money/orange-transformers.ts';
import { absoluteNowMs } from '../src/connectors/simulator-http.ts';
import { operatorFloatAccount } from '../src/ledger/accounts.ts';
import { databaseCpuSeconds, freePort, processCpuSeconds, scrapeMetric, serverRss, sleep, stop, type Started } from './lib.ts';
import { startSimulatorWorker, type SimRequestRecord } from './simulator-worker.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

const run = promisify(execFile);

/** The scenario's settings, read from the environment by `liveOptionsFromEnv`. */
export interface LiveOptions {
  /** Offered arrivals a second, one step each. */
  steps: number[];
  stepS: number;
  settleS: number;
  clientTimeoutS: number;
  maxSockets: number;
  latency: { medianMs: number; p99Ms: number };
  error500Rate: number;
  holdRate: number;
  callbackDropRate: number;
  callbackDuplicateRate: number;
  decisionMs: { min: number; max: number };
  /** Kolo's CONNECTOR_TIMEOUT_MS for the run (an operator call held past it is abandoned). */
  connectorTimeoutMs: number;
}

/** The options as the environment sets them (defaults: the measured operators and the 100, 250, 500/s steps). */
export function liveOptionsFromEnv(env: NodeJS.ProcessEnv): LiveOptions {
  const num = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: expected a number ≥ 0, got ${env[name]}`);
    return value;
  };
  const steps = (env.BENCH_LIVE_STEPS ?? '100,250,500').split(',').map((s) => Number(s.trim()));
  if (steps.some((s) => !(s > 0))) throw new Error(`BENCH_LIVE_STEPS: expected rates > 0 separated by commas, got ${env.BENCH_LIVE_STEPS}`);
  const decision = /^(\d+)(?:-(\d+))?$/.exec(env.BENCH_LIVE_DECISION_MS ?? '1000-4000');
  if (!decision) throw new Error(`BENCH_LIVE_DECISION_MS: expected <ms> or <min>-<max>, got ${env.BENCH_LIVE_DECISION_MS}`);
  return {
    steps,
    stepS: num('BENCH_LIVE_STEP_S', 30),
    settleS: num('BENCH_LIVE_SETTLE_S', 60),
    clientTimeoutS: num('BENCH_LIVE_CLIENT_TIMEOUT_S', 30),
    maxSockets: num('BENCH_LIVE_MAX_SOCKETS', 1024),
    latency: { medianMs: num('BENCH_LIVE_LATENCY_MEDIAN_MS', 120), p99Ms: num('BENCH_LIVE_LATENCY_P99_MS', 380) },
    error500Rate: num('BENCH_LIVE_5XX_RATE', 0.01),
    holdRate: num('BENCH_LIVE_HOLD_RATE', 0.005),
    callbackDropRate: num('BENCH_LIVE_CALLBACK_DROP_RATE', 0.02),
    callbackDuplicateRate: num('BENCH_LIVE_CALLBACK_DUPLICATE_RATE', 0.01),
    decisionMs: { min: Number(decision[1]), max: Number(decision[2] ?? decision[1]) },
    connectorTimeoutMs: num('CONNECTOR_TIMEOUT_MS', 15_000),
  };
}

/** p50 and p99 of a list of milliseconds (null when empty). */
export interface Percentiles {
  count: number;
  p50: number | null;
  p99: number | null;
}

/** What one step measured. */
export interface LiveStep {
  offered: number;
  arrivals: number;
  /** Answers (any status) received within the step's window, a second. */
  achieved: number;
  client: { charge: Percentiles; transfer: Percentiles; status: Percentiles };
  /** Kolo's own share (client latency minus the operator's time on that payment's calls). */
  own: { charge: Percentiles; transfer: Percentiles; all: Percentiles };
  errors: { byOperator: number; notByOperator: number; samples: string[] };
  /**
   * Creation → final status, milliseconds: payments the operator called back for (Kolo then asks
   * it, since MTN and Orange callbacks are not signed) and payments only the poller found final
   * (callback dropped, or none).
   */
  final: { callback: Percentiles; poll: Percentiles; notFinal: number; settleSeconds: number | null };
  operators: { name: string; connectionsOpened: number; peakConcurrent: number; statusQueries: number; initiations: number }[];
  eventLoopP99Ms: number | null;
  /**
   * The bench thread's own event-loop delay p99 over the step's arrivals, milliseconds: how late
   * the load generator itself could be (counted in client latencies and Kolo's own share).
   */
  benchEventLoopP99Ms: number;
  rssMb: number;
  /**
   * CPU milliseconds per arrival from the step's start until its payments were final (or the
   * settle bound): Kolo's process, the PostgreSQL backends of its database, and the bench's own
   * process (load generator, simulators' threads, webhook receiver).
   */
  cpuMsPerArrival: { kolo: number; postgres: number; bench: number };
  /** `pending`: how many of the differences are on transactions still PENDING in Kolo (it has not yet learned the outcome). */
  reconciliation: { movements: number; lines: number; differences: number; pending: number; examples: string[] };
  ledgerVerify: { clean: boolean; output: string };
}

/** The scenario's result: its options and one entry per step (fewer when the harness failed). */
export interface LiveResult {
  options: LiveOptions;
  steps: LiveStep[];
  error?: string;
}

/** What bench/run.ts lends the scenario: how it creates databases and starts Kolo. */
export interface LiveDeps {
  freshDatabase(suffix: string): Promise<{ url: string; drop: () => Promise<void> }>;
  startKolo(port: number, extra: Record<string, string>): Promise<{ server: Started; key: string; secret: string }>;
  say(line?: string): void;
}

type Kind = 'charge' | 'transfer' | 'status';

/** One arrival and what the client saw. */
interface Arrival {
  kind: Kind;
  operator: 'MTN' | 'ORANGE' | null;
  merchantReference: string;
  /** The transfer's beneficiary (MTN's account-holder check names it). */
  msisdn: string | null;
  /** When the arrival is due, `absoluteNowMs()` (the simulators' clock). */
  scheduledAt: number;
  latencyMs: number | null;
  status: number | null;
  reference: string | null;
  error: string | null;
}

const MTN_RAIL = 'MTN_MOMO_CM';
const ORANGE_RAIL = 'ORANGE_MONEY_CM';
const AMOUNT = 1000;
const FUNDING_AMOUNT = 1_000_000;

/** p50/p99 of `values` (nearest rank). */
function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { count: 0, p50: null, p99: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99) };
}

/** The environment that points the MTN and Orange connectors at the simulators (as test/helpers/live.ts). */
function operatorEnv(mtn: { url: string }, orange: { url: string }): Record<string, string> {
  const m = MTN_SIM_DEFAULTS;
  const o = ORANGE_SIM_DEFAULTS;
  return {
    MTN_MOMO_BASE_URL: mtn.url,
    MTN_MOMO_TARGET_ENVIRONMENT: 'mtncameroon',
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: m.collection.subscriptionKey,
    MTN_MOMO_COLLECTION_API_USER: m.collection.apiUser,
    MTN_MOMO_COLLECTION_API_KEY: m.collection.apiKey,
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: m.disbursement.subscriptionKey,
    MTN_MOMO_DISBURSEMENT_API_USER: m.disbursement.apiUser,
    MTN_MOMO_DISBURSEMENT_API_KEY: m.disbursement.apiKey,
    ORANGE_MONEY_BASE_URL: orange.url,
    ORANGE_MONEY_CONSUMER_KEY: o.consumerKey,
    ORANGE_MONEY_CONSUMER_SECRET: o.consumerSecret,
    ORANGE_MONEY_API_USERNAME: o.apiUsername,
    ORANGE_MONEY_API_PASSWORD: o.apiPassword,
    ORANGE_MONEY_CHANNEL_MSISDN: o.channelMsisdn,
    ORANGE_MONEY_PIN: o.pin,
  };
}

/** A customer number that succeeds on both simulators (never a scenario suffix: 450–464, 198, 601–609). */
const customer = (prefix: string, i: number) => `${prefix}${String(100000 + (i % 800000)).padStart(6, '0').replace(/(45\d|46[0-4]|198|60\d)$/, '300')}`;

/**
 * Sends one JSON request through `agent`; resolves with the status and body, or an error text
 * (socket error, or no answer within `timeoutMs`).
 */
function send(agent: http.Agent, base: URL, method: string, path: string, key: string, body: string | null, timeoutMs: number): Promise<{ status: number | null; text: string; error: string | null }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'x-api-key': key };
    if (body !== null) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    const req = http.request({ host: base.hostname, port: base.port, method, path, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? null, text: Buffer.concat(chunks).toString('utf8'), error: null }));
      res.on('error', (e) => resolve({ status: null, text: '', error: String(e) }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (e) => resolve({ status: null, text: '', error: e.message }));
    if (body !== null) req.write(body);
    req.end();
  });
}

/** The Kolo reference a simulator request is about, when it names one (MTN `externalId`, Orange `orderId`). */
function referenceOfSimRequest(r: SimRequestRecord, orangeOrders: Map<string, string>, orangeTokens: Map<string, string>): string | null {
  if (r.method !== 'POST' || r.body === '') return null;
  try {
    const body = JSON.parse(r.body) as { externalId?: unknown; orderId?: unknown; payToken?: unknown };
    if (typeof body.externalId === 'string') return body.externalId;
    if (typeof body.orderId === 'string') {
      const reference = orangeOrders.get(body.orderId) ?? null;
      if (reference && typeof body.payToken === 'string') orangeTokens.set(body.payToken, reference);
      return reference;
    }
  } catch {
    // Not JSON: a token call.
  }
  return null;
}

/** Largest number of simulator requests in flight at once among `requests`. */
function peakConcurrent(requests: SimRequestRecord[]): number {
  const edges: [number, number][] = [];
  for (const r of requests) {
    if (r.receivedAtMs === undefined) continue;
    edges.push([r.receivedAtMs, 1], [r.answeredAtMs ?? Number.POSITIVE_INFINITY, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  return peak;
}

/** Was this simulator request one of the faults (answered 500, or its client gave up before an answer)? */
const isFaulted = (r: SimRequestRecord) => r.answerStatus === 500 || (r.answeredAtMs !== undefined && r.answerStatus === undefined);

/** Runs the scenario; never throws (a harness failure ends it early with `error`). */
export async function runLivePath(options: LiveOptions, deps: LiveDeps): Promise<LiveResult> {
  const { say } = deps;
  const result: LiveResult = { options, steps: [] };
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const simOptions = {
      decisionDelayMs: options.decisionMs.min,
      decisionDelayMaxMs: options.decisionMs.max,
      faultRates: { error500: options.error500Rate, timeout: options.holdRate },
      callbacks: { delayMs: 0, duplicate: false, drop: false, dropRate: options.callbackDropRate, duplicateRate: options.callbackDuplicateRate },
      latencyMs: { token: 0, check: 0, prepare: 0, initiate: 0, status: 0, distribution: options.latency },
    };
    const mtn = await startSimulatorWorker({ operator: 'MTN', options: simOptions });
    cleanups.push(() => mtn.close());
    const orange = await startSimulatorWorker({ operator: 'ORANGE', options: simOptions });
    cleanups.push(() => orange.close());

    const db = await deps.freshDatabase('_live');
    const dbName = new URL(db.url).pathname.slice(1);
    cleanups.unshift(db.drop);
    const port = await freePort();
    const metricsPort = await freePort();
    const serverEnv: Record<string, string> = {
      ...operatorEnv(mtn, orange),
      DATABASE_URL: db.url,
      DATA_DIR: (await run('mktemp', ['-d', '/tmp/kolo-bench-live-XXXXXX'])).stdout.trim(),
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      CALLBACK_BASE_URL: `http://127.0.0.1:${port}`,
      CONNECTOR_TIMEOUT_MS: String(options.connectorTimeoutMs),
    };
    const { server, secret } = await deps.startKolo(port, serverEnv);
    cleanups.unshift(() => stop(server.child));
    /** CPU seconds used so far by Kolo, its database's PostgreSQL backends and this process. */
    const cpuSeconds = () => ({ kolo: processCpuSeconds(server.child.pid!), postgres: databaseCpuSeconds(dbName), bench: processCpuSeconds(process.pid) });
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    cleanups.unshift(() => sql.end());
    const cli = (args: string[]) => run(process.execPath, ['dist/main.js', ...args], { env: { ...process.env, ...serverEnv }, maxBuffer: 16 * 1024 * 1024 });

    // A LIVE key for the demo application (its webhook secret is the banner's): `kolo keys rotate`.
    const appId = (await sql.query<{ id: string }>('select id from applications order by created_at limit 1')).rows[0]!.id;
    const rotated = await cli(['keys', 'rotate', '--app', appId, '--environment', 'LIVE', '--json']);
    const key = /"plainTextKey":\s*"(sk_live_[0-9a-f]+)"/.exec(rotated.stdout)?.[1];
    if (!key) throw new Error(`no LIVE key in kolo keys rotate's output: ${rotated.stdout}`);
    const receiver = await startWebhookReceiver(await freePort(), secret);
    cleanups.splice(1, 0, () => receiver.close()); // after the server stops
    const base = new URL(`http://127.0.0.1:${port}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets });
    cleanups.push(async () => agent.destroy());
    const timeoutMs = options.clientTimeoutS * 1000;
    const call = (method: string, path: string, body: unknown) => send(agent, base, method, path, key, body === null ? null : JSON.stringify(body), timeoutMs);
    const patched = await call('PATCH', '/api/v1/webhook', { webhookUrl: receiver.url });
    if (patched.status !== 200) throw new Error(`setting the webhook URL failed: ${patched.status} ${patched.text}`);

    // Funding: MTN charges that cover every step's transfers (with room for fees), settled before
    // the steps; one Orange charge and one transfer so that every operator token is issued.
    const transfersPlanned = options.steps.reduce((n, rate) => n + rate * options.stepS * 0.2, 0);
    const fundingCount = Math.ceil((transfersPlanned * AMOUNT * 1.5) / FUNDING_AMOUNT) + 1;
    const references: string[] = [];
    for (let i = 0; i < fundingCount + 1; i++) {
      const isOrange = i === fundingCount;
      const res = await call('POST', '/api/v1/pay-in/charge', {
        amount: isOrange ? AMOUNT : FUNDING_AMOUNT,
        currency: 'XAF',
        paymentMethod: isOrange ? ORANGE_RAIL : MTN_RAIL,
        payerAccount: isOrange ? '237699100200' : customer('237677', i),
        merchantReference: `live-funding-${i}`,
      });
      const reference = /"reference":"([^"]+)"/.exec(res.text)?.[1];
      if (res.status !== 201 || !reference) throw new Error(`funding charge failed: ${res.status} ${res.text}`);
      references.push(reference);
    }
    const fundingDeadline = performance.now() + 120_000;
    for (;;) {
      const { rows } = await sql.query<{ pending: number; success: number }>(
        `select count(*) filter (where status = 'PENDING')::int as pending, count(*) filter (where status = 'SUCCESS')::int as success from transactions where merchant_reference like 'live-funding-%'`,
      );
      if (rows[0]!.pending === 0) {
        say(`LIVE funding: ${rows[0]!.success} of ${fundingCount + 1} charges succeeded`);
        break;
      }
      if (performance.now() > fundingDeadline) throw new Error('funding charges not final within 120 s');
      await sleep(500);
    }
    const firstTransfer = await call('POST', '/api/v1/pay-out/transfer', { amount: AMOUNT, currency: 'XAF', paymentMethod: MTN_RAIL, beneficiaryAccount: '237677300300', beneficiaryName: 'Awa Ngono', merchantReference: 'live-funding-transfer' });
    if (firstTransfer.status !== 201) throw new Error(`first transfer failed: ${firstTransfer.status} ${firstTransfer.text}`);

    // Orange orderId → Kolo reference (Kolo sends its reference, hashed when longer than 20 characters).
    const orangeOrders = new Map<string, string>();
    const orangeTokens = new Map<string, string>();
    const rememberOrange = (reference: string) => orangeOrders.set(orangeOrderId(reference), reference);
    rememberOrange(references[references.length - 1]!);

    let sequence = 0;
    for (const [stepIndex, rate] of options.steps.entries()) {
      say(`\n-- LIVE step ${stepIndex + 1}: ${rate} arrivals/s for ${options.stepS} s --`);
      // The simulators' logs start with the step (the previous step's are read: dropping them keeps
      // a long run's memory flat; their money records, which reconciliation reads, are kept).
      await Promise.all([mtn.clear(), orange.clear()]);
      const arrivals: Arrival[] = [];
      const inFlight: Promise<void>[] = [];
      const total = Math.round(rate * options.stepS);
      const benchLoop = monitorEventLoopDelay({ resolution: 10 });
      benchLoop.enable();
      const cpuAtStart = cpuSeconds();
      const started = absoluteNowMs();
      const fire = (index: number) => {
        const slot = (sequence + index) % 10;
        const kind: Kind = slot < 7 ? 'charge' : slot < 9 ? 'transfer' : 'status';
        const operator = kind === 'charge' ? ((sequence + index) % 20 < 10 ? 'MTN' : 'ORANGE') : kind === 'transfer' ? 'MTN' : null;
        const n = sequence + index;
        const arrival: Arrival = { kind, operator, merchantReference: `live-${stepIndex}-${n}`, msisdn: kind === 'transfer' ? customer('237679', n) : null, scheduledAt: started + (index * 1000) / rate, latencyMs: null, status: null, reference: null, error: null };
        arrivals.push(arrival);
        let request: Promise<{ status: number | null; text: string; error: string | null }>;
        if (kind === 'charge') {
          const orangeCharge = operator === 'ORANGE';
          request = call('POST', '/api/v1/pay-in/charge', {
            amount: AMOUNT,
            currency: 'XAF',
            paymentMethod: orangeCharge ? ORANGE_RAIL : MTN_RAIL,
            payerAccount: orangeCharge ? customer('237699', n) : customer('237678', n),
            merchantReference: arrival.merchantReference,
          });
        } else if (kind === 'transfer') {
          request = call('POST', '/api/v1/pay-out/transfer', { amount: AMOUNT, currency: 'XAF', paymentMethod: MTN_RAIL, beneficiaryAccount: arrival.msisdn, beneficiaryName: 'Awa Ngono', merchantReference: arrival.merchantReference });
        } else {
          const reference = references[Math.floor(Math.random() * references.length)]!;
          request = call('GET', `/api/v1/pay-in/check_status/${reference}`, null);
        }
        inFlight.push(
          request.then((res) => {
            arrival.latencyMs = absoluteNowMs() - arrival.scheduledAt;
            arrival.status = res.status;
            arrival.error = res.error ?? (res.status !== null && (res.status < 200 || res.status > 299) ? `${res.status} ${/"code":"([^"]+)"/.exec(res.text)?.[1] ?? ''}` : null);
            if (kind !== 'status' && res.status !== null && res.status >= 200 && res.status < 300) {
              const reference = /"reference":"([^"]+)"/.exec(res.text)?.[1] ?? null;
              arrival.reference = reference;
              if (reference) {
                if (kind === 'charge') references.push(reference);
                if (operator === 'ORANGE') rememberOrange(reference);
              }
            }
          }),
        );
      };
      // The arrival clock: every few milliseconds, every arrival whose time has come leaves.
      let fired = 0;
      await new Promise<void>((resolve) => {
        const tick = () => {
          const due = Math.min(total, Math.floor(((absoluteNowMs() - started) * rate) / 1000) + 1);
          while (fired < due) fire(fired++);
          if (fired >= total) resolve();
          else setTimeout(tick, 2);
        };
        tick();
      });
      sequence += total;
      await Promise.all(inFlight);
      const answeredAt = absoluteNowMs();
      const windowEnd = started + options.stepS * 1000;
      benchLoop.disable();
      const eventLoopP99 = await scrapeMetric(metricsPort, 'kolo_nodejs_eventloop_lag_p99_seconds');
      const rss = serverRss(server.child.pid!);

      // Until every payment created so far is final, or the bound.
      const settleDeadline = absoluteNowMs() + options.settleS * 1000;
      let notFinal = 0;
      let settleSeconds: number | null = null;
      for (;;) {
        notFinal = (await sql.query<{ n: number }>(`select count(*)::int as n from transactions where status = 'PENDING' and merchant_reference like 'live-%'`)).rows[0]!.n;
        if (notFinal === 0) {
          settleSeconds = (absoluteNowMs() - answeredAt) / 1000;
          break;
        }
        if (absoluteNowMs() > settleDeadline) break;
        await sleep(500);
      }
      const cpuAtEnd = cpuSeconds();
      const perArrivalMs = (key: keyof typeof cpuAtEnd) => ((cpuAtEnd[key] - cpuAtStart[key]) * 1000) / total;
      const cpuMsPerArrival = { kolo: perArrivalMs('kolo'), postgres: perArrivalMs('postgres'), bench: perArrivalMs('bench') };

      // Operator time per Kolo reference: the simulators' calls named by it (Orange's init by the payToken its pay carries).
      const [mtnLog, orangeLog] = await Promise.all([mtn.snapshot(), orange.snapshot()]);
      const stepRequests = { mtn: mtnLog.requests, orange: orangeLog.requests };
      const operatorMs = new Map<string, number>();
      const faulted = new Set<string>();
      const add = (reference: string, r: SimRequestRecord) => {
        if (r.receivedAtMs === undefined || r.answeredAtMs === undefined) return;
        operatorMs.set(reference, (operatorMs.get(reference) ?? 0) + (r.answeredAtMs - r.receivedAtMs));
        if (isFaulted(r)) faulted.add(reference);
      };
      for (const r of [...stepRequests.mtn, ...stepRequests.orange]) {
        const reference = referenceOfSimRequest(r, orangeOrders, orangeTokens);
        if (reference) add(reference, r);
      }
      const transferByMsisdn = new Map(arrivals.filter((a) => a.msisdn && a.reference).map((a) => [a.msisdn!, a.reference!]));
      for (const r of stepRequests.mtn) {
        const msisdn = /\/accountholder\/msisdn\/([^/]+)\/active$/.exec(r.path)?.[1];
        const reference = msisdn ? transferByMsisdn.get(decodeURIComponent(msisdn)) : undefined;
        if (reference) add(reference, r);
      }
      for (const r of stepRequests.orange) {
        if (!r.path.endsWith('/init') || !r.answer) continue;
        const token = /"payToken":"([^"]+)"/.exec(r.answer)?.[1];
        const reference = token ? orangeTokens.get(token) : undefined;
        if (reference) add(reference, r);
      }

      // Client-visible errors: by an operator when the payment's operator call failed (its merchant reference names it).
      const errored = arrivals.filter((a) => a.error !== null);
      const erroredRefs = errored.filter((a) => a.kind !== 'status').map((a) => a.merchantReference);
      const byMerchantRef = new Map<string, string>();
      if (erroredRefs.length > 0) {
        const { rows } = await sql.query<{ merchant_reference: string; reference: string }>('select merchant_reference, reference from transactions where merchant_reference = any($1)', [erroredRefs]);
        for (const row of rows) byMerchantRef.set(row.merchant_reference, row.reference);
      }
      let byOperator = 0;
      for (const a of errored) {
        const reference = a.reference ?? byMerchantRef.get(a.merchantReference);
        if (reference && faulted.has(reference)) byOperator++;
      }

      const ownOf = (kind: Kind) =>
        arrivals
          .filter((a) => a.kind === kind && a.latencyMs !== null && a.error === null)
          .map((a) => a.latencyMs! - (a.reference ? (operatorMs.get(a.reference) ?? 0) : 0));
      const clientOf = (kind: Kind) => arrivals.filter((a) => a.kind === kind && a.latencyMs !== null && a.error === null).map((a) => a.latencyMs!);

      // Creation → final status by the cause of the final transition.
      const { rows: finals } = await sql.query<{ reference: string; ms: number }>(
        `select t.reference, extract(epoch from (e.created_at - t.created_at)) * 1000 as ms
         from transactions t
         join lateral (select created_at from transaction_events where transaction_id = t.id order by id desc limit 1) e on true
         where t.merchant_reference like $1 and t.status <> 'PENDING'`,
        [`live-${stepIndex}-%`],
      );
      // Which payments the operator called back for (MTN's body names the reference, Orange's the payToken).
      const calledBack = new Set<string>();
      for (const c of [...mtnLog.callbacks, ...orangeLog.callbacks]) {
        const external = /"externalId":"([^"]+)"/.exec(c.body)?.[1];
        const payToken = /"payToken":"([^"]+)"/.exec(c.body)?.[1];
        const reference = external ?? (payToken ? orangeTokens.get(payToken) : undefined);
        if (reference && c.status !== null && c.status >= 200 && c.status < 300) calledBack.add(reference);
      }
      const finalBy = (byCallback: boolean) => percentiles(finals.filter((f) => calledBack.has(f.reference) === byCallback).map((f) => Number(f.ms)));

      const reconciliation = await reconcileAll(sql, [...mtnLog.moved, ...orangeLog.moved]);
      const verify = await cli(['ledger', 'verify']).then(
        (r) => ({ clean: true, output: r.stdout.trim() }),
        (e: { stdout?: string; stderr?: string; message: string }) => ({ clean: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message }),
      );
      const isStatus = (r: SimRequestRecord) => r.method === 'GET' && !r.path.includes('accountholder');
      const step: LiveStep = {
        offered: rate,
        arrivals: arrivals.length,
        achieved: arrivals.filter((a) => a.status !== null && a.scheduledAt + a.latencyMs! <= windowEnd).length / options.stepS,
        client: { charge: percentiles(clientOf('charge')), transfer: percentiles(clientOf('transfer')), status: percentiles(clientOf('status')) },
        own: { charge: percentiles(ownOf('charge')), transfer: percentiles(ownOf('transfer')), all: percentiles([...ownOf('charge'), ...ownOf('transfer'), ...ownOf('status')]) },
        errors: { byOperator, notByOperator: errored.length - byOperator, samples: [...new Set(errored.map((a) => `${a.kind}: ${a.error}`))].slice(0, 5) },
        final: { callback: finalBy(true), poll: finalBy(false), notFinal, settleSeconds },
        operators: [
          { name: 'MTN', connectionsOpened: mtnLog.connectionsOpened, peakConcurrent: peakConcurrent(stepRequests.mtn), statusQueries: stepRequests.mtn.filter(isStatus).length, initiations: stepRequests.mtn.filter((r) => r.method === 'POST' && !r.path.includes('token')).length },
          { name: 'Orange', connectionsOpened: orangeLog.connectionsOpened, peakConcurrent: peakConcurrent(stepRequests.orange), statusQueries: stepRequests.orange.filter(isStatus).length, initiations: stepRequests.orange.filter((r) => r.path.endsWith('/pay')).length },
        ],
        eventLoopP99Ms: eventLoopP99 === null ? null : eventLoopP99 * 1000,
        benchEventLoopP99Ms: benchLoop.percentile(99) / 1e6,
        rssMb: rss.mb,
        cpuMsPerArrival,
        reconciliation,
        ledgerVerify: verify,
      };
      result.steps.push(step);
      sayStep(say, step);
    }
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    say(`LIVE path stopped: ${result.error}`);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => say(`LIVE cleanup failed: ${String(error)}`));
  }
  return result;
}

/**
 * Every simulator movement against the ledger: per Kolo transaction, money moved (pay-in +,
 * pay-out −) equals the net of its lines on the rails' LIVE OPERATOR_FLOAT accounts (debit +).
 * Movements are attributed by reference, then by operator reference (Orange's payToken).
 */
async function reconcileAll(sql: pg.Client, moved: { reference: string; operatorReference: string; direction: 'PAY_IN' | 'PAY_OUT'; amount: number }[]) {
  const floatKeys = [MTN_RAIL, ORANGE_RAIL].map((rail) => operatorFloatAccount(rail, 'LIVE', 'XAF').key);
  const { rows: txs } = await sql.query<{ reference: string; operator_reference: string | null; direction: string; status: string }>(
    `select reference, operator_reference, direction, status from transactions where environment = 'LIVE'`,
  );
  const byReference = new Set(txs.map((t) => t.reference));
  const isPending = new Set(txs.filter((t) => t.status === 'PENDING').map((t) => t.reference));
  const byOperatorRef = new Map(txs.filter((t) => t.operator_reference).map((t) => [`${t.direction}:${t.operator_reference}`, t.reference]));
  const byOrderId = new Map(txs.map((t) => [orangeOrderId(t.reference), t.reference]));
  const lines = new Map<string, { moved: number; posted: number }>();
  const lineOf = (reference: string) => lines.get(reference) ?? (lines.set(reference, { moved: 0, posted: 0 }), lines.get(reference)!);
  for (const m of moved) {
    const reference = byReference.has(m.reference) ? m.reference : (byOperatorRef.get(`${m.direction}:${m.operatorReference}`) ?? byOrderId.get(m.reference) ?? `unattributed:${m.reference}`);
    lineOf(reference).moved += m.direction === 'PAY_IN' ? m.amount : -m.amount;
  }
  const { rows: posted } = await sql.query<{ reference: string; amount: string }>(
    `select t.reference, sum(l.amount)::text as amount
     from ledger_lines l join ledger_accounts a on a.id = l.account_id join ledger_entries e on e.id = l.entry_id join transactions t on t.id = e.transaction_id
     where a.key = any($1) group by t.reference`,
    [floatKeys],
  );
  for (const p of posted) lineOf(p.reference).posted += Number(p.amount);
  const differences = [...lines].filter(([, l]) => l.moved !== l.posted);
  return {
    movements: moved.length,
    lines: lines.size,
    differences: differences.length,
    pending: differences.filter(([r]) => isPending.has(r)).length,
    examples: differences.slice(0, 5).map(([r, l]) => `${r}: moved ${l.moved}, posted ${l.posted}${isPending.has(r) ? ', still PENDING' : ''}`),
  };
}

const ms = (v: number | null) => (v === null ? '—' : v.toFixed(0));
const pp = (p: Percentiles) => `${ms(p.p50)} / ${ms(p.p99)}`;

/** Prints one step's figures. */
function sayStep(say: (line?: string) => void, s: LiveStep): void {
  say(`offered ${s.offered}/s, ${s.arrivals} arrivals, achieved ${s.achieved.toFixed(1)}/s`);
  say(`client p50/p99 ms: charges ${pp(s.client.charge)}, transfers ${pp(s.client.transfer)}, status reads ${pp(s.client.status)}`);
  say(`Kolo's own p50/p99 ms: charges ${pp(s.own.charge)}, transfers ${pp(s.own.transfer)}, all ${pp(s.own.all)}`);
  say(`client-visible errors: ${s.errors.byOperator} caused by an operator, ${s.errors.notByOperator} not${s.errors.samples.length ? ` (${s.errors.samples.join('; ')})` : ''}`);
  say(`to final status p50/p99 ms: callback ${pp(s.final.callback)} (${s.final.callback.count}), polling only ${pp(s.final.poll)} (${s.final.poll.count}); ${s.final.notFinal} not final ${s.final.settleSeconds === null ? 'at the bound' : `(all final ${s.final.settleSeconds.toFixed(1)} s after the last answer)`}`);
  for (const o of s.operators) say(`${o.name}: ${o.connectionsOpened} connections opened, peak ${o.peakConcurrent} requests in flight, ${o.initiations} initiations, ${o.statusQueries} status queries`);
  say(`Kolo event-loop delay p99 ${s.eventLoopP99Ms === null ? '—' : s.eventLoopP99Ms.toFixed(1)} ms (the bench's own ${s.benchEventLoopP99Ms.toFixed(1)} ms), RSS ${s.rssMb.toFixed(1)} MB`);
  say(`CPU ms an arrival (until its payments were final): Kolo ${s.cpuMsPerArrival.kolo.toFixed(2)}, PostgreSQL ${s.cpuMsPerArrival.postgres.toFixed(2)}, bench ${s.cpuMsPerArrival.bench.toFixed(2)}`);
  say(`reconciliation: ${s.reconciliation.movements} movements, ${s.reconciliation.lines} transactions, ${s.reconciliation.differences} differences${s.reconciliation.differences > 0 ? `, ${s.reconciliation.pending} of them on payments still PENDING` : ''}${s.reconciliation.examples.length ? ` (${s.reconciliation.examples.join('; ')})` : ''}; ledger verify ${s.ledgerVerify.clean ? 'clean' : `FAILED: ${s.ledgerVerify.output.slice(0, 300)}`}`);
}

/** Does a step hold: achieved ≥ 95 % of offered, 0 errors not caused by an operator, own p99 ≤ 50 ms, 0 differences, ledger clean. */
export function stepHolds(s: LiveStep): boolean {
  return (
    s.achieved >= 0.95 * s.offered &&
    s.errors.notByOperator === 0 &&
    s.own.all.p99 !== null &&
    s.own.all.p99 <= 50 &&
    s.reconciliation.differences === 0 &&
    s.ledgerVerify.clean
  );
}

/** The LIVE table's Markdown rows (docs/performance.md, "LIVE path"). */
export function liveMarkdown(result: LiveResult): string[] {
  const out = [
    '| Offered | Achieved | Client p50 / p99 ms: charges; transfers; status reads | Kolo’s own p50 / p99 ms: charges; transfers | Errors: operator / not | To final p50 / p99 ms: called back; polling only | Connections MTN / Orange | Status queries MTN / Orange | Event-loop p99 | RSS | CPU ms an arrival: Kolo; PostgreSQL; bench | Money differences | Ledger verify |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of result.steps) {
    const [m, o] = s.operators;
    out.push(
      `| ${s.offered}/s | ${s.achieved.toFixed(0)}/s | ${pp(s.client.charge)}; ${pp(s.client.transfer)}; ${pp(s.client.status)} | ${pp(s.own.charge)}; ${pp(s.own.transfer)} | ${s.errors.byOperator} / ${s.errors.notByOperator} | ${pp(s.final.callback)}; ${pp(s.final.poll)} | ${m!.connectionsOpened} / ${o!.connectionsOpened} | ${m!.statusQueries} / ${o!.statusQueries} | ${s.eventLoopP99Ms === null ? '—' : `${s.eventLoopP99Ms.toFixed(0)} ms`} | ${s.rssMb.toFixed(0)} MB | ${s.cpuMsPerArrival.kolo.toFixed(2)}; ${s.cpuMsPerArrival.postgres.toFixed(2)}; ${s.cpuMsPerArrival.bench.toFixed(2)} | ${s.reconciliation.differences}${s.reconciliation.pending > 0 ? ` (${s.reconciliation.pending} still PENDING)` : ''} | ${s.ledgerVerify.clean ? 'clean' : 'FAILED'} |`,
    );
  }
  return out;
}
