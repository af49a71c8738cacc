/**
 * No race can overdraw an account. 50 concurrent transfers against a balance that covers exactly 10
 * → exactly 10 accepted, 40 refused with INSUFFICIENT_BALANCE, the balance never negative, and the
 * ledger invariants hold afterwards. Retries of one keyed transfer all get the original, even when
 * it spent what they would have needed; a refused keyed transfer keeps no key. Meaningful on
 * PostgreSQL (`TEST_DATABASE_URL`, real concurrent connections); also run on PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { countTransactions, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { chargeTo, settle } from '../helpers/webhooks.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';

let h: Harness;

beforeAll(async () => {
  // Each transfer costs 100 (the rail's pay-out fee is 0): the opening balance covers 10.
  h = await startHarness({ SANDBOX_OPENING_BALANCE: '1000', PG_POOL_MAX: '20' });
});
afterAll(async () => h?.close());

/**
 * Two transfers of 100 one after the other: the first writes `t`'s opening balance (1 000), the
 * second finds it written, so later transfers are each written by one statement of their own. 800 left.
 */
async function openingKnown(t: Tenant): Promise<void> {
  for (const n of [1, 2]) expect((await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 100, merchantReference: `S-${n}` }) })).status).toBe(201);
}

describe('funded transfers under concurrency', () => {
  it('50 concurrent transfers against a balance covering 10: exactly 10 accepted, never negative', async () => {
    const t = await h.createTenant();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 100, merchantReference: `W-${i}` }) }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 400)).toHaveLength(40);
    for (const r of responses.filter((x) => x.status === 400)) expect(r.json.code).toBe('INSUFFICIENT_BALANCE');
    expect(await tenantBalances(h, t)).toEqual({ available: 0, pending: 0, reserved: 1000 });
    await settle(h);
    expect(await tenantBalances(h, t)).toEqual({ available: 0, pending: 0, reserved: 0 });
    await expectLedgerBalanced(h.services.db);
  });

  it('once the opening balance is written, 40 concurrent transfers of one merchant take exactly what it covers', async () => {
    const t = await h.createTenant();
    await openingKnown(t);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 150, merchantReference: `C-${i}` }) })),
    );
    // 800 left covers 5 transfers of 150 (750), not 6.
    expect(responses.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of responses.filter((x) => x.status !== 201)) expect(r.json.code).toBe('INSUFFICIENT_BALANCE');
    expect(await tenantBalances(h, t)).toEqual({ available: 50, pending: 0, reserved: 950 });
    await settle(h);
    expect(await tenantBalances(h, t)).toEqual({ available: 50, pending: 0, reserved: 0 });
    await expectLedgerBalanced(h.services.db);
  });

  it('20 concurrent retries of one keyed transfer that spends nearly all the balance: each gets the original, none refused', async () => {
    const t = await h.createTenant();
    await openingKnown(t);
    const body = transferBody({ amount: 600, merchantReference: 'VIR-600' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => h.request('POST', PATHS.transfer, { key: t.key, body, headers: { 'Idempotency-Key': 'vir-600' } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 201));
    expect(new Set(responses.map((r) => r.json.data.reference)).size).toBe(1);
    expect(await countTransactions(h, t.applicationId)).toBe(3);
    expect(await tenantBalances(h, t)).toEqual({ available: 200, pending: 0, reserved: 800 });
    await expectLedgerBalanced(h.services.db);
  });

  it('a keyed transfer the balance does not cover keeps no key: its retry once the balance covers it is sent', async () => {
    const t = await h.createTenant();
    await openingKnown(t);
    const retry = () => h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 2000 }), headers: { 'Idempotency-Key': 'vir-2000' } });
    expectError(await retry(), 400, 'INSUFFICIENT_BALANCE');
    await chargeTo(h, t, 'SUCCESS');
    const sent = expectSuccess(await retry(), 201);
    expect(expectSuccess(await retry(), 201)).toEqual(sent);
    expect(await countTransactions(h, t.applicationId)).toBe(4);
  });

  it('concurrent pay-in successes and pay-outs of many merchants never deadlock and keep the ledger balanced', async () => {
    const tenants = await Promise.all(Array.from({ length: 5 }, () => h.createTenant()));
    const work = tenants.flatMap((t) => [
      chargeTo(h, t, 'SUCCESS'),
      h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 500 }) }),
      h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 500 }) }),
    ]);
    await Promise.all(work);
    await settle(h);
    for (const t of tenants) {
      const b = await tenantBalances(h, t);
      // 1 000 opening + 4 925 collected − 2 × 500 paid out
      expect(b).toEqual({ available: 1000 + 4925 - 1000, pending: 0, reserved: 0 });
    }
    await expectLedgerBalanced(h.services.db);
  });
});
