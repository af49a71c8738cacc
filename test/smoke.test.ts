import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { pollOnce } from '../src/jobs/status-poller.ts';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => h.close());

describe('smoke', () => {
  it('charges and the backstop settles the sandbox charge', async () => {
    const created = await h.request('POST', '/api/v1/pay-in/charge', {
      key: t.key,
      body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '+237 677 00 00 01' },
    });
    expect(created.status).toBe(201);
    expect(created.json.data.payerAccount).toBe('237677000001');
    h.clock.advance(5000);
    await pollOnce(h.services);
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${created.json.data.reference}`, { key: t.key });
    expect(status.json.data.status).toBe('SUCCESS');
  });
});
