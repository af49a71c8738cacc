/**
 * The backstop poller driven by hand (manual clock + `pollOnce`): sandbox charges and transfers
 * settle after the delay, each magic number ends as documented, unpaid checkouts expire after
 * 30 minutes, an unreachable rail never records an ambiguous outcome as FAILED before the
 * rail's deadline (900 s), every change is recorded in transaction_events, and terminal
 * states never change. Also the checkout page behind `paymentUrl`.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers, transactions } from '../../src/db/schema.ts';
import { applyTransition } from '../../src/payments/apply-transition.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, checkoutBody, eventsOf, expectSuccess, FIELDS, PATHS, transactionRow, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => h?.close());

const SECOND = 1000;
const RAIL_DEADLINE_MS = 900 * SECOND;

/** Advances the clock by `ms` in steps of `stepMs`, running one poller tick after each step. */
async function runFor(ms: number, stepMs: number) {
  for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
    h.clock.advance(Math.min(stepMs, ms - elapsed));
    await pollOnce(h.services);
  }
}

const charge = async (payerAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount }) }), 201).reference as string;
const transfer = async (beneficiaryAccount: string) =>
  expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount }) }), 201).reference as string;
const payIn = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payInStatus(reference), { key: t.key }), 200);
const payOut = async (reference: string) => expectSuccess(await h.request('GET', PATHS.payOutStatus(reference), { key: t.key }), 200);

describe('sandbox charge and transfer', () => {
  it('a charge stays PENDING until the sandbox delay, then the backstop moves it to SUCCESS', async () => {
    const reference = await charge('237677000001');
    await runFor(h.config.sandboxDelayMs - 500, 500);
    expect((await payIn(reference)).status).toBe('PENDING');
    await runFor(5 * SECOND, 500);
    const data = await payIn(reference);
    expect(Object.keys(data).sort()).toEqual(FIELDS.payInStatus);
    expect(data).toMatchObject({ status: 'SUCCESS', type: 'CHARGE', failureCode: null, failureReason: null, paymentUrl: null });

    const events = await eventsOf(h, reference);
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.cause])).toEqual([
      [null, 'PENDING', 'CREATED'],
      ['PENDING', 'PENDING', 'INITIATED'],
      ['PENDING', 'SUCCESS', 'POLL'],
    ]);
    for (const event of events) expect(event.createdAt).toBeInstanceOf(Date);
    const row = await transactionRow(h, reference);
    expect(row.completedAt).not.toBeNull();
    expect(row.operatorReference).toBe(`SBX-${reference}`);
  });

  it('a transfer settles the same way', async () => {
    const reference = await transfer('237677000001');
    await runFor(5 * SECOND, 500);
    const data = await payOut(reference);
    expect(Object.keys(data).sort()).toEqual(FIELDS.payOutStatus);
    expect(data).toMatchObject({ status: 'SUCCESS', failureCode: null, failureReason: null });
  });

  const DECLINES: [string, string, string][] = [
    ['100', 'REJECTED_BY_PAYER', 'PAYEE_NOT_ALLOWED'],
    ['101', 'WRONG_PIN', 'PAYEE_NOT_ALLOWED'],
    ['102', 'INSUFFICIENT_FUNDS', 'MERCHANT_INSUFFICIENT_FUNDS'],
    ['103', 'PAYER_NOT_FOUND', 'PAYEE_NOT_FOUND'],
    ['104', 'ACCOUNT_BLOCKED', 'ACCOUNT_BLOCKED'],
    ['105', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'],
    ['106', 'TIMEOUT', 'TIMEOUT'],
    ['107', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
  ];

  it('each decline number ends FAILED with its pay-in and pay-out failureCode', async () => {
    const created = [];
    for (const [suffix, payInCode, payOutCode] of DECLINES) {
      created.push({ charge: await charge(`237677000${suffix}`), transfer: await transfer(`237677000${suffix}`), payInCode, payOutCode });
    }
    for (const c of created) {
      expect(await payIn(c.charge)).toMatchObject({ status: 'PENDING', failureCode: null, failureReason: null });
    }
    await runFor(6 * SECOND, SECOND);
    for (const c of created) {
      const inData = await payIn(c.charge);
      expect(inData).toMatchObject({ status: 'FAILED', failureCode: c.payInCode });
      expect(typeof inData.failureReason).toBe('string');
      expect(inData.failureReason.length).toBeGreaterThan(0);
      const outData = await payOut(c.transfer);
      expect(outData).toMatchObject({ status: 'FAILED', failureCode: c.payOutCode });
      expect(outData.failureReason).toBeTruthy();

      const last = (await eventsOf(h, c.charge)).at(-1)!;
      expect(last).toMatchObject({ fromStatus: 'PENDING', toStatus: 'FAILED', cause: 'POLL', failureCode: c.payInCode });
    }
  });
});

describe('ambiguous outcomes and deadlines', () => {
  it('…197 (unreachable) stays PENDING before the rail deadline, then fails PROVIDER_UNAVAILABLE', async () => {
    const reference = await charge('237677000197');
    const initiated = await transactionRow(h, reference);
    expect(initiated.status).toBe('PENDING');
    expect(initiated.deadlineAt!.getTime() - initiated.initiatedAt!.getTime()).toBe(RAIL_DEADLINE_MS);
    expect((await eventsOf(h, reference)).map((e) => e.cause)).toEqual(['CREATED', 'INITIATION_UNREACHABLE']);

    await runFor(RAIL_DEADLINE_MS - 10 * SECOND, 30 * SECOND);
    expect(await payIn(reference)).toMatchObject({ status: 'PENDING', failureCode: null, failureReason: null });

    await runFor(40 * SECOND, 10 * SECOND);
    expect(await payIn(reference)).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' });
    expect((await eventsOf(h, reference)).at(-1)).toMatchObject({ toStatus: 'FAILED', cause: 'DEADLINE', failureCode: 'PROVIDER_UNAVAILABLE' });
  });

  it('…199 (never resolves) stays PENDING, then fails TIMEOUT after the deadline', async () => {
    const reference = await transfer('237677000199');
    await runFor(RAIL_DEADLINE_MS - 10 * SECOND, 30 * SECOND);
    expect((await payOut(reference)).status).toBe('PENDING');
    await runFor(40 * SECOND, 10 * SECOND);
    expect(await payOut(reference)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    expect((await eventsOf(h, reference)).at(-1)).toMatchObject({ cause: 'DEADLINE', failureCode: 'TIMEOUT' });
  });

  it('…198 resolves late: still PENDING well after the normal delay, SUCCESS after the late delay', async () => {
    const reference = await charge('237677000198');
    await runFor(h.config.sandboxLateDelayMs - 20 * SECOND, 20 * SECOND);
    expect((await payIn(reference)).status).toBe('PENDING');
    await runFor(120 * SECOND, 20 * SECOND);
    expect((await payIn(reference)).status).toBe('SUCCESS');
  });
});

describe('a rail deactivated while transactions are in flight', () => {
  it('stops new transactions but still settles the ones already accepted', async () => {
    const succeeding = await charge('237677000001');
    const hanging = await transfer('237677000199');
    await h.services.db.update(providers).set({ active: false }).where(eq(providers.code, 'MTN_MOMO_CM'));
    try {
      expect((await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody() })).status).toBe(404);
      await runFor(5 * SECOND, SECOND);
      expect((await payIn(succeeding)).status).toBe('SUCCESS');
      // An accepted transaction is never left PENDING for ever: the rail's deadline still applies.
      await runFor(RAIL_DEADLINE_MS, 60 * SECOND);
      expect(await payOut(hanging)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    } finally {
      await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, 'MTN_MOMO_CM'));
    }
  });
});

describe('a connector that disappears (LIVE connector removed from the configuration)', () => {
  it('leaves the transaction PENDING until the rail deadline, then fails PROVIDER_UNAVAILABLE', async () => {
    const reference = await charge('237677000001');
    // Seen from the backstop, a LIVE transaction whose operator connector is not configured.
    await h.services.db.update(transactions).set({ environment: 'LIVE' }).where(eq(transactions.reference, reference));
    await runFor(RAIL_DEADLINE_MS - 10 * SECOND, 60 * SECOND);
    // Read from the database: the TEST key no longer sees a LIVE transaction (separate worlds).
    expect((await transactionRow(h, reference)).status).toBe('PENDING');
    await runFor(30 * SECOND, 10 * SECOND);
    expect(await transactionRow(h, reference)).toMatchObject({ status: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' });
    expect((await eventsOf(h, reference)).at(-1)).toMatchObject({ cause: 'DEADLINE', failureCode: 'PROVIDER_UNAVAILABLE' });
  });
});

describe('terminal states never change', () => {
  it('re-polling and late transitions leave SUCCESS, FAILED alone', async () => {
    const succeeded = await charge('237677000001');
    const failed = await charge('237677000102');
    await runFor(6 * SECOND, SECOND);
    const before = { s: await payIn(succeeded), f: await payIn(failed) };
    expect(before.s.status).toBe('SUCCESS');
    expect(before.f.status).toBe('FAILED');
    const eventCounts = [(await eventsOf(h, succeeded)).length, (await eventsOf(h, failed)).length];

    await runFor(20 * 60 * SECOND, 5 * 60 * SECOND);
    for (const reference of [succeeded, failed]) {
      const row = await transactionRow(h, reference);
      for (const event of ['MONEY_MOVED', 'DECLINED', 'TIMED_OUT', 'CUSTOMER_CANCELLED'] as const) {
        expect(await applyTransition(h.services, { transactionId: row.id, event, cause: 'TEST' })).toBeNull();
      }
    }
    expect(await payIn(succeeded)).toEqual(before.s);
    expect(await payIn(failed)).toEqual(before.f);
    expect([(await eventsOf(h, succeeded)).length, (await eventsOf(h, failed)).length]).toEqual(eventCounts);
  });

  it('a charge cannot be cancelled by the customer (checkout only)', async () => {
    const reference = await charge('237677000199');
    const row = await transactionRow(h, reference);
    expect(await applyTransition(h.services, { transactionId: row.id, event: 'CUSTOMER_CANCELLED', cause: 'TEST' })).toBeNull();
    expect((await payIn(reference)).status).toBe('PENDING');
  });
});

describe('checkout session', () => {
  it('an unpaid checkout fails SESSION_EXPIRED after 30 minutes and loses its paymentUrl', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody() }), 201);
    await runFor(29 * 60 * SECOND + 50 * SECOND, 5 * 60 * SECOND);
    expect(await payIn(created.reference)).toMatchObject({ status: 'PENDING', paymentUrl: created.paymentUrl, failureCode: null });

    await runFor(20 * SECOND, 10 * SECOND);
    const data = await payIn(created.reference);
    expect(data).toMatchObject({ type: 'CHECKOUT', status: 'FAILED', failureCode: 'SESSION_EXPIRED', paymentUrl: null });
    expect(data.failureReason).toBeTruthy();
    expect((await eventsOf(h, created.reference)).at(-1)).toMatchObject({
      fromStatus: 'PENDING',
      toStatus: 'FAILED',
      cause: 'SESSION_EXPIRED',
      failureCode: 'SESSION_EXPIRED',
    });
    await runFor(60 * SECOND, 30 * SECOND);
    expect(await payIn(created.reference)).toEqual(data);
  });

  it('the paymentUrl answers an HTML page with the amount and description, then 410 once expired', async () => {
    const created = expectSuccess(
      await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody({ amount: 5000, description: 'Panier de mangues' }) }),
      201,
    );
    const page = await fetch(created.paymentUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/5[\s\u00a0\u202f]?000/);
    expect(html).toContain('Panier de mangues');

    h.clock.advance(30 * 60 * SECOND + SECOND);
    expect((await fetch(created.paymentUrl)).status).toBe(410);
    await pollOnce(h.services);
    expect((await fetch(created.paymentUrl)).status).toBe(410);
  });

  it('an unknown session token answers 404', async () => {
    expect((await fetch(`${h.baseUrl}/checkout/cs_${'0'.repeat(32)}`)).status).toBe(404);
  });
});
