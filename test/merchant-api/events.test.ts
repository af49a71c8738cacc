/**
 * The events API through real HTTP, the real database and the sandbox rail: an application with
 * no webhook URL still has its events, in order, with the bodies a webhook carries (compared with
 * a webhook actually delivered to a local receiver); cursor paging; the key's application and
 * environment; retention; bad parameters.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../src/accounts/api-keys.ts';
import { webhookDeliveries } from '../../src/db/schema-webhooks.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { purgeOnce } from '../../src/jobs/retention.ts';
import { insertEventWithDelivery } from '../../src/webhooks/webhook-events.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectError, expectSuccess, PATHS } from '../helpers/merchant-api.ts';
import { chargeTo, startReceiver, transferTo, type Receiver } from '../helpers/webhooks.ts';
import { transaction } from '../../src/db/client.ts';

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

const events = async (key: string, query = '') => expectSuccess(await h.request('GET', `/api/v1/events${query}`, { key }), 200);

/** What a webhook of `reference` carries as `data`: the status read plus `merchantReference`. */
async function webhookData(key: string, reference: string, merchantReference: string | null) {
  const path = reference.startsWith('PO-') ? PATHS.payOutStatus(reference) : PATHS.payInStatus(reference);
  return { ...expectSuccess(await h.request('GET', path, { key }), 200), merchantReference };
}

describe('an application with no webhook URL', () => {
  let t: Tenant;
  let paid: string;
  let failed: string;
  beforeAll(async () => {
    t = await h.createTenant();
    paid = await chargeTo(h, t, 'SUCCESS', 'CMD-9');
    failed = await transferTo(h, t, 'FAILED');
  });

  it('lists payment.success then payout.failed, each payload the webhook body, and no delivery was written', async () => {
    const data = await events(t.key);
    expect(data.hasMore).toBe(false);
    expect(data.events.map((e: any) => e.event)).toEqual(['payment.success', 'payout.failed']);
    expect(data.nextCursor).toBe(data.events[1].cursor);
    const [success, failure] = data.events;
    for (const e of data.events) {
      expect(Object.keys(e)).toEqual(['cursor', 'id', 'event', 'createdAt', 'payload']);
      expect(e.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(Object.keys(e.payload)).toEqual(['event', 'timestamp', 'applicationId', 'data', 'id']);
      expect(e.payload).toMatchObject({ event: e.event, applicationId: t.applicationId, id: e.id });
      expect(Number.isInteger(e.payload.timestamp)).toBe(true);
      const deliveries = await h.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, e.id));
      expect(deliveries).toEqual([]);
    }
    expect(success.payload.data).toEqual(await webhookData(t.key, paid, 'CMD-9'));
    expect(failure.payload.data).toEqual(await webhookData(t.key, failed, null));
    expect(failure.payload.data).toMatchObject({ reference: failed, status: 'FAILED' });
  });

  it('walks the events with limit=1, no gap and no repeat; the cursor then waits for the next one', async () => {
    const all = (await events(t.key)).events.map((e: any) => e.id);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const data: any = await events(t.key, `?limit=1${after ? `&after=${after}` : ''}`);
      seen.push(...data.events.map((e: any) => e.id));
      expect(data.nextCursor).toBe(data.events.at(-1)?.cursor ?? after);
      after = data.nextCursor;
      if (!data.hasMore) break;
    }
    expect(seen).toEqual(all);
    // At the end: nothing more, and the cursor given comes back.
    expect(await events(t.key, `?after=${after}`)).toEqual({ events: [], nextCursor: after, hasMore: false });
    // A new status change comes after it.
    const next = await chargeTo(h, t, 'FAILED');
    const data = await events(t.key, `?after=${after}`);
    expect(data.events.map((e: any) => [e.event, e.payload.data.reference])).toEqual([['payment.failed', next]]);
  });
});

it('gives the same payload as the webhook delivered to an application that has a URL', async () => {
  const w = await h.createTenant();
  expectSuccess(await h.request('PATCH', '/api/v1/webhook', { key: w.key, body: { webhookUrl: receiver.url } }), 200);
  receiver.received.length = 0;
  await chargeTo(h, w, 'SUCCESS', 'CMD-W');
  await deliverOnce(h.services);
  expect(receiver.received).toHaveLength(1);
  const [listed] = (await events(w.key)).events;
  expect(listed.payload).toEqual(JSON.parse(receiver.received[0]!.body));
  expect(receiver.received[0]!.headers['webhook-id']).toBe(listed.id);
});

it("is scoped to the key's application and environment: another application sees none, TEST and LIVE keys each see their own", async () => {
  const u = await h.createTenant();
  await chargeTo(h, u, 'SUCCESS');
  // A LIVE event of the same application, written as the late-success path writes one.
  await transaction(h.services.db, async (tx) => {
    await insertEventWithDelivery(tx as never, h.services, { applicationId: u.applicationId, environment: 'LIVE', event: 'payout.late_success', data: { reference: 'PO-LIVE00000001' } });
  });
  const other = await h.createTenant();
  expect(await events(other.key)).toEqual({ events: [], nextCursor: null, hasMore: false });
  const test = await events(u.key);
  expect(test.events.map((e: any) => e.event)).toEqual(['payment.success']);
  const live = await rotateApiKey(h.services, { applicationId: u.applicationId, name: 'live', environment: 'LIVE' });
  const liveEvents = await events(live.plainTextKey);
  expect(liveEvents.events.map((e: any) => [e.event, e.payload.data.reference])).toEqual([['payout.late_success', 'PO-LIVE00000001']]);
  // A TEST cursor read with the LIVE key does not reveal the TEST events.
  expect((await events(live.plainTextKey, `?after=${test.events[0].cursor}`)).events.map((e: any) => e.event)).toEqual(['payout.late_success']);
});

it('answers 400 INVALID_PARAMETER in French for a bad cursor or limit, and accepts the limits 1 and 100', async () => {
  const t = await h.createTenant();
  await chargeTo(h, t, 'SUCCESS');
  const cursor = (await events(t.key)).nextCursor as string;
  const bad: [string, string][] = [
    ['after=nope!', 'after'],
    // A cursor with padding added, or a character outside base64url: another spelling is refused.
    [`after=${cursor}%3D`, 'after'],
    [`after=${cursor}*`, 'after'],
    [`after=${Buffer.from('12:abc').toString('base64url')}`, 'after'],
    [`after=${Buffer.from('18446744073709551616:1').toString('base64url')}`, 'after'],
    [`after=${Buffer.from('1:9223372036854775808').toString('base64url')}`, 'after'],
    [`after=${'A'.repeat(101)}`, 'after'],
    ['after=', 'after'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=beaucoup', 'limit'],
  ];
  for (const [query, field] of bad) {
    const data = expectError(await h.request('GET', `/api/v1/events?${query}`, { key: t.key }), 400, 'INVALID_PARAMETER');
    expect(Object.keys(data), query).toEqual([field]);
    expect(data[field]).not.toMatch(/invalid|expected|must/i);
  }
  expect((await events(t.key, '?limit=1')).events).toHaveLength(1);
  expect((await events(t.key, '?limit=100')).events).toHaveLength(1);
  // The largest cursor that can exist is valid, and nothing comes after it.
  const last = Buffer.from('18446744073709551615:9223372036854775807').toString('base64url');
  expect(await events(t.key, `?after=${last}`)).toEqual({ events: [], nextCursor: last, hasMore: false });
});

// Last: it moves the clock past the retention of every event above.
it('purges events without deliveries by the webhook retention rule (RETENTION_WEBHOOK_DAYS)', async () => {
  const t = await h.createTenant();
  await chargeTo(h, t, 'SUCCESS');
  const before = await events(t.key);
  expect(before.events).toHaveLength(1);
  const day = 86_400_000;
  h.clock.advance((h.config.retention.webhookDays - 1) * day);
  expect((await purgeOnce(h.services)).webhookEvents).toBe(0);
  expect((await events(t.key)).events).toHaveLength(1);
  h.clock.advance(2 * day);
  expect((await purgeOnce(h.services)).webhookEvents).toBeGreaterThanOrEqual(1);
  expect(await events(t.key)).toEqual({ events: [], nextCursor: null, hasMore: false });
  // A cursor of a purged event still reads on: newer events come after it.
  const newer = await chargeTo(h, t, 'FAILED');
  const after = await events(t.key, `?after=${before.nextCursor}`);
  expect(after.events.map((e: any) => e.payload.data.reference)).toEqual([newer]);
});
