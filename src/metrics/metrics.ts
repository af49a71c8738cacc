/**
 * Prometheus metrics (issue "Operating Kolo", item 1) through `prom-client`, one registry per
 * running service (tests run several in one process). Names follow Prometheus conventions:
 * `kolo_` prefix, base units in the name (`_seconds`), `_total` for counters.
 *
 * - HTTP: requests by route pattern (never the raw URL: bounded cardinality, and checkout
 *   session tokens stay out), method and status; a latency histogram.
 * - Transactions created and finished by rail, direction, environment (and final status).
 * - Poller: lag (age of the oldest due PENDING transaction, read at scrape time) and claimed
 *   batch sizes; webhook queue depth (read at scrape time), delivery latency and outcomes;
 *   connector call latency and outcomes by operator.
 * Default process metrics (CPU, memory, event loop, GC) are added by `enableProcessMetrics`,
 * once per serving process.
 */
import { and, eq, lte, sql } from 'drizzle-orm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type HistogramConfiguration } from 'prom-client';
import { rowsOf, type Db } from '../db/client.ts';
import { transactions } from '../db/schema.ts';
import { webhookDeliveries } from '../db/schema-webhooks.ts';
import type { Clock } from '../domain/clock.ts';

/** Records one answered request of a route: its method, status and time to answer in seconds. */
export type HttpRecorder = (method: string, status: number, seconds: number) => void;

/** The service's metrics. */
export interface Metrics {
  registry: Registry;
  /**
   * The recorder of one route pattern's answered requests (`route`: the pattern, never the raw
   * URL), for a route to take once when it is registered; each call records one request's method,
   * status and time to answer in seconds, into `kolo_http_requests_total` and
   * `kolo_http_request_duration_seconds`, without building a key from the route's name on every
   * request (issue 14: that key and its lookup were a few per cent of a status read's CPU).
   */
  httpRecorder(route: string): HttpRecorder;
  transactionsCreated: Counter<'rail' | 'direction' | 'environment'>;
  transactionsFinished: Counter<'rail' | 'direction' | 'environment' | 'status'>;
  pollerClaimed: Histogram<'kind'>;
  webhookDeliveries: Counter<'outcome'>;
  webhookDuration: Histogram<'outcome'>;
  connectorCalls: Counter<'operator' | 'call' | 'outcome'>;
  connectorDuration: Histogram<'operator' | 'call'>;
}

/** Most rows a scrape-time count reads (queue depth): beyond it the gauge says "at least". */
const COUNT_CAP = 100_000;

type HttpLabel = 'route' | 'method' | 'status';

/**
 * The requests of one (route, method, status): their total seconds, and how many fell in each
 * duration bucket (`buckets[i]`: above the bucket bound i - 1 and at most bound i; the last one
 * above every bound). Not cumulative: Prometheus' cumulative counts, and the total, are summed
 * when scraped (`answeredCount`).
 */
interface HttpSeries {
  labels: Record<HttpLabel, string>;
  sum: number;
  buckets: number[];
}

/** How many requests a series counts: the sum of its buckets. */
function answeredCount(series: HttpSeries): number {
  let count = 0;
  for (const n of series.buckets) count += n;
  return count;
}

/**
 * A prom-client histogram of the HTTP series tallied by the recorders (`answered`), read when it
 * is scraped: the exposition (`_bucket` with `le`, `_sum`, `_count`) is prom-client's, from the
 * same values its own `observe` would have accumulated; `observe` itself is not used.
 */
class TalliedHistogram extends Histogram<HttpLabel> {
  private readonly tallied: readonly HttpSeries[];
  private readonly config: HistogramConfiguration<HttpLabel> & { buckets: number[] };

  constructor(tallied: readonly HttpSeries[], config: HistogramConfiguration<HttpLabel> & { buckets: number[] }) {
    super(config);
    this.tallied = tallied;
    this.config = config;
  }

  /** The series as prom-client's histogram gives them: cumulative buckets, `+Inf`, sum and count. */
  override async get() {
    const { name, help, buckets: bounds } = this.config;
    const bucketName = `${name}_bucket`;
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const series of this.tallied) {
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += series.buckets[i]!;
        values.push({ labels: { ...series.labels, le: bounds[i]! }, value: cumulative, metricName: bucketName });
      }
      cumulative += series.buckets[bounds.length]!;
      values.push({ labels: { ...series.labels, le: '+Inf' }, value: cumulative, metricName: bucketName });
      values.push({ labels: series.labels, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels: series.labels, value: cumulative, metricName: `${name}_count` });
    }
    return { name, help, type: 'histogram', values, aggregator: 'sum' } as unknown as Awaited<ReturnType<Histogram<HttpLabel>['get']>>;
  }

  /** What the registry formats: the same values (their labels already include `le`). */
  async getForPromString() {
    return this.get();
  }
}

/**
 * Creates the metrics of one service. `db` and `clock` feed the gauges read at scrape time
 * (poller lag, webhook queue depth); each runs one bounded, indexed query.
 */
export function createMetrics(db: Db, clock: Clock): Metrics {
  const registry = new Registry();
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  // HTTP requests answered and their durations, tallied per series (route, method, status) by the
  // route's recorder and handed to prom-client when it is scraped: prom-client's `inc` and
  // `observe` check and hash their labels on every call, a few per cent of a status read's CPU
  // (issue 14). Each series' labels object is built once.
  const answered: HttpSeries[] = [];
  new Counter({
    name: 'kolo_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of answered) this.inc(series.labels, answeredCount(series));
    },
  });
  new TalliedHistogram(answered, { name: 'kolo_http_request_duration_seconds', help: 'Time to answer an HTTP request.', labelNames: ['route', 'method', 'status'], buckets: seconds, registers: [registry] });
  // One recorder per route pattern, holding its series by method, then status.
  const recorders = new Map<string, HttpRecorder>();
  const recorderOf = (route: string): HttpRecorder => {
    let recorder = recorders.get(route);
    if (recorder) return recorder;
    const byMethod = new Map<string, Map<number, HttpSeries>>();
    recorder = (method, status, elapsedSeconds) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (!series) {
        byStatus.set(status, (series = { labels: { route, method, status: String(status) }, sum: 0, buckets: new Array<number>(seconds.length + 1).fill(0) }));
        answered.push(series);
      }
      series.sum += elapsedSeconds;
      let bucket = 0;
      while (bucket < seconds.length && elapsedSeconds > seconds[bucket]!) bucket++;
      series.buckets[bucket]! += 1;
    };
    recorders.set(route, recorder);
    return recorder;
  };
  const metrics: Metrics = {
    registry,
    httpRecorder: recorderOf,
    transactionsCreated: new Counter({ name: 'kolo_transactions_created_total', help: 'Transactions created (idempotent replays excluded).', labelNames: ['rail', 'direction', 'environment'], registers: [registry] }),
    transactionsFinished: new Counter({ name: 'kolo_transactions_finished_total', help: 'Transactions that reached a final status.', labelNames: ['rail', 'direction', 'environment', 'status'], registers: [registry] }),
    pollerClaimed: new Histogram({ name: 'kolo_poller_batch_size', help: 'Rows claimed by one poller tick (transactions, checkout attempts).', labelNames: ['kind'], buckets: [0, 1, 5, 10, 25, 50, 100, 250, 500], registers: [registry] }),
    webhookDeliveries: new Counter({ name: 'kolo_webhook_attempts_total', help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone).', labelNames: ['outcome'], registers: [registry] }),
    webhookDuration: new Histogram({ name: 'kolo_webhook_attempt_duration_seconds', help: 'Time of one webhook delivery attempt.', labelNames: ['outcome'], buckets: seconds, registers: [registry] }),
    connectorCalls: new Counter({ name: 'kolo_connector_calls_total', help: 'Calls to operators by operator, call (prepare, initiate, status) and outcome.', labelNames: ['operator', 'call', 'outcome'], registers: [registry] }),
    connectorDuration: new Histogram({ name: 'kolo_connector_call_duration_seconds', help: 'Time of one call to an operator.', labelNames: ['operator', 'call'], buckets: seconds, registers: [registry] }),
  };
  new Gauge({
    name: 'kolo_poller_lag_seconds',
    help: 'Age of the oldest PENDING transaction whose poll is due (0 when none is late).',
    registers: [registry],
    async collect() {
      const now = clock.now();
      const [row] = await db
        .select({ oldest: sql<string | null>`min(${transactions.nextPollAt})` })
        .from(transactions)
        .where(and(eq(transactions.status, 'PENDING'), lte(transactions.nextPollAt, now)));
      const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
      this.set(oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000));
    },
  });
  new Gauge({
    name: 'kolo_webhook_queue_depth',
    help: `PENDING webhook deliveries, due now or scheduled later (counted up to ${COUNT_CAP}).`,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const now = clock.now();
      const [row] = await db.execute(sql`
        select count(*) filter (where next_attempt_at <= ${now.toISOString()}::timestamptz) as due,
               count(*) filter (where next_attempt_at > ${now.toISOString()}::timestamptz) as scheduled
        from (select ${webhookDeliveries.nextAttemptAt} as next_attempt_at from ${webhookDeliveries}
              where ${webhookDeliveries.status} = 'PENDING' limit ${COUNT_CAP}) pending`).then((r) => rowsOf<{ due: string; scheduled: string }>(r));
      this.set({ state: 'due' }, Number(row?.due ?? 0));
      this.set({ state: 'scheduled' }, Number(row?.scheduled ?? 0));
    },
  });
  return metrics;
}


const processMetricsEnabled = new WeakSet<Registry>();

/** Adds prom-client's default process metrics to `metrics` (once per registry; for serving processes). */
export function enableProcessMetrics(metrics: Metrics): void {
  if (processMetricsEnabled.has(metrics.registry)) return;
  processMetricsEnabled.add(metrics.registry);
  collectDefaultMetrics({ register: metrics.registry, prefix: 'kolo_' });
}

/** Seconds since `startedMs` (a `performance.now()` reading). */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}
