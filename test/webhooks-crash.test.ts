/**
 * Webhook durability across a real crash: no status change without its delivery, ever, including
 * after kill -9 at any moment, and a crash between commit and send recovered on restart. The real
 * `kolo serve` runs as a child process on a real database (PGlite in a temporary directory, or a
 * fresh PostgreSQL database with TEST_DATABASE_URL), is killed with SIGKILL, and restarted on the
 * same database; a local node:http receiver plays the merchant. Between runs the test opens the
 * database itself to see what the crash left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { freshCliDatabase, runKolo, startServe, type CliDatabase, type ServeProcess } from './helpers/cli.ts';
import { openDatabase } from '../src/db/client.ts';
import { transactionEvents, transactions } from '../src/db/schema.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../src/db/schema-webhooks.ts';
import { eventNameFor } from '../src/webhooks/webhook-events.ts';
import { loadConfig } from '../src/config.ts';

const WEBHOOK_TIMEOUT_MS = 2000;
const WEBHOOK_LEASE_MS = 4000;
const CONNECTOR_TIMEOUT_MS = 1000;
const POLLER_LEASE_MS = 3000;
const TERMINAL = new Set(['SUCCESS', 'FAILED', 'CANCELLED']);

/** One request the receiver got (recorded once its body has arrived). */
interface Hit {
  webhookId: string;
  body: { id: string; event: string; data: { reference: string; status: string } };
}

/** A merchant's endpoint: `hang` holds every request unanswered; otherwise 200 after `delayMs()`. */
interface CrashReceiver {
  url: string;
  hits: Hit[];
  hang: boolean;
  delayMs: () => number;
  close(): Promise<void>;
}

async function startCrashReceiver(): Promise<CrashReceiver> {
  const receiver = { hits: [] as Hit[], hang: false, delayMs: () => 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      receiver.hits.push({ webhookId: String(req.headers['webhook-id'] ?? ''), body: JSON.parse(raw) });
      // A hung request is never answered: the sender's only way out is its timeout (or death).
      if (receiver.hang) return;
      setTimeout(() => res.writeHead(200).end('ok'), receiver.delayMs());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/kolo`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Polls `check` every 50 ms until it holds; throws after `timeoutMs` with `what` and `detail()`. */
async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let db: CliDatabase;
let dir: string;
let env: Record<string, string>;
const servers = new Set<ServeProcess>();
let receiverA: CrashReceiver;
let receiverB: CrashReceiver;
let appA: { id: string; key: string };
let appB: { id: string; key: string };

/** Starts `kolo serve` on the test database and waits until it answers. */
async function serve(): Promise<ServeProcess> {
  const s = await startServe(env);
  servers.add(s);
  await s.waitUntilHealthy(60_000);
  return s;
}

/** kill -9: no signal handler, no graceful stop, nothing flushed. */
async function kill9(s: ServeProcess): Promise<void> {
  const child = s.child;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  servers.delete(s);
}

async function stop(s: ServeProcess): Promise<void> {
  const code = await s.stop();
  servers.delete(s);
  expect(code, s.output()).toBe(0);
}

/** What the database holds for one application, read by this process while no server runs. */
async function inspect(applicationId: string) {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR! });
  try {
    const d = database.db;
    const txs = await d.select().from(transactions).where(eq(transactions.applicationId, applicationId)).orderBy(asc(transactions.createdAt));
    const events = await d.select().from(webhookEvents).where(eq(webhookEvents.applicationId, applicationId));
    const deliveries = await d.select().from(webhookDeliveries).where(eq(webhookDeliveries.applicationId, applicationId));
    const ids = txs.map((t) => t.id);
    const transitions = ids.length ? await d.select().from(transactionEvents).where(inArray(transactionEvents.transactionId, ids)) : [];
    const deliveryIds = deliveries.map((x) => x.id);
    const attempts = deliveryIds.length ? await d.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)) : [];
    return { txs, events, deliveries, transitions, attempts };
  } finally {
    await database.close();
  }
}

function summary(state: Awaited<ReturnType<typeof inspect>>): string {
  return state.txs
    .map((t) => {
      const events = state.events.filter((e) => e.transactionId === t.id);
      const deliveries = events.map((e) => state.deliveries.find((x) => x.eventId === e.id));
      return `${t.reference} ${t.status} initiated=${t.initiatedAt ? 'yes' : 'no'} events=${events.length} deliveries=${deliveries
        .map((x) => `${x?.status}/${x?.attemptCount}${x?.leaseToken ? '/leased' : ''}`)
        .join(',')}`;
    })
    .join('\n');
}

async function createCharge(app: { key: string }, s: ServeProcess, payerAccount: string): Promise<string> {
  const response = await fetch(`${s.baseUrl}/api/v1/pay-in/charge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': app.key },
    body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`charge: HTTP ${response.status} ${text}`);
  return JSON.parse(text).data.reference as string;
}

async function checkStatus(app: { key: string }, s: ServeProcess, reference: string): Promise<string> {
  const response = await fetch(`${s.baseUrl}/api/v1/pay-in/check_status/${reference}`, {
    headers: { 'x-api-key': app.key },
    signal: AbortSignal.timeout(5000),
  });
  return ((await response.json()) as { data: { status: string } }).data.status;
}

async function kolo(args: string[]): Promise<Record<string, string>> {
  const run = await runKolo([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`kolo ${args.join(' ')} → ${run.code}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  db = await freshCliDatabase();
  dir = mkdtempSync(join(tmpdir(), 'kolo-crash-'));
  env = {
    ...db.env,
    // Files the server may generate (keys) stay out of the repository, on PostgreSQL too.
    DATA_DIR: db.env.DATA_DIR ?? join(dir, 'data'),
    WEBHOOK_ENCRYPTION_KEY: 'ab'.repeat(32),
    JWT_SECRET: 'crash-test-jwt-secret-0123456789abcdef',
    DEMO_SEED: 'false',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    SANDBOX_DELAY_MS: '0',
    POLLER_ENABLED: 'true',
    POLLER_INTERVAL_MS: '100',
    POLLER_LEASE_MS: String(POLLER_LEASE_MS),
    CONNECTOR_TIMEOUT_MS: String(CONNECTOR_TIMEOUT_MS),
    WEBHOOK_WORKER_INTERVAL_MS: '100',
    WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    WEBHOOK_LEASE_MS: String(WEBHOOK_LEASE_MS),
  };
  [receiverA, receiverB] = await Promise.all([startCrashReceiver(), startCrashReceiver()]);
  const merchant = await kolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', 'awa.crash@example.cm']);
  for (const [name, receiver] of [
    ['Boutique A', receiverA],
    ['Boutique B', receiverB],
  ] as const) {
    const app = await kolo(['apps', 'create', '--merchant', merchant.id!, '--name', name, '--currency', 'XAF', '--webhook-url', receiver.url]);
    const key = await kolo(['keys', 'create', '--app', app.id!]);
    if (name === 'Boutique A') appA = { id: app.id!, key: key.plainTextKey! };
    else appB = { id: app.id!, key: key.plainTextKey! };
  }
}, 120_000);

afterAll(async () => {
  for (const s of servers) await kill9(s);
  await Promise.all([receiverA?.close(), receiverB?.close()]);
  await db?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('lease configuration', () => {
  it('refuses a lease that does not outlast the call it covers', () => {
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '15000', WEBHOOK_LEASE_MS: '15500' })).toThrow(/WEBHOOK_LEASE_MS: must be at least WEBHOOK_TIMEOUT_MS \+ 1000/);
    expect(() => loadConfig({ CONNECTOR_TIMEOUT_MS: '5000', POLLER_LEASE_MS: '5000' })).toThrow(/POLLER_LEASE_MS: must be at least CONNECTOR_TIMEOUT_MS \+ 1000/);
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '3000' }).webhookLeaseMs).toBe(3000);
    expect(loadConfig({}).webhookLeaseMs).toBe(120_000);
    expect(loadConfig({}).pollerLeaseMs).toBe(60_000);
    // Unset, the poller's lease follows a long operator timeout.
    expect(loadConfig({ CONNECTOR_TIMEOUT_MS: '90000' }).pollerLeaseMs).toBe(95_000);
  });
});

describe('kill -9 of the server', () => {
  it('while a delivery is in flight: after restart the same event is delivered, once recorded', async () => {
    receiverA.hang = true;
    const first = await serve();
    const reference = await createCharge(appA, first, '237677000001');
    await waitUntil(() => receiverA.hits.length >= 1, 20_000, 'the first delivery', () => first.output());
    const inFlight = receiverA.hits[0]!;
    await kill9(first);
    expect(receiverA.hits).toHaveLength(1);
    expect(inFlight.body).toMatchObject({ event: 'payment.success', id: inFlight.webhookId, data: { reference, status: 'SUCCESS' } });

    // What the crash left: the status change and its event committed, the claim still held, no attempt recorded.
    const crashed = await inspect(appA.id);
    expect(crashed.txs.map((t) => t.status)).toEqual(['SUCCESS']);
    expect(crashed.events.map((e) => e.id)).toEqual([inFlight.webhookId]);
    expect(crashed.deliveries).toHaveLength(1);
    expect(crashed.deliveries[0]).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    expect(crashed.deliveries[0]!.leaseToken).not.toBeNull();
    expect(crashed.attempts).toHaveLength(0);

    receiverA.hang = false;
    const second = await serve();
    await waitUntil(() => receiverA.hits.length >= 2, WEBHOOK_LEASE_MS + 20_000, 'the delivery after restart', () => second.output());
    const resent = receiverA.hits[1]!;
    expect(resent.webhookId).toBe(inFlight.webhookId);
    expect(resent.body.id).toBe(inFlight.webhookId);
    expect(resent.body.event).toBe('payment.success');
    expect(resent.body.data).toMatchObject({ reference, status: 'SUCCESS' });
    await stop(second);

    const final = await inspect(appA.id);
    expect(final.txs.map((t) => t.status)).toEqual(['SUCCESS']);
    expect(final.events.map((e) => e.id)).toEqual([inFlight.webhookId]);
    expect(final.transitions.filter((e) => e.toStatus === 'SUCCESS')).toHaveLength(1);
    expect(final.deliveries[0]).toMatchObject({ status: 'DELIVERED', attemptCount: 1, httpStatus: 200, leaseToken: null });
    expect(final.attempts.map((a) => a.httpStatus)).toEqual([200]);
    expect(receiverA.hits).toHaveLength(2);
  }, 90_000);

  it('at random moments around charges settling: every status change has exactly one event, and each is delivered', async () => {
    // Answers take 0-100 ms, so kills often land with deliveries in flight.
    receiverB.delayMs = () => Math.floor(Math.random() * 100);
    const payers = ['237677000001', '237677000002', '237677000003', '237677000004', '237677000100'];
    const crashes: string[] = [];

    // Round 1: killed while the charges are being created (commit, operator call, answer).
    const round1 = await serve();
    const creating = Promise.allSettled(payers.map((p) => createCharge(appB, round1, p)));
    const delay1 = Math.floor(Math.random() * 300);
    await new Promise((r) => setTimeout(r, delay1));
    await kill9(round1);
    const created1 = await creating;
    crashes.push(`round 1: killed ${delay1} ms after sending 5 charges; ${created1.filter((c) => c.status === 'fulfilled').length} answered`);
    crashes.push(summary(await inspect(appB.id)));

    // Round 2: killed while charges settle and their webhooks go out.
    // The charges are spread ~60 ms apart, so their polls (2 s after each) are spread too: the
    // kill finds some settled and delivered, some being settled or sent, some still pending.
    const round2 = await serve();
    const created2: string[] = [];
    for (const p of payers) {
      created2.push(await createCharge(appB, round2, p));
      await new Promise((r) => setTimeout(r, 60));
    }
    await waitUntil(() => receiverB.hits.some((h) => created2.includes(h.body.data?.reference)), 20_000, 'a delivery of round 2', () => round2.output());
    const delay2 = Math.floor(Math.random() * 300);
    await new Promise((r) => setTimeout(r, delay2));
    await kill9(round2);
    const crashed = await inspect(appB.id);
    crashes.push(`round 2: killed ${delay2} ms after the first delivery of a round-2 charge`, summary(crashed));
    console.info(`[webhooks-crash] ${crashes.join('\n')}`);
    // Everything created with an answer exists (one more or less from round 1: a killed request may or may not have committed).
    expect(crashed.txs.length).toBeGreaterThanOrEqual(5 + created1.filter((c) => c.status === 'fulfilled').length);
    const references = crashed.txs.map((t) => t.reference);

    // Recovery: a clean run settles every transaction and delivers every event. What must go out
    // after the restart: each delivery the crash left PENDING (in flight or not yet sent, perhaps
    // already received: then twice), and an event for each transaction the crash left PENDING.
    const unsent = crashed.deliveries.filter((x) => x.status === 'PENDING').map((x) => x.eventId);
    const unsettled = crashed.txs.filter((t) => !TERMINAL.has(t.status)).map((t) => t.reference);
    const hitsBefore = receiverB.hits.length;
    const last = await serve();
    const pendingDetail = () => `${crashes.join('\n')}\n${last.output()}`;
    await waitUntil(
      async () => (await Promise.all(references.map((r) => checkStatus(appB, last, r)))).every((s) => TERMINAL.has(s)),
      CONNECTOR_TIMEOUT_MS + 5000 + POLLER_LEASE_MS + 20_000,
      'every transaction terminal',
      pendingDetail,
    );
    const after = () => receiverB.hits.slice(hitsBefore);
    await waitUntil(
      () => unsent.every((id) => after().some((h) => h.webhookId === id)) && unsettled.every((r) => after().some((h) => h.body.data?.reference === r)),
      WEBHOOK_LEASE_MS + 20_000,
      'the deliveries left by the crash',
      () => `received after restart: ${after().map((h) => `${h.body.data?.reference} ${h.webhookId}`).join(', ')}\n${pendingDetail()}`,
    );
    await stop(last);

    const final = await inspect(appB.id);
    const detail = `${crashes.join('\n')}\nfinal:\n${summary(final)}`;
    expect(final.txs.map((t) => t.reference).sort(), detail).toEqual([...references].sort());
    const receivedIds = receiverB.hits.map((h) => h.webhookId);
    for (const tx of final.txs) {
      expect(TERMINAL.has(tx.status), detail).toBe(true);
      // Exactly one status change to the terminal status, and exactly one event for it.
      expect(final.transitions.filter((e) => e.transactionId === tx.id && e.toStatus === tx.status), detail).toHaveLength(1);
      const events = final.events.filter((e) => e.transactionId === tx.id);
      expect(events, detail).toHaveLength(1);
      const event = events[0]!;
      expect(event.eventName).toBe(eventNameFor(tx));
      expect(JSON.parse(event.payload).data.status).toBe(tx.status);
      const deliveries = final.deliveries.filter((x) => x.eventId === event.id);
      expect(deliveries.map((x) => x.status), detail).toEqual(['DELIVERED']);
      // At least once: the receiver got it (twice is allowed when a kill came after the answer).
      expect(receivedIds, detail).toContain(event.id);
    }
    // Nothing was announced that the database does not hold (no delivery without its status change).
    const eventIds = new Set(final.events.map((e) => e.id));
    for (const hit of receiverB.hits) {
      expect(eventIds.has(hit.webhookId), detail).toBe(true);
      expect(hit.body.id).toBe(hit.webhookId);
    }
    // Money across the crashes: the ledger verifies.
    expect(((await kolo(['ledger', 'verify'])) as unknown as { ok: boolean }).ok).toBe(true);
    const duplicates = receivedIds.length - new Set(receivedIds).size;
    console.info(`[webhooks-crash] ${final.txs.length} transactions, ${final.events.length} events, ${receivedIds.length} requests received, ${duplicates} duplicate(s)`);
  }, 120_000);
});
