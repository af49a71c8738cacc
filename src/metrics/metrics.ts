/**
 * Prometheus metrics through `prom-client`, one registry per running service (tests run several in
 * one process). Names follow Prometheus conventions: `kolo_` prefix, base units in the name
 * (`_seconds`), `_total` for counters.
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
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client.ts';
import { pendingDeliveryCounts } from '../db/queries/operations.ts';
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
   * `kolo_http_request_duration_seconds`; each (method, status) pair's labels are built once.
   */
  httpRecorder(route: string): HttpRecorder;
  transactionsCreated: Counter<'rail' | 'direction' | 'environment'>;
  transactionsFinished: Counter<'rail' | 'direction' | 'environment' | 'status'>;
  pollerClaimed: Histogram<'kind'>;
  webhookDeliveries: Counter<'outcome'>;
  webhookDuration: Histogram<'outcome'>;
  connectorCalls: Counter<'operator' | 'call' | 'outcome'>;
  connectorDuration: Histogram<'operator' | 'call'>;
  /** Readings of a LIVE rail's operator balance, by outcome (BALANCE, UNKNOWN). */
  floatReads: Counter<'rail' | 'outcome'>;
  /**
   * A LIVE rail's float in base units, by `kind`: operator_balance, ledger_float, drift,
   * in_flight, sendable, queued (float/; unknown amounts are left unset).
   */
  floatAmount: Gauge<'rail' | 'kind'>;
  /** 1 for a LIVE rail's current float state (OK, LOW, CRITICAL, UNKNOWN), 0 for the others. */
  floatState: Gauge<'rail' | 'state'>;
}

/** Most rows a scrape-time count reads (queue depth): beyond it the gauge says "at least". */
const COUNT_CAP = 100_000;

type HttpLabel = 'route' | 'method' | 'status';

/**
 * Creates the metrics of one service. `db` and `clock` feed the gauges read at scrape time
 * (poller lag, webhook queue depth); each runs one bounded, indexed query.
 */
export function createMetrics(db: Db, clock: Clock): Metrics {
  const registry = new Registry();
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  const httpDurationName = 'kolo_http_request_duration_seconds';
  const httpDuration = new Histogram<HttpLabel>({ name: httpDurationName, help: 'Time to answer an HTTP request.', labelNames: ['route', 'method', 'status'], buckets: seconds, registers: [registry] });
  // The request counter is the histogram's `_count` series under its own name, copied at scrape
  // time: a request is recorded once (one label hash, not two, on every request).
  new Counter<HttpLabel>({
    name: 'kolo_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    async collect() {
      const { values } = await httpDuration.get();
      this.reset();
      for (const value of values) if (value.metricName === `${httpDurationName}_count`) this.inc(value.labels as Record<HttpLabel, string>, value.value);
    },
  });
  // One recorder per route pattern, holding the labels object of each (method, status) it has
  // answered, built once rather than on every request.
  const recorders = new Map<string, HttpRecorder>();
  const recorderOf = (route: string): HttpRecorder => {
    let recorder = recorders.get(route);
    if (recorder) return recorder;
    const byMethod = new Map<string, Map<number, Record<HttpLabel, string>>>();
    recorder = (method, status, elapsedSeconds) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let labels = byStatus.get(status);
      if (!labels) byStatus.set(status, (labels = { route, method, status: String(status) }));
      httpDuration.observe(labels, elapsedSeconds);
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
    floatReads: new Counter({ name: 'kolo_float_reads_total', help: 'Readings of a LIVE rail operator balance, by outcome.', labelNames: ['rail', 'outcome'], registers: [registry] }),
    floatAmount: new Gauge({ name: 'kolo_float_amount', help: 'LIVE rail float in base units: operator_balance, ledger_float, drift, in_flight, sendable, queued.', labelNames: ['rail', 'kind'], registers: [registry] }),
    floatState: new Gauge({ name: 'kolo_float_state', help: 'LIVE rail float state: 1 for the current state (OK, LOW, CRITICAL, UNKNOWN).', labelNames: ['rail', 'state'], registers: [registry] }),
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
      const counts = await pendingDeliveryCounts(db, now, COUNT_CAP);
      this.set({ state: 'due' }, counts.due);
      this.set({ state: 'scheduled' }, counts.scheduled);
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
