/**
 * The retention job purges finished webhook deliveries (with their attempts and events), events of
 * finished transactions and audit entries past their ages, in bounded batches, and never what a
 * PENDING delivery or a PENDING transaction still needs; transactions themselves are kept for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq, inArray, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeTo, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { asAccount, createDashboardAccount, createStaffAccount } from '../helpers/dashboard.ts';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { purgeOnce } from '../../src/jobs/retention.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../../src/db/schema-webhooks.ts';
import { auditLog } from '../../src/db/schema-dashboard.ts';

const DAY = 86_400_000;
let h: Harness;
let t: Tenant;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHarness({
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    PASSWORD_SCRYPT_LOG_N: '14',
    RETENTION_WEBHOOK_DAYS: '30',
    RETENTION_TRANSACTION_EVENT_DAYS: '60',
    RETENTION_AUDIT_DAYS: '90',
    RETENTION_BATCH_SIZE: '2',
  });
  receiver = await startReceiver();
  t = await h.createTenant();
  expect((await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl: receiver.url } })).status).toBe(200);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** Rows of `table` (matching `where`). */
async function rows(table: PgTable, where?: SQL): Promise<number> {
  const query = h.services.db.select({ n: count() }).from(table);
  const [{ n }] = (await (where ? query.where(where) : query)) as [{ n: number }];
  return Number(n);
}

describe('retention', () => {
  it('purges old finished rows in bounded batches and keeps what pending work needs', async () => {
    // Old: three delivered payment webhooks, one delivery still failing (PENDING), one PENDING
    // charge that never resolves, and audit entries.
    const delivered = [await chargeTo(h, t, 'SUCCESS'), await chargeTo(h, t, 'SUCCESS'), await chargeTo(h, t, 'FAILED')];
    await deliverOnce(h.services);
    receiver.fallback = { status: 500 };
    const retried = await chargeTo(h, t, 'SUCCESS');
    await deliverOnce(h.services);
    const pending = await h.request('POST', '/api/v1/pay-in/charge', { key: t.key, body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000199' } });
    expect(pending.status).toBe(201);
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    const merchant = await createDashboardAccount(h);
    expect((await asAccount(h, admin.accessToken, 'PATCH', `/api/v1/admin/merchants/${merchant.accountId}/kyc`, { body: { kycLevel: 'BASIC' } })).status).toBe(200);
    const auditBefore = await rows(auditLog);
    expect(auditBefore).toBeGreaterThan(0);

    // 29 days later: nothing is old enough yet.
    h.clock.advance(29 * DAY);
    expect(await purgeOnce(h.services)).toEqual({ webhookAttempts: 0, webhookDeliveries: 0, webhookEvents: 0, transactionEvents: 0, auditEntries: 0 });

    // 31 days: finished webhook deliveries go (batches of 2: bounded, yet all of them in one run).
    h.clock.advance(2 * DAY);
    const first = await purgeOnce(h.services);
    expect(first).toMatchObject({ webhookAttempts: 3, webhookDeliveries: 3, webhookEvents: 3, transactionEvents: 0, auditEntries: 0 });
    const ids = (await h.services.db.select({ id: transactions.id, reference: transactions.reference }).from(transactions)).filter((r) => [...delivered, retried].includes(r.reference));
    const retriedId = ids.find((r) => r.reference === retried)!.id;
    // The failing delivery is PENDING: it keeps its attempt and its event.
    const [still] = await h.services.db
      .select()
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(eq(webhookEvents.transactionId, retriedId));
    expect(still?.webhook_deliveries.status).toBe('PENDING');
    expect(await rows(webhookAttempts, eq(webhookAttempts.deliveryId, still!.webhook_deliveries.id))).toBe(1);

    // 61 days: events of finished transactions go; the PENDING charge keeps its own.
    h.clock.advance(30 * DAY);
    const second = await purgeOnce(h.services);
    expect(second.transactionEvents).toBeGreaterThanOrEqual(8);
    expect(second.auditEntries).toBe(0);
    const pendingRow = (await h.services.db.select().from(transactions).where(eq(transactions.reference, pending.json.data.reference)))[0]!;
    expect(pendingRow.status).toBe('PENDING');
    expect(await rows(transactionEvents, eq(transactionEvents.transactionId, pendingRow.id))).toBeGreaterThan(0);
    expect(await rows(transactionEvents, inArray(transactionEvents.transactionId, ids.map((r) => r.id)))).toBe(0);

    // 91 days: audit entries go. Transactions are all still there.
    h.clock.advance(30 * DAY);
    expect((await purgeOnce(h.services)).auditEntries).toBe(auditBefore);
    expect(await rows(auditLog)).toBe(0);
    expect(await rows(transactions)).toBe(5);
    // The merchant still reads every transaction.
    for (const reference of [...delivered, retried]) {
      expect((await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: t.key })).status).toBe(200);
    }
    receiver.fallback = { status: 200 };
  });
});
