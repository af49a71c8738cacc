/**
 * Webhook delivery: the published retry schedule driven by the manual clock through to FAILED
 * and replay, Retry-After, 410, the attempt log, redirects, two workers sharing the work, and a
 * worker crash between claim and send recovered after the lease.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { chargeTo, startReceiver, type Receiver } from './helpers/webhooks.ts';
import { claimDueDeliveries, deliverOnce, startWebhookWorker } from '../src/jobs/webhook-worker.ts';
import { webhookAttempts, webhookDeliveries } from '../src/db/schema-webhooks.ts';
import { applications } from '../src/db/schema.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/webhooks/retry-schedule.ts';
import { replayDelivery } from '../src/webhooks/webhook-deliveries.ts';
import { openRuntime } from '../src/bootstrap.ts';
import { pollOnce } from '../src/jobs/status-poller.ts';
import type { Services } from '../src/services.ts';

let h: Harness;
let t: Tenant;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_BATCH_SIZE: '5' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
beforeEach(async () => {
  receiver.received.length = 0;
  receiver.answers.length = 0;
  receiver.fallback = { status: 200, body: 'ok' };
  // Retries left over by the previous test must not be sent during this one.
  await h.services.db.update(webhookDeliveries).set({ status: 'FAILED', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'PENDING'));
  // A fresh application per test, so deliveries of one test never leak into the next.
  t = await h.createTenant({ application: { webhookUrl: receiver.url } });
});

async function deliveriesOf(applicationId: string) {
  return h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.applicationId, applicationId));
}
async function attemptsOf(deliveryId: string) {
  return h.services.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.id));
}
/**
 * A local receiver answering as `handler` does, set as the test tenant's webhook URL; `close`
 * drops its connections and stops it.
 */
async function receiverOfTenant(handler: http.RequestListener): Promise<{ close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/kolo`;
  await h.services.db.update(applications).set({ webhookUrl: url }).where(eq(applications.id, t.applicationId));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
// The jitter lengthens a delay by at most 20 %.
const afterDelay = (ms: number) => h.clock.advance(Math.ceil(ms * 1.2) + 1);

describe('retries', () => {
  it('retries on the published schedule through to FAILED, logs every attempt, then a replay delivers', async () => {
    receiver.fallback = { status: 500, body: 'x'.repeat(5000) };
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    expect(receiver.received).toHaveLength(1);
    for (let i = 0; i < RETRY_DELAYS_MS.length; i++) {
      const delay = RETRY_DELAYS_MS[i]!;
      // Not before the delay has passed…
      h.clock.advance(delay - 1);
      expect((await deliverOnce(h.services)).claimed).toBe(0);
      // …and once it has (plus jitter).
      afterDelay(1);
      h.clock.advance(Math.ceil(delay * 0.2));
      expect((await deliverOnce(h.services)).claimed).toBe(1);
      expect(receiver.received).toHaveLength(i + 2);
    }
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: MAX_ATTEMPTS, httpStatus: 500, nextAttemptAt: null, lastError: 'HTTP 500' });
    h.clock.advance(48 * 3_600_000);
    expect((await deliverOnce(h.services)).claimed).toBe(0);
    const attempts = await attemptsOf(delivery!.id);
    expect(attempts).toHaveLength(MAX_ATTEMPTS);
    expect(attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const a of attempts) {
      expect(a).toMatchObject({ httpStatus: 500, url: receiver.url, error: 'HTTP 500' });
      expect(a.responseBody).toHaveLength(1024);
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
    }
    // Every retry carries the same event id, so receivers can deduplicate.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);

    receiver.fallback = { status: 204 };
    const replayed = await replayDelivery(h.services, t.applicationId, delivery!.id);
    expect(replayed.status).toBe('PENDING');
    await deliverOnce(h.services);
    const [after] = await deliveriesOf(t.applicationId);
    expect(after).toMatchObject({ status: 'DELIVERED', attemptCount: MAX_ATTEMPTS + 1, httpStatus: 204, lastError: null });
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS + 1);
    expect(receiver.received.at(-1)!.body).toBe(receiver.received[0]!.body);
  });

  it('honours Retry-After when it asks for longer than the schedule', async () => {
    receiver.answers.push({ status: 503, headers: { 'retry-after': '3600' } });
    await chargeTo(h, t, 'SUCCESS');
    const start = h.clock.now().getTime();
    await deliverOnce(h.services);
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery!.status).toBe('PENDING');
    expect(delivery!.nextAttemptAt!.getTime() - start).toBeGreaterThanOrEqual(3_600_000);
    h.clock.advance(60_000);
    expect((await deliverOnce(h.services)).claimed).toBe(0);
    h.clock.advance(3_600_000);
    await deliverOnce(h.services);
    expect((await deliveriesOf(t.applicationId))[0]!.status).toBe('DELIVERED');
    expect(receiver.received).toHaveLength(2);
  });

  it('stops at once on 410 Gone', async () => {
    receiver.fallback = { status: 410, body: 'gone' };
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 1, httpStatus: 410 });
    h.clock.advance(24 * 3_600_000);
    await deliverOnce(h.services);
    expect(receiver.received).toHaveLength(1);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    receiver.answers.push({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery).toMatchObject({ status: 'PENDING', httpStatus: 302, lastError: 'HTTP 302' });
  });

  it('records an unreachable receiver as an error and retries', async () => {
    const closed = await startReceiver();
    await closed.close();
    // Point the application at a port nobody listens on.
    await h.services.db.update(applications).set({ webhookUrl: `http://127.0.0.1:${closed.port}/` }).where(eq(applications.id, t.applicationId));
    await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery!.status).toBe('PENDING');
    expect(delivery!.httpStatus).toBeNull();
    expect(delivery!.lastError).toMatch(/ECONNREFUSED/);
    const [attempt] = await attemptsOf(delivery!.id);
    expect(attempt).toMatchObject({ httpStatus: null, responseBody: null });
  });
  it('gives up on an attempt that gets no answer within the timeout, and retries later', async () => {
    // A receiver that accepts the connection and never answers.
    const hanging = await receiverOfTenant(() => {});
    const configured = h.services.config.webhookTimeoutMs;
    h.services.config.webhookTimeoutMs = 300;
    try {
      await chargeTo(h, t, 'SUCCESS');
      await deliverOnce(h.services);
    } finally {
      h.services.config.webhookTimeoutMs = configured;
      await hanging.close();
    }
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery).toMatchObject({ status: 'PENDING', httpStatus: null, lastError: 'pas de réponse en 300 ms', attemptCount: 1 });
  });
});

/** `count` charges of the test's tenant (amounts from `firstAmount` up), settled by the poller: one webhook delivery each. */
async function settledCharges(count: number, firstAmount: number) {
  for (let i = 0; i < count; i++) {
    await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      body: { amount: firstAmount + i, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
    });
  }
  h.clock.advance(h.config.sandboxDelayMs + 1000);
  await pollOnce(h.services);
}

describe('workers', () => {
  it('two workers share the work: each event is sent exactly once per attempt', async () => {
    const count = 12;
    await settledCharges(count, 1000);
    // A second instance: its own connection pool on PostgreSQL; on PGlite the same (single) connection.
    let second: Services = h.services;
    let closeSecond = async () => {};
    if (h.config.databaseUrl) {
      const runtime = await openRuntime(h.config, { clock: h.clock, log: pino({ level: 'silent' }) });
      second = runtime.services;
      closeSecond = () => runtime.close();
    }
    try {
      let claimed = 0;
      for (let round = 0; round < 10 && claimed < count; round++) {
        const [a, b] = await Promise.all([deliverOnce(h.services), deliverOnce(second)]);
        claimed += a.claimed + b.claimed;
      }
      expect(claimed).toBe(count);
    } finally {
      await closeSecond();
    }
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    const deliveries = await deliveriesOf(t.applicationId);
    expect(deliveries.every((d) => d.status === 'DELIVERED' && d.attemptCount === 1)).toBe(true);
  });

  it('a tick claims at most its batch (5 here), says more is due while batches come back full, and delivers all', async () => {
    await settledCharges(12, 2000);
    const ticks = [];
    for (let i = 0; i < 3; i++) {
      const tick = await deliverOnce(h.services);
      ticks.push({ claimed: tick.claimed, more: tick.more, delivered: tick.outcomes.filter((o) => o.step === 'DELIVERED' && o.recorded).length });
    }
    expect(ticks).toEqual([
      { claimed: 5, more: true, delivered: 5 },
      { claimed: 5, more: true, delivered: 5 },
      { claimed: 2, more: false, delivered: 2 },
    ]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(12);
  });

  it('keeps two batches in flight: a receiver slow to answer one batch does not hold back the next', async () => {
    // A receiver that answers nothing until told to: with one batch at a time, the worker would
    // wait for the first batch's 5 answers before claiming the next 5.
    const held: http.ServerResponse[] = [];
    const slow = await receiverOfTenant((req, res) => {
      req.resume();
      req.on('end', () => held.push(res));
    });
    await settledCharges(10, 3000);
    const worker = startWebhookWorker(h.services);
    try {
      for (let waited = 0; held.length < 10 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(held).toHaveLength(10);
    } finally {
      for (const res of held) res.end('ok');
      await worker.stop();
      await slow.close();
    }
    const deliveries = await deliveriesOf(t.applicationId);
    expect(deliveries).toHaveLength(10);
    expect(deliveries.every((d) => d.status === 'DELIVERED' && d.attemptCount === 1)).toBe(true);
  });

  it('recovers a delivery whose worker died between claim and send, once the lease has passed', async () => {
    await chargeTo(h, t, 'SUCCESS');
    // A worker claims, then "crashes" without sending or recording.
    const claimed = await claimDueDeliveries(h.services, 10);
    expect(claimed).toHaveLength(1);
    expect((await deliverOnce(h.services)).claimed).toBe(0);
    h.clock.advance(h.config.webhookLeaseMs - 1000);
    expect((await deliverOnce(h.services)).claimed).toBe(0);
    h.clock.advance(2000);
    expect((await deliverOnce(h.services)).claimed).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await deliveriesOf(t.applicationId);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attemptCount: 1 });
    // The dead worker's late result cannot be recorded over the new one: its lease token is stale.
    const stale = await h.services.db
      .update(webhookDeliveries)
      .set({ status: 'FAILED' })
      .where(eq(webhookDeliveries.leaseToken, claimed[0]!.leaseToken!))
      .returning();
    expect(stale).toHaveLength(0);
  });
});
