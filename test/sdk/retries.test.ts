/**
 * Safe retries through a real faulty proxy in front of a real Kolo: a create whose answer is lost
 * (connection cut after Kolo carried it out, a 503 from the proxy, an answer too slow) is sent
 * again with the same idempotency key, and exactly one transaction exists; what must not be
 * retried (4xx, a call Kolo takes no key for) is sent once. The retry rule itself is checked as
 * the pure function it is.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF,
  Kolo,
  KoloApiError,
  KoloConnectionError,
  KoloRateLimitError,
  KoloValidationError,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  retryDelayMs,
  shouldRetry,
} from '../../packages/sdk/src/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { countTransactions, transactionRow } from '../helpers/merchant-api.ts';
import { settle, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';

let h: Harness;
let t: Tenant;
let proxy: FaultProxy;
let kolo: Kolo;
let receiver: Receiver;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const charge = { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' };
const transfer = { amount: 2000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa Mbarga' };

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  proxy = await startFaultProxy(h.baseUrl);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await proxy.close();
  await h.close();
});
beforeEach(async () => {
  t = await h.createTenant();
  // Backoff of a millisecond: the rule is the same, the test does not wait.
  kolo = new Kolo({ apiKey: t.key, baseUrl: proxy.url, maxRetries: 2, initialRetryDelayMs: 1, maxRetryDelayMs: 2, timeoutMs: 5_000 });
  proxy.faults.length = 0;
  proxy.seen.length = 0;
});

/** The idempotency keys the proxy saw, one per attempt. */
const keysSeen = () => proxy.seen.map((s) => s.idempotencyKey);

describe('creates are retried with the same idempotency key', () => {
  it('a charge whose connection is cut after Kolo created it: retried, one transaction', async () => {
    proxy.faults.push('drop-after-forward');
    const created = await kolo.charges.create(charge);
    const keys = keysSeen();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toBe(keys[0]);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    expect((await transactionRow(h, created.reference)).applicationId).toBe(t.applicationId);
  });

  it('a transfer answered 503 by the proxy after Kolo created it: retried, one transaction', async () => {
    proxy.faults.push('503-after-forward');
    const created = await kolo.transfers.create(transfer);
    expect(new Set(keysSeen()).size).toBe(1);
    expect(keysSeen()).toHaveLength(2);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    expect(created.status).toBe('PENDING');
  });

  it('a checkout whose answer comes after the timeout: retried with the same key, one transaction', async () => {
    // The first answer is held until the client gives up and sends again; a loaded machine may
    // make a retry time out too, hence a spare retry and "at least two attempts".
    const impatient = new Kolo({ apiKey: t.key, baseUrl: proxy.url, maxRetries: 3, initialRetryDelayMs: 1, maxRetryDelayMs: 2, timeoutMs: 1_000 });
    proxy.faults.push('hold-until-next');
    const created = await impatient.checkouts.create({ amount: 2500, currency: 'XAF' });
    expect(keysSeen().length).toBeGreaterThanOrEqual(2);
    expect(new Set(keysSeen()).size).toBe(1);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    expect((await transactionRow(h, created.reference)).applicationId).toBe(t.applicationId);
  });

  it("a refund retried twice keeps the caller's key", async () => {
    const paid = await new Kolo({ apiKey: t.key, baseUrl: h.baseUrl }).charges.create(charge);
    await settle(h);
    proxy.seen.length = 0;
    proxy.faults.push('drop-before-forward', 'drop-after-forward');
    const refund = await kolo.refunds.create({ reference: paid.reference, amount: 1000 }, { idempotencyKey: 'remboursement-1' });
    expect(keysSeen()).toEqual(['remboursement-1', 'remboursement-1', 'remboursement-1']);
    expect(await countTransactions(h, t.applicationId)).toBe(2);
    expect(refund.paymentReference).toBe(paid.reference);
  });

  it('gives up after maxRetries with a KoloConnectionError carrying the key; a later retry with it creates nothing new', async () => {
    proxy.faults.push('drop-after-forward', 'drop-after-forward', 'drop-after-forward');
    const error = await kolo.charges.create(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloConnectionError);
    const key = (error as KoloConnectionError).idempotencyKey!;
    expect(keysSeen()).toEqual([key, key, key]);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    const retried = await kolo.charges.create(charge, { idempotencyKey: key });
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    expect(retried.status).toBe('PENDING');
  });
});

describe('reads and 429', () => {
  it('a status read cut once is retried', async () => {
    const created = await new Kolo({ apiKey: t.key, baseUrl: h.baseUrl }).charges.create(charge);
    proxy.faults.push('drop-before-forward');
    expect((await kolo.payIns.retrieve(created.reference)).reference).toBe(created.reference);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen.every((s) => s.idempotencyKey === undefined)).toBe(true);
  });

  it('a 429 with a short Retry-After is retried; one longer than a minute is thrown', async () => {
    proxy.faults.push({ status: 429, retryAfterSeconds: 0 });
    await kolo.charges.create(charge);
    expect(proxy.seen).toHaveLength(2);
    proxy.seen.length = 0;
    proxy.faults.push({ status: 429, retryAfterSeconds: 120 });
    const error = await kolo.charges.create(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloRateLimitError);
    expect(error).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429, retryAfterMs: 120_000 });
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('never retried', () => {
  it('a 4xx is sent once', async () => {
    const error = await kolo.charges.create({ ...charge, amount: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloValidationError);
    expect(proxy.seen).toHaveLength(1);
  });

  it('the webhook test (no idempotency key in Kolo) is not sent again after a 503', async () => {
    await new Kolo({ apiKey: t.key, baseUrl: h.baseUrl }).webhookEndpoint.update({ webhookUrl: receiver.url });
    const before = receiver.received.length;
    proxy.faults.push('503-after-forward');
    const error = await kolo.webhookEndpoint.sendTest().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloApiError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 503 });
    expect(proxy.seen).toHaveLength(1);
    expect(receiver.received.length - before).toBe(1);
  });

  it('maxRetries 0 sends once', async () => {
    const once = new Kolo({ apiKey: t.key, baseUrl: proxy.url, maxRetries: 0 });
    proxy.faults.push('drop-before-forward');
    await expect(once.charges.create(charge)).rejects.toBeInstanceOf(KoloConnectionError);
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('shouldRetry and the backoff (pure)', () => {
  const base = { retriesDone: 0, maxRetries: 2, isIdempotent: true } as const;
  const response = (status: number, retryAfterMs: number | null = null) => ({ kind: 'response' as const, status, retryAfterMs });

  it('retries network errors, timeouts, 5xx and 429 of idempotent requests only, within maxRetries', () => {
    expect(shouldRetry({ ...base, outcome: { kind: 'network' } })).toBe(true);
    expect(shouldRetry({ ...base, outcome: { kind: 'timeout' } })).toBe(true);
    expect(shouldRetry({ ...base, outcome: response(500) })).toBe(true);
    expect(shouldRetry({ ...base, outcome: response(503) })).toBe(true);
    expect(shouldRetry({ ...base, outcome: response(429) })).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 410, 413, 499]) expect(shouldRetry({ ...base, outcome: response(status) })).toBe(false);
    expect(shouldRetry({ ...base, isIdempotent: false, outcome: { kind: 'network' } })).toBe(false);
    expect(shouldRetry({ ...base, retriesDone: 1, outcome: { kind: 'network' } })).toBe(true);
    expect(shouldRetry({ ...base, retriesDone: 2, outcome: { kind: 'network' } })).toBe(false);
  });

  it('waits for a Retry-After up to one minute, not beyond', () => {
    expect(shouldRetry({ ...base, outcome: response(429, MAX_RETRY_AFTER_MS) })).toBe(true);
    expect(shouldRetry({ ...base, outcome: response(429, MAX_RETRY_AFTER_MS + 1) })).toBe(false);
    expect(retryDelayMs(0, 30_000, DEFAULT_BACKOFF, () => 0)).toBe(30_000);
  });

  it('doubles from the initial delay up to the cap, jittered within [0.5, 1)', () => {
    const backoff = { initialDelayMs: 500, maxDelayMs: 8_000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, backoff, () => 0.999_999))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, backoff, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-20T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
