/**
 * A stored initiation's first poll is written with the creating write (`firstPollAt`: 2 s after
 * `initiatedAt`) so the answer's record touches no indexed column. What must not change: while the
 * answer is not recorded, the initiation may still be on its way to the operator, and nobody asks
 * the operator about it before the send's lease ends (asked too early, an operator with no trace of
 * it yet would fail the transaction). Driven by hand: a manual clock, one `pollOnce` at a time, and
 * the sandbox rail wrapped so that its initiation is held open and its status queries are counted.
 * A callback from the operator is not held back: the operator knows of the transaction, and its
 * callback can overtake the answer to our own request. Once an ambiguous answer is recorded, the
 * initiation stays in flight for the landing bound: the operator's "no record of it" fails nothing
 * and releases no reservation before its `inFlightUntil`, and does at that instant.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactions } from '../../src/db/schema.ts';
import type { Connector } from '../../src/connectors/connector.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { callbackSegmentOf } from '../../src/connectors/operators.ts';
import { initiationLeaseEnd } from '../../src/payments/initiation-window.ts';
import { handleOperatorCallback } from '../../src/payments/handle-operator-callback.ts';
import { refreshTransaction } from '../../src/payments/refresh-transaction.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { chargeBody, expectSuccess, PATHS, transactionRow, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
let sandbox: Connector;
let statusQueries: string[] = [];
let release: (() => void) | null = null;
/**
 * `held`: the initiation is held open until `release`. `lost`: its answer is lost (UNREACHABLE)
 * and the operator has no record of it (every status query answers NOT_FOUND).
 */
let mode: 'held' | 'lost' = 'held';

beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
  sandbox = h.services.connectors.sandbox;
  const held: Connector = {
    ...sandbox,
    operator: sandbox.operator,
    preparesLocally: sandbox.preparesLocally,
    prepare: (request, signal) => sandbox.prepare(request, signal),
    initiate: async (request, signal) => {
      if (mode === 'lost') return { kind: 'UNREACHABLE', error: 'answer lost' };
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return sandbox.initiate(request, signal);
    },
    getStatus: async (query, signal) => {
      statusQueries.push(query.reference);
      // The operator has no record, and this connector says NOT_FOUND whatever `initiation` it is
      // told: whether that counts is Kolo's decision.
      if (mode === 'lost') return { kind: 'NOT_FOUND' };
      return sandbox.getStatus(query, signal);
    },
  };
  h.services.connectors.sandbox = held;
});
afterAll(async () => {
  if (h) h.services.connectors.sandbox = sandbox;
  await h?.close();
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('a stored initiation whose answer is not recorded yet', () => {
  it('is first polled 2 s after it was stored, and not asked about until its send lease ends', async () => {
    expect(sandbox.preparesLocally).toBe(true);
    // The charge's answer waits for the initiation: send it without awaiting.
    const answer = h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount: '237677000001' }) });
    for (let i = 0; i < 100 && !release; i++) await flush();
    expect(release).not.toBeNull();
    const [stored] = await h.services.db.select().from(transactions).where(eq(transactions.applicationId, t.applicationId));
    expect(stored!.initiatedAt).not.toBeNull();
    expect(stored!.initiationOutcome).toBeNull();
    expect(stored!.nextPollAt!.getTime() - stored!.initiatedAt!.getTime()).toBe(2000);

    // The first poll comes: the answer is still missing, so the operator is not asked.
    h.clock.advance(2500);
    await pollOnce(h.services);
    expect(statusQueries).toEqual([]);
    const waiting = await transactionRow(h, stored!.reference);
    expect(waiting.status).toBe('PENDING');
    expect(waiting.nextPollAt!.getTime()).toBe(initiationLeaseEnd(stored!.inFlightUntil!).getTime());

    // The answer arrives; its record leaves the next poll where it is.
    release!();
    const created = expectSuccess(await answer, 201);
    expect(created.reference).toBe(stored!.reference);
    const answered = await transactionRow(h, stored!.reference);
    expect(answered.initiationOutcome).toBe('ACCEPTED');
    expect(answered.nextPollAt!.getTime()).toBe(waiting.nextPollAt!.getTime());

    // Once the lease has ended, the poller asks and the sandbox settles it.
    h.clock.set(new Date(waiting.nextPollAt!.getTime() + 10));
    await pollOnce(h.services);
    expect(statusQueries).toEqual([stored!.reference]);
    expect((await transactionRow(h, stored!.reference)).status).toBe('SUCCESS');
  });

  it('is asked about at once when the operator calls back before the answer is recorded', async () => {
    statusQueries = [];
    release = null;
    const answer = h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount: '237677000001' }) });
    for (let i = 0; i < 100 && !release; i++) await flush();
    const [stored] = await h.services.db
      .select()
      .from(transactions)
      .where(and(eq(transactions.applicationId, t.applicationId), isNull(transactions.initiationOutcome)));
    // Past the sandbox's delay, well before the send lease ends: the callback overtakes our answer.
    h.clock.advance(h.config.sandboxDelayMs + 500);
    expect(h.clock.now().getTime()).toBeLessThan(initiationLeaseEnd(stored!.inFlightUntil!).getTime());
    const outcome = await handleOperatorCallback(h.services, callbackSegmentOf('MTN_MOMO'), stored!.callbackToken!);
    expect(outcome).toBe('QUERIED');
    expect(statusQueries).toEqual([stored!.reference]);
    expect((await transactionRow(h, stored!.reference)).status).toBe('SUCCESS');
    release!();
    expectSuccess(await answer, 201);
  });

  it('with its answer recorded, is asked about at the first poll, 2 s after it was stored', async () => {
    statusQueries = [];
    release = null;
    const answer = h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount: '237677000001' }) });
    for (let i = 0; i < 100 && !release; i++) await flush();
    release!();
    const { reference } = expectSuccess(await answer, 201) as { reference: string };
    const row = await transactionRow(h, reference);
    expect(row.initiationOutcome).toBe('ACCEPTED');
    h.clock.set(new Date(row.initiatedAt!.getTime() + 2000));
    await pollOnce(h.services);
    expect(statusQueries).toEqual([reference]);
  });
});

describe('an initiation whose answer was lost, of which the operator has no record', () => {
  it('is not failed, and its reservation not released, before its inFlightUntil; at that instant it is', async () => {
    mode = 'lost';
    statusQueries = [];
    try {
      const before = await tenantBalances(h, t);
      const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount: '237677000011' }) }), 201);
      const reserved = before.available - (await tenantBalances(h, t)).available;
      const stored = await transactionRow(h, created.reference);
      expect(stored).toMatchObject({ status: 'PENDING', initiationOutcome: 'UNKNOWN' });
      expect(stored.inFlightUntil!.getTime()).toBe(h.clock.now().getTime() + 300_000);

      // One millisecond before: asked, but "no record" proves nothing yet.
      h.clock.set(new Date(stored.inFlightUntil!.getTime() - 1));
      expect(await refreshTransaction(h.services, await transactionRow(h, created.reference))).toBe('STILL_PENDING');
      expect(statusQueries).toEqual([created.reference]);
      expect((await transactionRow(h, created.reference)).status).toBe('PENDING');
      expect((await tenantBalances(h, t)).reserved).toBe(before.reserved + reserved);

      // At inFlightUntil nothing of it can still arrive: it never landed.
      h.clock.set(stored.inFlightUntil!);
      expect(await refreshTransaction(h.services, await transactionRow(h, created.reference))).toBe('FAILED');
      expect(await transactionRow(h, created.reference)).toMatchObject({ status: 'FAILED', failureCode: 'NOT_FOUND_AT_PROVIDER', isReservationHeld: false });
      expect(await tenantBalances(h, t)).toEqual(before);
      await expectLedgerBalanced(h.services.db);
    } finally {
      mode = 'held';
    }
  });
});
