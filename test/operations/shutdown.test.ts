/**
 * With a real `kolo serve` process: the metrics-only listener of METRICS_PORT (and no /metrics on
 * the public port), and a graceful stop on SIGTERM with requests in flight: none fails, the webhook
 * worker finishes what it is sending and gives back what it had claimed but not started, the
 * process exits 0 within SHUTDOWN_TIMEOUT_MS, and after a restart every webhook arrives without
 * waiting for a lease to run out.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, freshCliDatabase, runKolo, startServe, type CliDatabase } from '../helpers/cli.ts';

let db: CliDatabase;
beforeAll(async () => {
  db = await freshCliDatabase();
});
afterAll(async () => db?.cleanup());

/** A webhook receiver that answers 200 after `delayMs`; records what it received. */
async function slowReceiver(delayMs: { value: number }) {
  const received: { event: string; id: string }[] = [];
  let inFlight = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      inFlight += 1;
      const parsed = JSON.parse(body) as { event: string };
      received.push({ event: parsed.event, id: String(request.headers['webhook-id']) });
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(200).end('ok');
      }, delayMs.value);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    inFlight: () => inFlight,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const until = async (check: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('kolo serve', () => {
  it('serves metrics on METRICS_PORT only, and stops gracefully on SIGTERM with requests in flight', async () => {
    const delay = { value: 1500 };
    const receiver = await slowReceiver(delay);
    const metricsPort = await freePort();
    const env = {
      ...db.env,
      DEMO_SEED: 'true',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      POLLER_ENABLED: 'true',
      POLLER_INTERVAL_MS: '100',
      WEBHOOK_WORKER_INTERVAL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '120000',
      SANDBOX_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '10000',
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
    };
    const first = await startServe(env);
    let key = '';
    const charges: string[] = [];
    try {
      const output = await first.waitFor(/sk_test_[0-9a-f]{128}/);
      key = output.match(/sk_test_[0-9a-f]{128}/)![0];
      await first.waitUntilHealthy();
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`${first.baseUrl}${path}`, {
          method,
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });

      // Metrics: on their own port, never on the public one.
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      const page = await metrics.text();
      expect(page).toContain('kolo_process_cpu_seconds_total');
      expect(page).toContain('kolo_http_requests_total');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
      expect((await fetch(`${first.baseUrl}/metrics`)).status).toBe(404);

      expect((await api('PATCH', '/api/v1/webhook', { webhookUrl: receiver.url })).status).toBe(200);
      for (let i = 0; i < 10; i += 1) {
        const created = await api('POST', '/api/v1/pay-in/charge', { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' });
        expect(created.status).toBe(201);
        charges.push(((await created.json()) as { data: { reference: string } }).data.reference);
      }
      // The worker is sending the first payment webhooks (8 at a time, 1.5 s each).
      await until(() => receiver.received.some((r) => r.event === 'payment.success'), 15_000, 'the first payment webhook');
      // Requests in flight: test webhooks that the slow receiver holds for 1.5 s.
      const tests = Array.from({ length: 12 }, () => api('POST', '/api/v1/webhook/test', { data: { n: 1 } }));
      await until(() => receiver.received.filter((r) => r.event === 'webhook.test').length === 12, 10_000, 'the test webhooks in flight');
      const stoppedAt = Date.now();
      const code = await first.stop();
      const stopMs = Date.now() - stoppedAt;
      const answers = await Promise.all(tests);
      // None failed: every request in flight was finished before the process exited.
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { data: { delivered: boolean } }).data.delivered).toBe(true);
      }
      expect(code, first.output().slice(-3000)).toBe(0);
      expect(stopMs).toBeLessThan(10_000);
      expect(first.output()).not.toMatch(/graceful stop timed out/);
    } finally {
      await first.stop();
    }

    // Restart: every payment webhook arrives, well before the 120 s lease of a claim that
    // would not have been given back.
    delay.value = 0;
    const second = await startServe(env);
    try {
      await second.waitUntilHealthy();
      await until(() => new Set(receiver.received.filter((r) => r.event === 'payment.success').map((r) => r.id)).size === charges.length, 30_000, 'every payment webhook');
      for (const reference of charges) {
        const status = await fetch(`${second.baseUrl}/api/v1/pay-in/check_status/${reference}`, { headers: { 'x-api-key': key } });
        expect(((await status.json()) as { data: { status: string } }).data.status).toBe('SUCCESS');
      }
    } finally {
      expect(await second.stop()).toBe(0);
      await receiver.close();
    }
    // Money across the stop and the restart: the ledger verifies.
    const verified = await runKolo(['ledger', 'verify', '--json'], env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const duplicates = receiver.received.filter((r) => r.event === 'payment.success').length - charges.length;
    console.info(`graceful stop: ${charges.length} payment webhooks, ${duplicates} sent twice`);
  }, 180_000);
});
