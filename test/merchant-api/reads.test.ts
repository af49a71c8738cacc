/**
 * Reading with an API key, through real HTTP, the real database and the sandbox rail: the balance
 * (from the ledger, the key's application and environment) and the list of transactions (the
 * status view of each, newest first, filters, cursor paging that new transactions do not shift,
 * the key's scope), their bad parameters, and the OpenAPI description of the new routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../src/accounts/api-keys.ts';
import { envelopeOf } from '../../src/http/envelope.ts';
import { BALANCE_EXAMPLE, TRANSACTIONS_EXAMPLE } from '../../src/http/routes/merchant-reads.ts';
import { EVENTS_EXAMPLE } from '../../src/http/routes/events.ts';
import { eventsData } from '../../src/http/schemas/events.ts';
import { balanceData, transactionsData } from '../../src/http/schemas/merchant-reads.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { tenantBalances } from '../helpers/ledger.ts';
import { expectError, expectSuccess, FIELDS, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { describeApiKeySecurity } from '../helpers/security-suite.ts';
import { chargeTo, settle, transferTo } from '../helpers/webhooks.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const list = async (key: string, query = '') => expectSuccess(await h.request('GET', `/api/v1/transactions${query}`, { key }), 200);

/** The status read of `reference` by `key`. */
async function statusOf(key: string, reference: string) {
  const path = reference.startsWith('PO-') ? PATHS.payOutStatus(reference) : PATHS.payInStatus(reference);
  return expectSuccess(await h.request('GET', path, { key }), 200);
}

describe('GET /api/v1/balance', () => {
  it('shows a TEST application that never moved money its sandbox opening balance', async () => {
    const t = await h.createTenant();
    const data = expectSuccess(await h.request('GET', '/api/v1/balance', { key: t.key }), 200);
    expect(data).toEqual({
      applicationId: t.applicationId,
      environment: 'TEST',
      currency: 'XAF',
      availableAmount: h.config.sandboxOpeningBalance,
      pendingAmount: 0,
      reservedAmount: 0,
    });
  });

  it('reads the ledger: a successful charge is credited net of fees, a pending transfer reserves amount + fee', async () => {
    const t = await h.createTenant();
    await chargeTo(h, t, 'SUCCESS');
    const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 3000 }) }), 201);
    const data = expectSuccess(await h.request('GET', '/api/v1/balance', { key: t.key }), 200);
    const ledger = await tenantBalances(h, t);
    expect(data).toMatchObject({ availableAmount: ledger.available, pendingAmount: ledger.pending, reservedAmount: ledger.reserved });
    const transfer = await statusOf(t.key, created.reference);
    expect(data.reservedAmount).toBe(transfer.heldAmount);
    expect(data.reservedAmount).toBe(3000 + (transfer.feeAmount ?? 0));
    const charged = (await list(t.key, '?type=CHARGE')).items[0];
    expect(data.availableAmount + data.pendingAmount).toBe(h.config.sandboxOpeningBalance + charged.netAmount - data.reservedAmount);
  });

  it("is the key's environment: a LIVE key of the same application reads the LIVE balance", async () => {
    const t = await h.createTenant();
    await chargeTo(h, t, 'SUCCESS');
    const live = await rotateApiKey(h.services, { applicationId: t.applicationId, name: 'live', environment: 'LIVE' });
    const data = expectSuccess(await h.request('GET', '/api/v1/balance', { key: live.plainTextKey }), 200);
    expect(data).toEqual({ applicationId: t.applicationId, environment: 'LIVE', currency: 'XAF', availableAmount: 0, pendingAmount: 0, reservedAmount: 0 });
  });
});

describe('GET /api/v1/transactions', () => {
  let t: Tenant;
  let references: string[];
  beforeAll(async () => {
    t = await h.createTenant();
    // Oldest first: a successful charge, a declined one, a failed transfer, a pending checkout.
    const paid = await chargeTo(h, t, 'SUCCESS', 'CMD-1');
    const declined = await chargeTo(h, t, 'FAILED');
    const failed = await transferTo(h, t, 'FAILED');
    h.clock.advance(1000);
    const checkout = expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: { amount: 7000, currency: 'XAF' } }), 201);
    references = [paid, declined, failed, checkout.reference];
  });

  it('lists newest first, each item the status read plus direction, merchantReference, createdAt and updatedAt', async () => {
    const data = await list(t.key);
    expect(data.nextCursor).toBeNull();
    expect(data.items.map((i: any) => i.reference)).toEqual([...references].reverse());
    for (const item of data.items) {
      const { direction, merchantReference, createdAt, updatedAt, ...view } = item;
      expect(view).toEqual(await statusOf(t.key, item.reference));
      expect(Object.keys(view).sort()).toEqual(direction === 'PAY_IN' ? FIELDS.payInStatus : FIELDS.payOutStatus);
      expect(direction).toBe(item.reference.startsWith('PO-') ? 'PAY_OUT' : 'PAY_IN');
      expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
      expect(updatedAt >= createdAt).toBe(true);
    }
    expect(data.items.find((i: any) => i.reference === references[0]).merchantReference).toBe('CMD-1');
    expect(data.items.map((i: any) => i.status)).toEqual(['PENDING', 'FAILED', 'FAILED', 'SUCCESS']);
  });

  it('filters by status, type and creation time', async () => {
    const refs = async (query: string) => (await list(t.key, query)).items.map((i: any) => i.reference);
    expect(await refs('?status=FAILED')).toEqual([references[2], references[1]]);
    expect(await refs('?status=SUCCESS')).toEqual([references[0]]);
    expect(await refs('?type=CHARGE')).toEqual([references[1], references[0]]);
    expect(await refs('?type=PAYOUT')).toEqual([references[2]]);
    expect(await refs('?type=CHECKOUT&status=PENDING')).toEqual([references[3]]);
    expect(await refs('?type=REFUND')).toEqual([]);
    const checkout = (await list(t.key)).items[0];
    // The creation time as the API shows it (server local time, no zone) is a bound as it is.
    expect(await refs(`?from=${checkout.createdAt}`)).toEqual([references[3]]);
    expect(await refs(`?to=${checkout.createdAt}`)).toEqual([references[2], references[1], references[0]]);
    const at = new Date(h.clock.now().getTime() - 500).toISOString();
    expect(await refs(`?to=${at}&status=FAILED`)).toEqual([references[2], references[1]]);
    const day = checkout.createdAt.slice(0, 10);
    expect(await refs(`?from=${day}&to=${day}`)).toHaveLength(4);
  });

  it('walks every page with limit=1, no gap and no repeat, while new transactions are created', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const data: any = await list(t.key, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...data.items.map((i: any) => i.reference));
      cursor = data.nextCursor;
      pages += 1;
      // A transaction created mid-walk is newer than every page: it never shifts the walk.
      if (pages === 2) expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: { amount: 100, currency: 'XAF' } }), 201);
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual([...references].reverse());
    expect((await list(t.key, '?limit=2')).items).toHaveLength(2);
  });

  it("is scoped like the status reads: another application's key, or a LIVE key of the same application, lists none of them", async () => {
    const other = await h.createTenant();
    expect((await list(other.key)).items).toEqual([]);
    const u = await h.createTenant();
    await chargeTo(h, u, 'SUCCESS');
    expect((await list(u.key)).items).toHaveLength(1);
    const live = await rotateApiKey(h.services, { applicationId: u.applicationId, name: 'live', environment: 'LIVE' });
    expect(await list(live.plainTextKey)).toEqual({ items: [], nextCursor: null });
  });

  it('answers 400 INVALID_PARAMETER in French for every bad parameter, and accepts the limits 1 and 100', async () => {
    const cursor = (await list(t.key, '?limit=1')).nextCursor as string;
    const bad: [string, string][] = [
      ['status=DONE', 'status'],
      ['type=TRANSFER', 'type'],
      ['from=hier', 'from'],
      ['from=2026-02-31', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=2026-11-20&to=2026-11-19', 'to'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['cursor=nope', 'cursor'],
      [`cursor=${cursor}x`, 'cursor'],
      [`cursor=${Buffer.from('123:not-a-uuid-at-all-0000000000000000').toString('base64url')}`, 'cursor'],
      [`cursor=${'A'.repeat(201)}`, 'cursor'],
    ];
    for (const [query, field] of bad) {
      const data = expectError(await h.request('GET', `/api/v1/transactions?${query}`, { key: t.key }), 400, 'INVALID_PARAMETER');
      expect(Object.keys(data), query).toEqual([field]);
      expect(data[field]).not.toMatch(/invalid|expected|must/i);
    }
    expect((await list(t.key, '?limit=1')).items).toHaveLength(1);
    expect((await list(t.key, '?limit=100')).items.length).toBeGreaterThan(1);
  });
});

describe('/openapi.json', () => {
  it('describes the reads and the events API with an operationId, the API key, a description and a valid example', async () => {
    const doc = (await h.request('GET', '/openapi.json')).json;
    const routes: [string, string, unknown, { parse(value: unknown): unknown }][] = [
      ['/api/v1/balance', 'getBalance', BALANCE_EXAMPLE, envelopeOf(balanceData)],
      ['/api/v1/transactions', 'listTransactions', TRANSACTIONS_EXAMPLE, envelopeOf(transactionsData)],
      ['/api/v1/events', 'listEvents', EVENTS_EXAMPLE, envelopeOf(eventsData)],
    ];
    for (const [path, operationId, example, schema] of routes) {
      const operation = doc.paths[path].get;
      expect(operation.operationId).toBe(operationId);
      expect(operation.security).toEqual([{ apiKey: [] }]);
      expect(operation.description.length).toBeGreaterThan(40);
      const ok = operation.responses['200'];
      const documented = ok.content['application/json'].schema;
      expect(documented.example ?? documented.examples?.[0]).toEqual(example);
      expect(schema.parse(example)).toEqual(example);
    }
    expect(Object.keys(doc.components.securitySchemes)).toContain('apiKey');
  });
});

describe('a page of a transaction settled meanwhile', () => {
  it('shows its new status on the next read', async () => {
    const t = await h.createTenant();
    const created = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' } }), 201);
    expect((await list(t.key)).items[0]).toMatchObject({ reference: created.reference, status: 'PENDING', feeAmount: null });
    await settle(h);
    expect((await list(t.key)).items[0]).toMatchObject({ reference: created.reference, status: 'SUCCESS' });
  });
});

describeApiKeySecurity('API-key security of the reads and the events API', [
  { method: 'GET', path: '/api/v1/balance' },
  { method: 'GET', path: '/api/v1/transactions' },
  { method: 'GET', path: '/api/v1/events' },
]);
