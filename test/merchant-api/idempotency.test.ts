/**
 * Idempotency (the charge's `idempotencyKey` body field, extended by the `Idempotency-Key` header
 * to the three create endpoints): a repeat returns the original result and never creates a second
 * transaction, sequentially and under 50 concurrent identical requests (no 500); a reused key with
 * another body is a 409; keys are scoped to the application and kept 24 hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { eq } from 'drizzle-orm';
import { providers } from '../../src/db/schema.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, checkoutBody, countTransactions, expectError, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  // Concurrent creations with one key: the ledger still balances.
  if (h) await expectLedgerBalanced(h.services.db);
  await h?.close();
});

const post = (tenant: Tenant, path: string, body: unknown, headers: Record<string, string> = {}) =>
  h.request('POST', path, { key: tenant.key, body, headers });

describe('charge idempotencyKey', () => {
  it('a sequential repeat returns the same reference and data (201) and creates one transaction', async () => {
    const t = await h.createTenant();
    const body = chargeBody({ idempotencyKey: 'order-1001', description: 'Commande 1001', payerName: 'Jean' });
    const first = await post(t, PATHS.charge, body);
    const second = await post(t, PATHS.charge, body);
    const third = await post(t, PATHS.charge, { ...body });
    const data = expectSuccess(first, 201);
    expect(expectSuccess(second, 201)).toEqual(data);
    expect(expectSuccess(third, 201)).toEqual(data);
    expect(second.json.message).toBe(first.json.message);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('field order does not matter', async () => {
    const t = await h.createTenant();
    const a = expectSuccess(
      await post(t, PATHS.charge, { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey: 'k' }),
      201,
    );
    const b = expectSuccess(
      await post(t, PATHS.charge, { idempotencyKey: 'k', payerAccount: '237677000001', paymentMethod: 'MTN_MOMO_CM', currency: 'XAF', amount: 5000 }),
      201,
    );
    expect(b.reference).toBe(a.reference);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('the original result is returned even after the transaction has moved on', async () => {
    const t = await h.createTenant();
    const body = chargeBody({ idempotencyKey: 'settled' });
    const data = expectSuccess(await post(t, PATHS.charge, body), 201);
    h.clock.advance(h.config.sandboxDelayMs + 1000);
    await pollOnce(h.services);
    const status = expectSuccess(await h.request('GET', PATHS.payInStatus(data.reference), { key: t.key }), 200);
    expect(status.status).toBe('SUCCESS');
    expect(expectSuccess(await post(t, PATHS.charge, body), 201)).toEqual(data);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('50 identical concurrent requests: all 201, one reference, one transaction, no 500', async () => {
    const t = await h.createTenant();
    const body = chargeBody({ idempotencyKey: `idem-${Date.now()}-v1` });
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(t, PATHS.charge, body)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([201]));
    const data = responses.map((r) => expectSuccess(r, 201));
    expect(new Set(data.map((d) => d.reference)).size).toBe(1);
    for (const d of data) expect(d).toEqual(data[0]);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('the same key with a different body is refused with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const t = await h.createTenant();
    expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'reused' })), 201);
    for (const change of [{ amount: 5001 }, { payerAccount: '237677000002' }, { description: 'autre' }, { paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '699000001' }]) {
      const response = await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'reused', ...change }));
      expectError(response, 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(response.json.message).toMatch(/idempotence/);
    }
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('a different body under the same key, concurrently: one wins, the others get 409, never a 500', async () => {
    const t = await h.createTenant();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(t, PATHS.charge, chargeBody({ idempotencyKey: 'race', amount: 1000 + i }))),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('keys are scoped to the application', async () => {
    const a = await h.createTenant();
    const b = await h.createTenant();
    const body = chargeBody({ idempotencyKey: 'ORDER-42' });
    const fromA = expectSuccess(await post(a, PATHS.charge, body), 201);
    const fromB = expectSuccess(await post(b, PATHS.charge, body), 201);
    expect(fromB.reference).not.toBe(fromA.reference);
    expect(await countTransactions(h, a.applicationId)).toBe(1);
    expect(await countTransactions(h, b.applicationId)).toBe(1);
    // Each application's repeat still returns its own transaction.
    expect(expectSuccess(await post(b, PATHS.charge, body), 201).reference).toBe(fromB.reference);
  });

  it('without a key, every request creates a transaction', async () => {
    const t = await h.createTenant();
    const first = expectSuccess(await post(t, PATHS.charge, chargeBody()), 201);
    const second = expectSuccess(await post(t, PATHS.charge, chargeBody()), 201);
    expect(second.reference).not.toBe(first.reference);
    expect(await countTransactions(h, t.applicationId)).toBe(2);
  });
});

describe('Idempotency-Key header', () => {
  it.each([
    ['checkout', PATHS.checkout, checkoutBody()],
    ['charge', PATHS.charge, chargeBody()],
    ['transfer', PATHS.transfer, transferBody()],
  ])('%s: a repeat returns the original result and creates one transaction', async (_name, path, body) => {
    const t = await h.createTenant();
    const headers = { 'Idempotency-Key': '3f0c9a8e-6f1e-4c1b-9a57-2f8d1c3e4b5a' };
    const first = expectSuccess(await post(t, path, body, headers), 201);
    const second = expectSuccess(await post(t, path, body, headers), 201);
    expect(second).toEqual(first);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
    expectError(await post(t, path, { ...body, amount: 4321 }, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('transfer: 50 concurrent identical requests send the money once', async () => {
    const t = await h.createTenant();
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(t, PATHS.transfer, transferBody(), { 'Idempotency-Key': 'payout-7' })));
    expect(responses.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
    expect(new Set(responses.map((r) => r.json.data.reference)).size).toBe(1);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('a key used on one endpoint cannot be reused on another', async () => {
    const t = await h.createTenant();
    expectSuccess(await post(t, PATHS.charge, chargeBody(), { 'Idempotency-Key': 'shared' }), 201);
    expectError(await post(t, PATHS.transfer, transferBody(), { 'Idempotency-Key': 'shared' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('the body idempotencyKey and the header are the same key', async () => {
    const t = await h.createTenant();
    const viaBody = expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'same' })), 201);
    const viaHeader = expectSuccess(await post(t, PATHS.charge, chargeBody(), { 'Idempotency-Key': 'same' }), 201);
    expect(viaHeader.reference).toBe(viaBody.reference);
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });

  it('a blank header is a VALIDATION_ERROR', async () => {
    const t = await h.createTenant();
    expectError(await post(t, PATHS.charge, chargeBody(), { 'Idempotency-Key': '   ' }), 400, 'VALIDATION_ERROR');
  });
});

describe('key lifetime', () => {
  it('a key is remembered for 24 hours, then purged and free to use again', async () => {
    const t = await h.createTenant();
    const body = chargeBody({ idempotencyKey: 'daily' });
    const original = expectSuccess(await post(t, PATHS.charge, body), 201);

    h.clock.advance(24 * 3_600_000 - 60_000);
    await pollOnce(h.services);
    expect(expectSuccess(await post(t, PATHS.charge, body), 201).reference).toBe(original.reference);
    expectError(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'daily', amount: 7000 })), 409, 'IDEMPOTENCY_KEY_REUSED');

    h.clock.advance(60_001);
    await pollOnce(h.services);
    const reused = expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'daily', amount: 7000 })), 201);
    expect(reused.reference).not.toBe(original.reference);
    expect(reused.amount).toBe(7000);
    expect(await countTransactions(h, t.applicationId)).toBe(2);
    // The new use is itself remembered.
    expect(expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'daily', amount: 7000 })), 201).reference).toBe(reused.reference);
  });

  it('an expired key not yet purged is taken over as well', async () => {
    const t = await h.createTenant();
    const original = expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'unpurged' })), 201);
    h.clock.advance(24 * 3_600_000 + 1);
    const again = expectSuccess(await post(t, PATHS.charge, chargeBody({ idempotencyKey: 'unpurged' })), 201);
    expect(again.reference).not.toBe(original.reference);
  });
});

describe('replays do not depend on the state of the rail', () => {
  it('a repeat after the rail was deactivated still returns the original result, not PROVIDER_NOT_FOUND', async () => {
    const t = await h.createTenant();
    const body = chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699000001', idempotencyKey: 'order-rail-off' });
    const first = expectSuccess(await post(t, PATHS.charge, body), 201);
    await h.services.db.update(providers).set({ active: false }).where(eq(providers.code, 'ORANGE_MONEY_CM'));
    try {
      expect(expectSuccess(await post(t, PATHS.charge, body), 201)).toEqual(first);
      // A new key on the inactive rail is refused as usual.
      expectError(await post(t, PATHS.charge, { ...body, idempotencyKey: 'order-rail-off-2' }), 404, 'PROVIDER_NOT_FOUND');
    } finally {
      await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, 'ORANGE_MONEY_CM'));
    }
    expect(await countTransactions(h, t.applicationId)).toBe(1);
  });
});
