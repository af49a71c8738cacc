/**
 * Money-path races of the hosted checkout, through real HTTP from many client addresses at once, on
 * PGlite and (in CI) PostgreSQL:
 * - pay and cancel posted at the same instant with the same cookie and CSRF token;
 * - pay posted at the instant the session expires, racing the page's status reads.
 * The property: no request that reached the operator is ever forgotten. A checkout that sent an
 * attempt to the operator never ends CANCELLED or FAILED while that attempt could still move
 * money, and every such attempt reaches a terminal state through the backstop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { startHarness, type Harness } from './harness.ts';
import { createCheckout } from './helpers/checkout.ts';
import { expectLedgerBalanced } from './helpers/ledger.ts';
import { customerAt } from './helpers/ip-client.ts';
import { transactions } from '../src/db/schema.ts';
import { checkoutAttempts } from '../src/db/schema-checkout.ts';
import { pollOnce } from '../src/jobs/status-poller.ts';
import type { Connector } from '../src/connectors/connector.ts';

// 200 races on PostgreSQL, where requests really run in parallel; 50 on the embedded PGlite, which
// runs one query at a time anyway. RACE_PAIRS overrides.
const PAIRS = Number(process.env.RACE_PAIRS ?? (process.env.TEST_DATABASE_URL ? 200 : 50));

let h: Harness | undefined;
afterEach(async () => {
  // The races move money too: the ledger must still balance.
  if (h) await expectLedgerBalanced(h.services.db);
  await h?.close();
  h = undefined;
});

/** Records every correlation id the operator (here the sandbox) was asked to debit. */
function recordInitiations(harness: Harness): Set<string> {
  const sent = new Set<string>();
  const sandbox: Connector = harness.services.connectors.sandbox;
  harness.services.connectors.sandbox = {
    operator: sandbox.operator,
    prepare: (request, signal) => sandbox.prepare(request, signal),
    async initiate(request, signal) {
      sent.add(request.reference);
      return sandbox.initiate(request, signal);
    },
    getStatus: (query, signal) => sandbox.getStatus(query, signal),
  };
  return sent;
}

/** Lets the backstop run as the poller would, minute after minute, until nothing is due. */
async function settle(harness: Harness): Promise<void> {
  for (let round = 0; round < 40; round += 1) {
    harness.clock.advance(30_000);
    for (let tick = 0; tick < 100; tick += 1) {
      const result = await pollOnce(harness.services);
      if (result.claimed === 0 && result.claimedAttempts === 0) break;
    }
  }
}

interface RaceFigures {
  checkouts: number;
  attemptsSentToOperator: number;
  /** Checkouts CANCELLED or FAILED although one of their attempts reached the operator and did not fail there. */
  closedWhileAttemptLive: number;
  /** Attempts still PENDING after the backstop ran: nobody will ever ask the operator about them again. */
  orphanedAttempts: number;
  /** Attempts that succeeded at the operator while their checkout is not SUCCESS (money moved, merchant told otherwise). */
  succeededButCheckoutNotPaid: number;
  byStatus: Record<string, number>;
}

async function figures(harness: Harness, references: string[], sent: Set<string>): Promise<RaceFigures> {
  const rows = await harness.services.db.select().from(transactions).where(inArray(transactions.reference, references));
  const attempts = await harness.services.db
    .select()
    .from(checkoutAttempts)
    .where(inArray(checkoutAttempts.transactionId, rows.map((r) => r.id)));
  const byStatus: Record<string, number> = {};
  for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
  let closedWhileAttemptLive = 0;
  let succeededButCheckoutNotPaid = 0;
  for (const row of rows) {
    const mine = attempts.filter((a) => a.transactionId === row.id);
    const liveAtOperator = mine.filter((a) => sent.has(a.correlationId) && a.status !== 'FAILED');
    const closedByUs = mine.filter((a) => sent.has(a.correlationId) && a.status === 'FAILED' && a.failureCode === 'CUSTOMER_CANCELLED');
    if ((row.status === 'CANCELLED' || row.status === 'FAILED') && (liveAtOperator.length > 0 || closedByUs.length > 0)) closedWhileAttemptLive += 1;
    if (row.status !== 'SUCCESS' && mine.some((a) => a.status === 'SUCCEEDED')) succeededButCheckoutNotPaid += 1;
  }
  return {
    checkouts: rows.length,
    attemptsSentToOperator: attempts.filter((a) => sent.has(a.correlationId)).length,
    closedWhileAttemptLive,
    orphanedAttempts: attempts.filter((a) => a.status === 'PENDING').length,
    succeededButCheckoutNotPaid,
    byStatus,
  };
}

/** Opens `PAIRS` checkout pages, each from its own customer address; `before(i)` runs before each creation. */
async function openSessions(harness: Harness, prefix: string, before: (i: number) => void = () => {}) {
  const tenant = await harness.createTenant();
  const sessions = [];
  for (let i = 0; i < PAIRS; i += 1) {
    before(i);
    const checkout = await createCheckout(harness, tenant, { merchantReference: `${prefix}-${i}` });
    const customer = customerAt(harness.baseUrl, i);
    const page = await customer.get(checkout.path);
    expect(page.status).toBe(200);
    sessions.push({ checkout, customer, csrf: page.csrf! });
  }
  return sessions;
}

/** The property of both races: nothing sent to the operator is lost; `closedStatus` is how an unpaid checkout ends. */
function expectNothingLost(result: RaceFigures, closedStatus: 'CANCELLED' | 'FAILED') {
  expect(result.checkouts).toBe(PAIRS);
  expect(result.closedWhileAttemptLive).toBe(0);
  expect(result.orphanedAttempts).toBe(0);
  expect(result.succeededButCheckoutNotPaid).toBe(0);
  // Paid (an attempt reached the operator first) or closed (none did): nothing in between.
  expect((result.byStatus.SUCCESS ?? 0) + (result.byStatus[closedStatus] ?? 0)).toBe(PAIRS);
  expect(result.byStatus.SUCCESS ?? 0).toBe(result.attemptsSentToOperator);
}

describe('checkout races', () => {
  it(`${PAIRS} pay+cancel pairs at the same instant: no checkout closed under a live attempt, no attempt orphaned`, async () => {
    h = await startHarness({ CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: '10000' });
    const harness = h;
    const sent = recordInitiations(harness);
    const sessions = await openSessions(harness, 'RACE');
    const answers = await Promise.all(
      sessions.map(({ checkout, customer, csrf }) =>
        Promise.all([
          customer.post(`${checkout.path}/pay`, { _csrf: csrf, rail: 'MTN_MOMO_CM', phone: '677000001' }),
          customer.post(`${checkout.path}/cancel`, { _csrf: csrf }),
        ]),
      ),
    );
    // Both forms are answered by a redirect to the page (post/redirect/get), never an error.
    for (const [pay, cancel] of answers) {
      expect(pay.status).toBe(303);
      expect(cancel.status).toBe(303);
    }
    await settle(harness);
    const result = await figures(harness, sessions.map((s) => s.checkout.reference), sent);
    console.info('pay+cancel race figures', JSON.stringify(result));
    expectNothingLost(result, 'CANCELLED');
  }, 300_000);

  it(`${PAIRS} pays at the instant of expiry, racing status reads: 0 orphaned attempts`, async () => {
    h = await startHarness({ CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: '10000', CHECKOUT_TTL_MINUTES: '1' });
    const harness = h;
    const sent = recordInitiations(harness);
    const start = harness.clock.now().getTime();
    // One millisecond apart: the sessions end one after the other while the race runs.
    const sessions = await openSessions(harness, 'EXPIRY', (i) => harness.clock.set(new Date(start + i)));
    // The race window follows the machine's speed: how long a pay takes here, now.
    const probeTenant = await harness.createTenant();
    let payMs = 0;
    for (let k = 0; k < 3; k += 1) {
      const probe = await createCheckout(harness, probeTenant, { merchantReference: `PROBE-${k}` });
      const customer = customerAt(harness.baseUrl, PAIRS + k);
      const page = await customer.get(probe.path);
      const began = performance.now();
      await customer.post(`${probe.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000001' });
      payMs = Math.max(payMs, performance.now() - began);
    }
    const windowMs = Math.max(20, Math.ceil(payMs * 1.5));
    const ttlMs = 60_000;
    harness.clock.set(new Date(start + ttlMs - 1));
    // Session i's requests leave at i × window; its end (and only its end: they are 1 ms apart)
    // comes within one window after, while its pay and reads are in flight, in an order left to chance.
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const answers = await Promise.all(
      sessions.map(async ({ checkout, customer, csrf }, i) => {
        await sleep(i * windowMs);
        const expiry = start + i + ttlMs;
        const end = sleep(Math.random() * windowMs).then(() => {
          if (harness.clock.now().getTime() < expiry) harness.clock.set(new Date(expiry));
        });
        const pay = customer.post(`${checkout.path}/pay`, { _csrf: csrf, rail: 'MTN_MOMO_CM', phone: '677000001' });
        const reads = [0, 1, 2].map((ms) => sleep(ms).then(() => customer.get(`${checkout.path}/status`)));
        await end;
        return [await pay, ...(await Promise.all(reads)), await customer.get(checkout.path)] as const;
      }),
    );
    for (const [pay, ...reads] of answers) {
      expect(pay.status).toBe(303);
      for (const read of reads) expect(read.status).toBeLessThan(500);
    }
    await settle(harness);
    const result = await figures(harness, sessions.map((s) => s.checkout.reference), sent);
    console.info('pay-at-expiry race figures', JSON.stringify({ windowMs, ...result }));
    expectNothingLost(result, 'FAILED');
  }, 300_000);
});

describe('the backstop never forgets an attempt', () => {
  it('polls an attempt in flight whose checkout already ended, until the operator answers', async () => {
    h = await startHarness();
    const harness = h;
    const tenant = await harness.createTenant();
    const checkout = await createCheckout(harness, tenant);
    const customer = customerAt(harness.baseUrl, 0);
    const page = await customer.get(checkout.path);
    expect((await customer.post(`${checkout.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000001' })).status).toBe(303);
    // A checkout closed under an attempt in flight (what the races above used to produce, or
    // what a database restored from an older backup may hold): the transaction is no longer polled.
    const [row] = await harness.services.db
      .update(transactions)
      .set({ status: 'FAILED', failureCode: 'SESSION_EXPIRED', nextPollAt: null })
      .where(eq(transactions.reference, checkout.reference))
      .returning();
    harness.clock.advance(60_000);
    const tick = await pollOnce(harness.services);
    expect(tick.claimed).toBe(0);
    expect(tick.claimedAttempts).toBe(1);
    const [attempt] = await harness.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, row!.id));
    // The operator took the money: the attempt is recorded as such (a late success), not left PENDING.
    expect(attempt!.status).toBe('SUCCEEDED');
    expect((await pollOnce(harness.services)).claimedAttempts).toBe(0);
  });
});
