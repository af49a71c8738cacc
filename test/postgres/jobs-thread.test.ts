/**
 * Issue 14: on PostgreSQL, `kolo serve` runs the poller, the webhook worker and the retention job
 * in a worker thread of their own (src/jobs/background-jobs.ts). Seen from outside, nothing
 * changes: a charge settles, its webhook arrives signed with the application's secret (the thread
 * decrypts it with the key the serving thread generated for `memory://`, never written
 * anywhere), `/metrics` shows the thread's work next to the serving thread's (gauges once), and
 * SIGTERM stops both threads cleanly. PostgreSQL only (this directory runs when
 * TEST_DATABASE_URL is set, as in CI).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freshPostgresDatabase } from '../harness.ts';
import { startServe, type ServeProcess } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

const METRICS_TOKEN = randomBytes(24).toString('hex');

const databases: { url: string; drop: () => Promise<void> }[] = [];
let receiver: Receiver;

/** A fresh PostgreSQL database (each test its own: a `memory://` instance's generated secrets are its own). */
async function freshDatabase(): Promise<string> {
  const database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, 'kolo_jobs_thread');
  databases.push(database);
  return database.url;
}

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  for (const database of databases) await database.drop();
});

/** The samples of `name` on a Prometheus page whose labels include `labels`. */
function samples(page: string, name: string, labels: Record<string, string> = {}): number[] {
  return page
    .split('\n')
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('background jobs in their own thread (PostgreSQL)', () => {
  it('settle a charge, deliver its signed webhook, report their metrics on /metrics, and stop on SIGTERM', async () => {
    const serve: ServeProcess = await startServe({
      DATABASE_URL: await freshDatabase(),
      DATA_DIR: 'memory://',
      DEMO_SEED: 'true',
      POLLER_ENABLED: 'true',
      POLLER_INTERVAL_MS: '200',
      WEBHOOK_WORKER_INTERVAL_MS: '200',
      SANDBOX_DELAY_MS: '200',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      METRICS_TOKEN,
      LOG_LEVEL: 'info',
    });
    let stopped = false;
    try {
      const output = await serve.waitFor(/sk_test_[0-9a-f]{128}[\s\S]*whsec_[0-9a-f]{64}/);
      const key = output.match(/sk_test_[0-9a-f]{128}/)![0];
      const secret = output.match(/whsec_[0-9a-f]{64}/)![0];
      await serve.waitFor(/background jobs running in their own thread/);
      const headers = { 'content-type': 'application/json', 'x-api-key': key };
      const set = await fetch(`${serve.baseUrl}/api/v1/webhook`, { method: 'PATCH', headers, body: JSON.stringify({ webhookUrl: receiver.url }) });
      expect(set.status).toBe(200);

      const charged = await fetch(`${serve.baseUrl}/api/v1/pay-in/charge`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000321', merchantReference: 'jobs-thread-1' }),
      });
      expect(charged.status).toBe(201);
      const reference = ((await charged.json()) as { data: { reference: string; status: string } }).data.reference;

      // Settled by the poller, and its webhook sent by the worker, both in the jobs thread.
      const delivered = await until(
        () => receiver.received.find((r) => r.body.includes(reference) && r.body.includes('payment.success')),
        'the payment.success webhook',
      );
      expect(() => new Webhook(secret).verify(delivered.body, delivered.headers)).not.toThrow();
      const status = await fetch(`${serve.baseUrl}/api/v1/pay-in/check_status/${reference}`, { headers: { 'x-api-key': key } });
      expect(((await status.json()) as { data: { status: string } }).data.status).toBe('SUCCESS');

      // One page: the serving thread's counters and the jobs thread's, each gauge once.
      const page = await until(async () => {
        const text = await fetch(`${serve.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text());
        return samples(text, 'kolo_webhook_attempts_total', { outcome: 'delivered' })[0] ? text : undefined;
      }, 'the delivered attempt on /metrics');
      expect(samples(page, 'kolo_transactions_created_total', { rail: 'MTN_MOMO_CM' })).toEqual([1]);
      expect(samples(page, 'kolo_transactions_finished_total', { rail: 'MTN_MOMO_CM', status: 'SUCCESS' })).toEqual([1]);
      expect(samples(page, 'kolo_connector_calls_total', { call: 'initiate' })).toEqual([1]);
      expect(samples(page, 'kolo_connector_calls_total', { call: 'status', outcome: 'SUCCEEDED' })).toEqual([1]);
      expect(samples(page, 'kolo_poller_batch_size_count', { kind: 'transactions' })[0]).toBeGreaterThan(0);
      expect(samples(page, 'kolo_webhook_queue_depth', { state: 'due' })).toEqual([0]);
      expect(samples(page, 'kolo_poller_lag_seconds')).toHaveLength(1);
      expect(samples(page, 'kolo_process_resident_memory_bytes')).toHaveLength(1);
      expect(page.match(/^# TYPE kolo_webhook_attempts_total counter$/gm)).toHaveLength(1);

      stopped = true;
      expect(await serve.stop()).toBe(0);
      // Both threads said they stopped their loops: the jobs thread's line carries `thread`.
      expect(serve.output()).toMatch(/"thread":"jobs"[^\n]*"msg":"background loops stopped"/);
      expect(serve.output()).not.toMatch(/"level":(50|60)/);
    } finally {
      if (!stopped) await serve.stop();
    }
  }, 120_000);

  it('run in the serving thread with JOBS_THREAD=false, and still settle charges', async () => {
    const serve = await startServe({
      DATABASE_URL: await freshDatabase(),
      DATA_DIR: 'memory://',
      DEMO_SEED: 'true',
      JOBS_THREAD: 'false',
      POLLER_ENABLED: 'true',
      POLLER_INTERVAL_MS: '200',
      SANDBOX_DELAY_MS: '200',
      LOG_LEVEL: 'info',
    });
    try {
      const key = (await serve.waitFor(/sk_test_[0-9a-f]{128}/)).match(/sk_test_[0-9a-f]{128}/)![0];
      const charged = await fetch(`${serve.baseUrl}/api/v1/pay-in/charge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000321', merchantReference: 'jobs-in-process-1' }),
      });
      expect(charged.status).toBe(201);
      const reference = ((await charged.json()) as { data: { reference: string } }).data.reference;
      await until(async () => {
        const status = await fetch(`${serve.baseUrl}/api/v1/pay-in/check_status/${reference}`, { headers: { 'x-api-key': key } });
        return ((await status.json()) as { data: { status: string } }).data.status === 'SUCCESS' ? true : undefined;
      }, 'the charge settled in process');
      expect(serve.output()).not.toContain('own thread');
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  }, 120_000);
});
