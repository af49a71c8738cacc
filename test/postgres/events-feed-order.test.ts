/**
 * The events API's feed under concurrent writers: an event written by a database transaction that
 * has not committed yet holds back every event written after it, so a reader following
 * `nextCursor` never skips it once it commits. PostgreSQL only (this directory runs when
 * TEST_DATABASE_URL is set, as in CI): PGlite runs one transaction at a time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Db, transaction } from '../../src/db/client.ts';
import { insertEventWithDelivery } from '../../src/webhooks/webhook-events.ts';
import { startHarness, type Harness } from '../harness.ts';
import { expectSuccess } from '../helpers/merchant-api.ts';
import { chargeTo } from '../helpers/webhooks.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

it('lists an event committed late in its place, never after a cursor that passed it', async () => {
  const t = await h.createTenant();
  const events = async (query = '') => expectSuccess(await h.request('GET', `/api/v1/events${query}`, { key: t.key }), 200);
  const first = await chargeTo(h, t, 'SUCCESS');

  // A status change's transaction writes its event, then stays open…
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const isWritten = new Promise<void>((resolve) => (written = resolve));
  const slow = transaction(h.services.db, async (tx) => {
    await insertEventWithDelivery(tx, h.services, {
      applicationId: t.applicationId,
      environment: 'TEST',
      event: 'payment.late_success',
      data: { reference: 'PI-SLOW00000001' },
    });
    written();
    await released;
  });
  await isWritten;
  // …while another one commits a later event.
  const later = await chargeTo(h, t, 'FAILED');

  // The reader sees only what comes before the open transaction's event.
  const page = await events();
  expect(page.events.map((e: any) => e.payload.data.reference)).toEqual([first]);
  expect(page.hasMore).toBe(false);

  release();
  await slow;
  // From the reader's cursor: the late-committed event first, then the later one; nothing skipped.
  const next = await events(`?after=${page.nextCursor}`);
  expect(next.events.map((e: any) => e.payload.data.reference)).toEqual(['PI-SLOW00000001', later]);
  expect((await events()).events.map((e: any) => e.payload.data.reference)).toEqual([first, 'PI-SLOW00000001', later]);
});
