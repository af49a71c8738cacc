/**
 * The status read's data access (src/db/queries/api-keys.ts) on a real database: a read asked in
 * the turn its key's lookup started joins that lookup's statement, a read asked later gets its
 * own, and either way the row is the transaction as Drizzle reads it, scoped to the key's
 * application and environment; the use case gives the key's verdict once. Plus the envelope
 * timestamp's local-time form.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginApiKeyAuthentication } from '../../src/accounts/api-keys.ts';
import { connectionOf } from '../../src/db/handle.ts';
import { lookUpKey, readStatusWithKey } from '../../src/db/queries/api-keys.ts';
import { STATUS_VIEW_PROPERTIES, type StatusViewRow } from '../../src/db/queries/status-view.ts';
import { transactions } from '../../src/db/schema.ts';
import { formatLocalTimestamp } from '../../src/domain/clock.ts';
import { readTransactionStatus } from '../../src/payments/get-transaction.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';

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

/**
 * Key lookups (statements reading `api_keys` by key digest) sent to the database while `work`
 * runs, counted where the driver is called: the handle's client and, on PostgreSQL, its
 * generic-plan pool.
 */
async function keyStatementsDuring<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const connection = connectionOf(h.services.db);
  const drivers = [connection.client, connection.genericPlanPool].filter(Boolean) as unknown as { query: (...args: unknown[]) => unknown }[];
  let statements = 0;
  const originals = drivers.map((driver) => driver.query);
  drivers.forEach((driver, i) => {
    driver.query = function (this: unknown, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
      if (text?.includes('k.key_hash')) statements++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    return { result: await work(), statements };
  } finally {
    drivers.forEach((driver, i) => (driver.query = originals[i]!));
  }
}

describe('status reads with a key', () => {
  it('answer, joined to the key lookup of the same turn, the status view as Drizzle reads it, in one statement', async () => {
    const { result, statements } = await keyStatementsDuring(async () => {
      const lookup = lookUpKey(h.services.db, t.key);
      const read = await readStatusWithKey(h.services.db, lookup, { reference: payIn, direction: 'PAY_IN' });
      return { read, row: read?.transaction ?? null, answer: await lookup.answer };
    });
    expect(result.row).toEqual(await drizzleView(payIn));
    expect(Object.keys(result.row!)).toEqual([...STATUS_VIEW_PROPERTIES]);
    expect(result.row).toMatchObject({ reference: payIn, description: 'Commande 42', status: 'PENDING', refundedAmount: 0, isLateSuccess: false });
    // Joined: the read's answer is the lookup's own, the key with the read's row.
    expect(result.answer).toEqual({ key: expect.objectContaining({ applicationId: t.applicationId }), transaction: result.row });
    expect(result.read).toBe(result.answer);
    expect(statements).toBe(1);
  });

  it('answer a read asked after its lookup was sent with a statement of its own', async () => {
    const lookup = lookUpKey(h.services.db, t.key);
    await lookup.answer;
    const { result, statements } = await keyStatementsDuring(() => readStatusWithKey(h.services.db, lookup, { reference: payOut, direction: 'PAY_OUT' }));
    // The key looked up again, with the row.
    expect(result).toEqual({ key: expect.objectContaining({ applicationId: t.applicationId }), transaction: await drizzleView(payOut) });
    expect(statements).toBe(1);
  });

  it("find nothing of another application, of the other direction, or with an unknown key", async () => {
    const reads = [
      readStatusWithKey(h.services.db, lookUpKey(h.services.db, other.key), { reference: payIn, direction: 'PAY_IN' }),
      readStatusWithKey(h.services.db, lookUpKey(h.services.db, t.key), { reference: payIn, direction: 'PAY_OUT' }),
      readStatusWithKey(h.services.db, lookUpKey(h.services.db, `sk_test_${'0'.repeat(128)}`), { reference: payIn, direction: 'PAY_IN' }),
    ];
    // The keys found, their transactions not; the unknown key not found at all.
    expect(await Promise.all(reads)).toEqual([
      { key: expect.objectContaining({ applicationId: other.applicationId }), transaction: null },
      { key: expect.objectContaining({ applicationId: t.applicationId }), transaction: null },
      null,
    ]);
    expect(await lookUpKey(h.services.db, `sk_test_${'0'.repeat(128)}`).answer).toBeNull();
  });

  it("give the key's verdict once, from the read's answer, UNAUTHORIZED before TRANSACTION_NOT_FOUND", async () => {
    const key = beginApiKeyAuthentication(h.services, t.key);
    await expect(readTransactionStatus(h.services, key, 'PAY_IN', 'PI-000000000000')).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    // What the error handler then asks: the verdict the read already decided, the same object.
    const admitted = await key.verdict();
    expect(admitted).toMatchObject({ applicationId: t.applicationId, environment: 'TEST' });
    expect(await key.verdict()).toBe(admitted);
    const found = beginApiKeyAuthentication(h.services, t.key);
    expect(await readTransactionStatus(h.services, found, 'PAY_IN', payIn)).toEqual(await drizzleView(payIn));
    const refused = beginApiKeyAuthentication(h.services, `sk_test_${'0'.repeat(128)}`);
    await expect(readTransactionStatus(h.services, refused, 'PAY_IN', payIn)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(refused.verdict()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answer many reads of one turn, each with its own row', async () => {
    const lookups = Array.from({ length: 40 }, (_, i) => {
      const lookup = lookUpKey(h.services.db, i % 2 ? t.key : other.key);
      return readStatusWithKey(h.services.db, lookup, { reference: payIn, direction: 'PAY_IN' });
    });
    const rows = await Promise.all(lookups);
    rows.forEach((row, i) => (i % 2 ? expect(row?.transaction?.reference).toBe(payIn) : expect(row).toEqual({ key: expect.objectContaining({ applicationId: other.applicationId }), transaction: null })));
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
