/**
 * The status read's use case and data access on a real database: the status view is the
 * transaction as Drizzle reads it, scoped to the key's application and environment, the reads of
 * one turn are one statement; over HTTP a refused key gets its 401 before any 400 or 404. Plus
 * the envelope timestamp's local-time form.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionOf } from '../../src/db/handle.ts';
import { STATUS_VIEW_PROPERTIES, type StatusViewRow } from '../../src/db/queries/status-view.ts';
import { transactions } from '../../src/db/schema.ts';
import { formatLocalTimestamp } from '../../src/domain/clock.ts';
import { readTransactionStatus } from '../../src/payments/get-transaction.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
let other: Tenant;
let payIn: string;
let payOut: string;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
  other = await h.createTenant();
  payIn = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ description: 'Commande 42' }) }), 201).reference;
  payOut = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201).reference;
});
afterAll(async () => h?.close());

/** The transaction `reference` as Drizzle reads it, cut to the status view's properties. */
async function drizzleView(reference: string): Promise<StatusViewRow> {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  return Object.fromEntries(STATUS_VIEW_PROPERTIES.map((p) => [p, row![p]])) as StatusViewRow;
}

/** Status-read statements sent to the database while `work` runs, counted where the driver is called. */
async function statusStatementsDuring<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const connection = connectionOf(h.services.db);
  const drivers = [connection.client, connection.genericPlanPool].filter(Boolean) as unknown as { query: (...args: unknown[]) => unknown }[];
  let statements = 0;
  const originals = drivers.map((driver) => driver.query);
  drivers.forEach((driver, i) => {
    driver.query = function (this: unknown, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
      if (text?.includes('from transactions') || text?.includes('join transactions')) statements++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    return { result: await work(), statements };
  } finally {
    drivers.forEach((driver, i) => (driver.query = originals[i]!));
  }
}

const scope = (tenant: Tenant) => ({ applicationId: tenant.applicationId, environment: 'TEST' as const });

describe('the status read', () => {
  it('answers the status view as Drizzle reads it', async () => {
    const row = await readTransactionStatus(h.services, scope(t), 'PAY_IN', payIn);
    expect(row).toEqual(await drizzleView(payIn));
    expect(Object.keys(row)).toEqual([...STATUS_VIEW_PROPERTIES]);
    expect(row).toMatchObject({ reference: payIn, description: 'Commande 42', status: 'PENDING', refundedAmount: 0, isLateSuccess: false });
    expect(await readTransactionStatus(h.services, scope(t), 'PAY_OUT', payOut)).toEqual(await drizzleView(payOut));
  });

  it('finds nothing of another application, of the other direction or of the other environment', async () => {
    for (const [caller, direction] of [
      [scope(other), 'PAY_IN'],
      [scope(t), 'PAY_OUT'],
      [{ applicationId: t.applicationId, environment: 'LIVE' as const }, 'PAY_IN'],
    ] as const) {
      await expect(readTransactionStatus(h.services, caller, direction, payIn)).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    }
  });

  it('answers the reads of one turn in batches of at most 32, each with its own row', async () => {
    const { result, statements } = await statusStatementsDuring(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => readTransactionStatus(h.services, scope(i % 2 ? t : other), 'PAY_IN', payIn).catch((e: { code: string }) => e.code))),
    );
    result.forEach((row, i) => (i % 2 ? expect(row).toMatchObject({ reference: payIn }) : expect(row).toBe('TRANSACTION_NOT_FOUND')));
    expect(statements).toBe(2);
  });

  it('over HTTP: a refused key gets 401 before an invalid reference or an unknown one', async () => {
    const unknownKey = `sk_test_${'0'.repeat(128)}`;
    expectError(await h.request('GET', PATHS.payInStatus('not a reference'), { key: unknownKey }), 401, 'UNAUTHORIZED');
    expectError(await h.request('GET', PATHS.payInStatus('PI-000000000000'), { key: unknownKey }), 401, 'UNAUTHORIZED');
    expectError(await h.request('GET', PATHS.payInStatus('PI-000000000000'), {}), 401, 'UNAUTHORIZED');
    expectError(await h.request('GET', PATHS.payInStatus('PI-000000000000'), { key: t.key }), 404, 'TRANSACTION_NOT_FOUND');
    expect(expectSuccess(await h.request('GET', PATHS.payInStatus(payIn), { key: t.key }), 200)).toMatchObject({ reference: payIn });
  });
});

describe('formatLocalTimestamp', () => {
  const zone = process.env.TZ;
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('has the form of the envelope: milliseconds, no zone', () => {
    process.env.TZ = 'Africa/Lagos';
    expect(formatLocalTimestamp(new Date('2026-11-20T13:03:07.123Z'))).toBe('2026-11-20T14:03:07.123');
    expect(formatLocalTimestamp(new Date('2026-12-31T23:30:00.000Z'))).toBe('2027-01-01T00:30:00.000');
    expect(formatLocalTimestamp(new Date('2026-03-05T08:04:09.007Z'))).toBe('2026-03-05T09:04:09.007');
    expect(formatLocalTimestamp(new Date('2026-10-09T09:59:59.045Z'))).toBe('2026-10-09T10:59:59.045');
  });
});
