/**
 * The SDK's API-key reads against a running Kolo: the balance, the transactions walked page by page
 * by the async iterator (no gap, no repeat, newest first, filters), and the events feed, whose
 * payloads are the bodies the webhooks deliver (checked against a verified real delivery).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { Kolo, KoloValidationError, verifyWebhook, type KoloEventEntry, type PayOutListItem } from '../../packages/sdk/src/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { settle, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { signedTenant } from './deliveries.ts';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const SUCCESS_MSISDN = '237677000001';
const DECLINED_MSISDN = '237677000100';
const INSUFFICIENT_MSISDN = '237677000102';
const charge = (payerAccount: string, amount = 5000) => ({ amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount });
const transfer = (beneficiaryAccount: string, amount = 2000) => ({ amount, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount, beneficiaryName: 'Awa Mbarga' });

/** Everything an async iterator yields. */
async function all<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

describe('balance', () => {
  it("reads the key's application: the sandbox opening balance, then a transfer's reservation", async () => {
    const t = await h.createTenant();
    const kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    const opening = await kolo.balance.retrieve();
    expect(opening).toEqual({
      applicationId: t.applicationId,
      environment: 'TEST',
      currency: 'XAF',
      availableAmount: h.config.sandboxOpeningBalance,
      pendingAmount: 0,
      reservedAmount: 0,
    });
    const sent = await kolo.transfers.create(transfer(SUCCESS_MSISDN, 3000));
    const status = await kolo.payOuts.retrieve(sent.reference);
    const held = status.heldAmount;
    expect(held).toBe(3000 + (status.feeAmount ?? 0));
    const during = await kolo.balance.retrieve();
    expect(during.reservedAmount).toBe(held);
    expect(during.availableAmount).toBe(opening.availableAmount - held);
  });
});

describe('transactions', () => {
  let t: Tenant;
  let kolo: Kolo;
  /** References, newest first. */
  let created: string[];

  beforeAll(async () => {
    t = await h.createTenant();
    kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    created = [];
    for (const payer of [SUCCESS_MSISDN, DECLINED_MSISDN, SUCCESS_MSISDN]) {
      created.unshift((await kolo.charges.create(charge(payer))).reference);
      h.clock.advance(1000);
    }
    created.unshift((await kolo.transfers.create(transfer(SUCCESS_MSISDN))).reference);
    h.clock.advance(1000);
    created.unshift((await kolo.checkouts.create({ amount: 1500, currency: 'XAF' })).reference);
    await settle(h);
  });

  it('iterates every transaction, newest first, two per page, without gap or repeat', async () => {
    const items = await all(kolo.transactions.iterate({ limit: 2 }));
    expect(items.map((item) => item.reference)).toEqual(created);
    const first = await kolo.transactions.list({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const last = await kolo.transactions.list({ limit: 2, cursor: (await kolo.transactions.list({ limit: 4 })).nextCursor! });
    expect(last.items.map((item) => item.reference)).toEqual(created.slice(4));
    expect(last.nextCursor).toBeNull();
  });

  it('gives each item the status read of its direction, with its dates', async () => {
    const items = await all(kolo.transactions.iterate());
    for (const item of items) {
      const status = item.direction === 'PAY_IN' ? await kolo.payIns.retrieve(item.reference) : await kolo.payOuts.retrieve(item.reference);
      expect(item).toMatchObject(status);
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    }
    const transferItem = items.find((item): item is PayOutListItem => item.direction === 'PAY_OUT');
    expect(transferItem?.beneficiaryName).toBe('Awa Mbarga');
  });

  it('filters by status and type', async () => {
    const succeeded = await all(kolo.transactions.iterate({ status: 'SUCCESS', type: 'CHARGE' }));
    expect(succeeded.map((item) => item.reference)).toEqual([created[2], created[4]]);
    const failed = await all(kolo.transactions.iterate({ status: 'FAILED' }));
    expect(failed.map((item) => item.reference)).toEqual([created[3]]);
  });

  it('refuses a bad limit or cursor with a KoloValidationError naming it', async () => {
    const limit = await kolo.transactions.list({ limit: 101 }).catch((e: unknown) => e);
    expect(limit).toBeInstanceOf(KoloValidationError);
    expect(Object.keys((limit as KoloValidationError).fields)).toEqual(['limit']);
    const cursor = await kolo.transactions.list({ cursor: 'pas-un-curseur' }).catch((e: unknown) => e);
    expect(cursor).toBeInstanceOf(KoloValidationError);
    expect(Object.keys((cursor as KoloValidationError).fields)).toEqual(['cursor']);
  });
});

describe('events', () => {
  it('lists payment.success then payout.failed, walked one per page, resumable from a cursor', async () => {
    const t = await h.createTenant();
    const kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    const paid = await kolo.charges.create(charge(SUCCESS_MSISDN));
    await settle(h);
    const failed = await kolo.transfers.create(transfer(INSUFFICIENT_MSISDN));
    await settle(h);
    const events = await all(kolo.events.iterate({ limit: 1 }));
    expect(events.map((e) => [e.event, e.payload.data])).toEqual([
      ['payment.success', expect.objectContaining({ reference: paid.reference, status: 'SUCCESS' })],
      ['payout.failed', expect.objectContaining({ reference: failed.reference, status: 'FAILED' })],
    ]);
    const first = await kolo.events.list({ limit: 1 });
    expect(first).toMatchObject({ hasMore: true, nextCursor: events[0]!.cursor });
    const rest = await all(kolo.events.iterate({ after: first.nextCursor! }));
    expect(rest.map((e) => e.id)).toEqual([events[1]!.id]);
    // Nothing after the last one: an empty page keeps the cursor to resume from.
    expect(await kolo.events.list({ after: events[1]!.cursor })).toEqual({ events: [], nextCursor: events[1]!.cursor, hasMore: false });
  });

  it("carries as payload the body a webhook delivers, as verifyWebhook returns it", async () => {
    const t: Tenant & { secret: string } = await signedTenant(h, receiver);
    const kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    h.clock.set(new Date());
    const before = receiver.received.length;
    const paid = await kolo.charges.create(charge(SUCCESS_MSISDN));
    await settle(h);
    await deliverOnce(h.services);
    const delivery = receiver.received.slice(before).find((r) => JSON.parse(r.body).data?.reference === paid.reference)!;
    const delivered = verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: t.secret, now: h.clock.now() });
    const listed: KoloEventEntry[] = (await kolo.events.list()).events;
    const entry = listed.find((e) => e.id === delivered.id);
    expect(entry?.payload).toEqual(delivered);
    expect(entry?.event).toBe('payment.success');
  });

  it('refuses a bad cursor or limit with a KoloValidationError', async () => {
    const t = await h.createTenant();
    const kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
    await expect(kolo.events.list({ after: 'pas-un-curseur' })).rejects.toBeInstanceOf(KoloValidationError);
    await expect(kolo.events.list({ limit: 0 })).rejects.toBeInstanceOf(KoloValidationError);
  });
});
