/**
 * Status reads are answered by statements shared by every read of the same moment (the
 * `perDatabase` batches of src/db/batch.ts, split into statements of at most 32 reads). Whatever
 * the batching, each read gets its own answer: its own transaction, only if its key's application
 * owns it, and 401 for a refused key, even when many reads of several merchants arrive together. A
 * turn's statement looks each distinct key up once: a suspended merchant's key, read in the same
 * turns as active ones, is still refused on each of its reads, and theirs still admitted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { asAccount, createStaffAccount } from '../helpers/dashboard.ts';
import { chargeBody, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let a: Tenant;
let b: Tenant;
let suspended: Tenant;
beforeAll(async () => {
  h = await startHarness();
  suspended = await h.createTenant();
  a = await h.createTenant();
  b = await h.createTenant();
});
afterAll(async () => {
  await h?.close();
});

/** Creates `count` charges of `tenant` with amounts base, base + 1…; returns reference → amount. */
async function charges(tenant: Tenant, count: number, base: number): Promise<Map<string, number>> {
  const created = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const response = await h.request('POST', PATHS.charge, { key: tenant.key, body: chargeBody({ amount: base + i }) });
    expect(response.status).toBe(201);
    created.set(response.json.data.reference, base + i);
  }
  return created;
}

describe('concurrent status reads', () => {
  it('each of 220 simultaneous reads of three merchants, one suspended, gets its own transaction, or its own refusal', async () => {
    const ofA = await charges(a, 40, 1000);
    const ofB = await charges(b, 40, 2000);
    const transfer = await h.request('POST', PATHS.transfer, { key: a.key, body: transferBody({ amount: 3000 }) });
    expect(transfer.status).toBe(201);
    const payOut = transfer.json.data.reference as string;
    const ofSuspended = await charges(suspended, 20, 3000);
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    const suspension = await asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/merchants/${suspended.merchantId}/status`, { body: { status: 'SUSPENDED' } });
    expect(suspension.status).toBe(200);

    type Read = { key: string; path: string; status: number; amount?: number; reference?: string };
    const reads: Read[] = [];
    // First in each turn's batch, so its key comes first among the distinct keys looked up.
    for (const reference of ofSuspended.keys()) reads.push({ key: suspended.key, path: PATHS.payInStatus(reference), status: 401 });
    for (const [reference, amount] of ofA) {
      reads.push({ key: a.key, path: PATHS.payInStatus(reference), status: 200, amount, reference });
      reads.push({ key: b.key, path: PATHS.payInStatus(reference), status: 404 });
    }
    for (const [reference, amount] of ofB) {
      reads.push({ key: b.key, path: PATHS.payInStatus(reference), status: 200, amount, reference });
      reads.push({ key: `${a.key.slice(0, -4)}0000`, path: PATHS.payInStatus(reference), status: 401 });
    }
    for (let i = 0; i < 40; i++) {
      reads.push(i % 2 ? { key: a.key, path: PATHS.payOutStatus(payOut), status: 200, amount: 3000, reference: payOut } : { key: a.key, path: PATHS.payOutStatus([...ofA.keys()][i]!), status: 404 });
    }
    expect(reads).toHaveLength(220);

    // Twice: the second time over the connections the first opened, so the reads arrive together.
    await Promise.all(reads.map((read) => h.request('GET', read.path, { key: read.key })));
    const answers = await Promise.all(reads.map((read) => h.request('GET', read.path, { key: read.key })));
    answers.forEach((answer, i) => {
      const read = reads[i]!;
      expect(answer.status, `${read.path} ${answer.text}`).toBe(read.status);
      if (read.status === 200) expect(answer.json.data).toMatchObject({ reference: read.reference, amount: read.amount });
      if (read.status === 404) expect(answer.json.code).toBe('TRANSACTION_NOT_FOUND');
      if (read.status === 401) expect(answer.json.code).toBe('UNAUTHORIZED');
    });
  });

  it('simultaneous charges of three merchants, one suspended: each created for its own key, the suspended one refused', async () => {
    const tenants = [suspended, a, b, a, b];
    const asked = Array.from({ length: 60 }, (_, i) => tenants[i % tenants.length]!);
    // Twice, as above: the second time over open connections, so the key lookups share turns.
    for (const round of [0, 1]) {
      const answers = await Promise.all(
        asked.map((tenant, i) => h.request('POST', PATHS.charge, { key: tenant.key, body: chargeBody({ amount: 5000 + i, merchantReference: `together-${round}-${i}` }) })),
      );
      for (const [i, answer] of answers.entries()) {
        const tenant = asked[i]!;
        if (tenant === suspended) {
          expect(answer.status, answer.text).toBe(401);
          continue;
        }
        expect(answer.status, answer.text).toBe(201);
        const reference = answer.json.data.reference as string;
        const own = await h.request('GET', PATHS.payInStatus(reference), { key: tenant.key });
        expect(own.json.data, `${reference} read by its own key`).toMatchObject({ reference, amount: 5000 + i });
        const other = await h.request('GET', PATHS.payInStatus(reference), { key: (tenant === a ? b : a).key });
        expect(other.status).toBe(404);
      }
    }
  });
});
