/**
 * `GET /metrics` in Prometheus text format with Kolo's own metrics, never open on the public port:
 * there only behind `METRICS_TOKEN`, else on the metrics-only listener of `METRICS_PORT` (tested
 * with a real `kolo serve` in cli.test).
 */
import { Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeTo, startReceiver, transferTo, type Receiver } from '../helpers/webhooks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';

const TOKEN = 'metrics-token-0123456789abcdef0123456789';

let h: Harness;
let t: Tenant;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHarness({ METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
  t = await h.createTenant();
  expect((await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: receiver.url } })).status).toBe(200);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** The value of the sample `name{labels…}` in a Prometheus text page (labels matched as a subset). */
function sample(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics on the public port', () => {
  it('is refused without the bearer token, in the envelope', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
      const refused = await h.request('GET', '/metrics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ success: false, code: 'INVALID_TOKEN', data: null });
      expect(refused.text).not.toContain('kolo_');
    }
  });

  it('serves Kolo’s metrics in Prometheus text format with the token', async () => {
    await chargeTo(h, t, 'SUCCESS');
    await chargeTo(h, t, 'FAILED');
    await transferTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    await h.request('GET', '/api/v1/pay-in/check_status/PI-000000000000', { key: t.key });
    await h.request('GET', '/api/v1/pay-in/check_status/PI-000000000001', { key: `sk_test_${'0'.repeat(128)}` });
    await h.request('GET', '/api/v1/no-such-route/secret-path', { key: t.key });
    await h.request('HEAD', '/api/v1/webhook', { key: t.key });
    const response = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const page = response.text;
    expect(page).toContain('# TYPE kolo_http_requests_total counter');
    // HTTP by route pattern (never the raw URL), method and status, with a latency histogram.
    expect(sample(page, 'kolo_http_requests_total', { route: '/api/v1/pay-in/charge', method: 'POST', status: '201' })).toBe(2);
    expect(sample(page, 'kolo_http_requests_total', { route: '/api/v1/pay-in/check_status/:reference', status: '404' })).toBe(1);
    expect(page).not.toContain('PI-000000000000');
    // Each answer counted once, under its route's pattern: a refused key too; a URL no route
    // matches under "unknown" (never the URL itself); a HEAD under its GET route's pattern.
    expect(sample(page, 'kolo_http_requests_total', { route: '/api/v1/pay-in/check_status/:reference', status: '401' })).toBe(1);
    expect(sample(page, 'kolo_http_requests_total', { route: 'unknown', method: 'GET', status: '404' })).toBe(1);
    expect(page).not.toContain('secret-path');
    expect(sample(page, 'kolo_http_requests_total', { route: '/api/v1/webhook', method: 'HEAD', status: '200' })).toBe(1);
    expect(sample(page, 'kolo_http_request_duration_seconds_count', { route: 'unknown', method: 'GET', status: '404' })).toBe(1);
    expect(sample(page, 'kolo_http_request_duration_seconds_count', { route: '/api/v1/pay-in/charge' })).toBe(2);
    // The next scrape reads the same counts, not twice them, and the first scrape's own answer.
    const again = (await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text;
    expect(sample(again, 'kolo_http_requests_total', { route: '/api/v1/pay-in/charge', method: 'POST', status: '201' })).toBe(2);
    expect(sample(again, 'kolo_http_requests_total', { route: '/api/v1/pay-in/check_status/:reference', status: '404' })).toBe(1);
    expect(sample(again, 'kolo_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBe(1);
    // Transactions created and finished by rail, direction, environment and final status.
    expect(sample(page, 'kolo_transactions_created_total', { rail: 'MTN_MOMO_CM', direction: 'PAY_IN', environment: 'TEST' })).toBe(2);
    expect(sample(page, 'kolo_transactions_finished_total', { rail: 'MTN_MOMO_CM', direction: 'PAY_IN', status: 'SUCCESS' })).toBe(1);
    expect(sample(page, 'kolo_transactions_finished_total', { rail: 'MTN_MOMO_CM', direction: 'PAY_IN', status: 'FAILED' })).toBe(1);
    expect(sample(page, 'kolo_transactions_finished_total', { direction: 'PAY_OUT', status: 'SUCCESS' })).toBe(1);
    // Poller, webhooks, connectors.
    expect(sample(page, 'kolo_poller_batch_size_count', { kind: 'transactions' })).toBeGreaterThanOrEqual(3);
    expect(sample(page, 'kolo_poller_lag_seconds')).toBe(0);
    expect(sample(page, 'kolo_webhook_attempts_total', { outcome: 'delivered' })).toBe(3);
    expect(sample(page, 'kolo_webhook_queue_depth', { state: 'due' })).toBe(0);
    expect(sample(page, 'kolo_connector_calls_total', { operator: 'SANDBOX', call: 'initiate', outcome: 'ACCEPTED' })).toBe(3);
    expect(sample(page, 'kolo_connector_calls_total', { operator: 'SANDBOX', call: 'status', outcome: 'SUCCEEDED' })).toBe(2);
    expect(sample(page, 'kolo_connector_call_duration_seconds_count', { operator: 'SANDBOX', call: 'status' })).toBeGreaterThanOrEqual(3);
  });

  it('reports poller lag and a webhook queue that nobody works on', async () => {
    receiver.fallback = { status: 503 };
    await chargeTo(h, t, 'SUCCESS');
    // A PENDING charge whose poll is 90 s overdue, and a delivery due now.
    await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000199' } });
    h.clock.advance(120_000);
    const page = (await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text;
    expect(sample(page, 'kolo_poller_lag_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(page, 'kolo_webhook_queue_depth', { state: 'due' })).toBe(1);
    receiver.fallback = { status: 200 };
  });

  it('does not exist on the public port without METRICS_TOKEN', async () => {
    const open = await startHarness();
    try {
      const response = await open.request('GET', '/metrics');
      expect(response.status).toBe(404);
      expect(response.json.code).toBe('RESOURCE_NOT_FOUND');
    } finally {
      await open.close();
    }
  });
});

describe('the HTTP duration histogram', () => {
  it('exposes exactly what prom-client’s own histogram gives for the same durations', async () => {
    const durations = [0.0001, 0.004, 0.005, 0.0051, 0.02, 0.3, 0.3, 2, 9.99, 31, 120];
    const record = h.services.metrics.httpRecorder('/compare/:id');
    for (const seconds of durations) record('GET', 200, seconds);
    record('POST', 409, 0.07);
    const ours = (await h.services.metrics.registry.getSingleMetricAsString('kolo_http_request_duration_seconds'))
      .split('\n')
      .filter((line) => line.includes('route="/compare/:id"'));
    // The bounds as exposed, then the same observations through a plain prom-client Histogram.
    const bounds = [...new Set(ours.map((line) => /le="([^"]+)"/.exec(line)?.[1]).filter((le) => le && le !== '+Inf'))].map(Number);
    expect(bounds.length).toBeGreaterThan(5);
    const registry = new Registry();
    const reference = new Histogram({ name: 'kolo_http_request_duration_seconds', help: 'x', labelNames: ['route', 'method', 'status'], buckets: bounds, registers: [registry] });
    for (const seconds of durations) reference.observe({ route: '/compare/:id', method: 'GET', status: '200' }, seconds);
    reference.observe({ route: '/compare/:id', method: 'POST', status: '409' }, 0.07);
    const theirs = (await registry.getSingleMetricAsString('kolo_http_request_duration_seconds')).split('\n').filter((line) => line.includes('route="/compare/:id"'));
    // Label order aside (prom-client puts `le` first), line for line the same samples.
    const normalized = (line: string) => {
      const [, name, labels, value] = /^(\w+)\{(.*)\} (.+)$/.exec(line)!;
      return `${name}{${labels!.split(',').sort().join(',')}} ${value}`;
    };
    expect(ours.map(normalized).sort()).toEqual(theirs.map(normalized).sort());
    expect(ours.length).toBe(2 * (bounds.length + 3));
  });
});
