/**
 * The ledger across a real crash, and `kolo ledger fund` / `kolo ledger verify` as an operator runs
 * them. The real `kolo serve` runs as a child process on a real database (PGlite in a temporary
 * directory, or a fresh PostgreSQL database with TEST_DATABASE_URL) and is killed with SIGKILL in
 * the middle of a burst of transfers and charges; after a restart everything settles and
 * `kolo ledger verify` passes: nothing the crash interrupted left money half-moved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { freshCliDatabase, runKolo, startServe, type CliDatabase, type ServeProcess } from '../helpers/cli.ts';
import { openDatabase } from '../../src/db/client.ts';
import { transactions } from '../../src/db/schema.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { accountBalance } from '../../src/ledger/balances.ts';

const OPENING = 20_000;
let db: CliDatabase;
let dir: string;
let env: Record<string, string>;
let app: { id: string; key: string };
const servers = new Set<ServeProcess>();

async function kolo(args: string[]) {
  return runKolo(args, env, 120_000);
}

async function withDatabase<T>(fn: (d: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR! });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

async function kill9(s: ServeProcess): Promise<void> {
  const child = s.child;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  servers.delete(s);
}

beforeAll(async () => {
  db = await freshCliDatabase();
  dir = mkdtempSync(join(tmpdir(), 'kolo-ledger-crash-'));
  env = {
    ...db.env,
    DATA_DIR: db.env.DATA_DIR ?? join(dir, 'data'),
    WEBHOOK_ENCRYPTION_KEY: 'cd'.repeat(32),
    JWT_SECRET: 'ledger-crash-test-jwt-secret-0123456789',
    DEMO_SEED: 'false',
    SANDBOX_DELAY_MS: '0',
    SANDBOX_OPENING_BALANCE: String(OPENING),
    POLLER_ENABLED: 'true',
    POLLER_INTERVAL_MS: '100',
    CONNECTOR_TIMEOUT_MS: '1000',
    POLLER_LEASE_MS: '3000',
  };
  const merchant = JSON.parse((await kolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', 'awa.ledger@example.cm', '--json'])).stdout);
  const created = JSON.parse((await kolo(['apps', 'create', '--merchant', merchant.id, '--name', 'Boutique', '--currency', 'XAF', '--json'])).stdout);
  const key = JSON.parse((await kolo(['keys', 'create', '--app', created.id, '--json'])).stdout);
  app = { id: created.id, key: key.plainTextKey };
}, 180_000);

afterAll(async () => {
  for (const s of servers) await kill9(s);
  await db?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kolo ledger', () => {
  it('fund tops up a TEST balance; verify passes on a sound ledger and fails (exit 1) on a tampered balance', async () => {
    const bad = await kolo(['ledger', 'fund', '--app', app.id, '--amount', '12.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--amount/);
    const funded = await kolo(['ledger', 'fund', '--app', app.id, '--amount', '5000', '--json']);
    expect(funded.code, funded.stderr).toBe(0);
    expect(JSON.parse(funded.stdout)).toEqual({ applicationId: app.id, environment: 'TEST', currency: 'XAF', amount: 5000 });
    const verified = await kolo(['ledger', 'verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, entries: 2, lines: 4, discrepancies: [] });
    expect(await withDatabase((d) => accountBalance(d, merchantAccount(app.id, 'TEST', 'XAF', 'AVAILABLE').key))).toBe(OPENING + 5000);

    await withDatabase((d) => d.execute(sql`update ledger_accounts set balance = balance + 1 where application_id = ${app.id}`));
    const broken = await kolo(['ledger', 'verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/ledger BROKEN/);
    expect(broken.stdout).toMatch(/BALANCE: account app:.*AVAILABLE: balance 25001 ≠ Σ of its lines 25000/);
    await withDatabase((d) => d.execute(sql`update ledger_accounts set balance = balance - 1 where application_id = ${app.id}`));
    expect((await kolo(['ledger', 'verify'])).code).toBe(0);
  }, 180_000);

  it('kill -9 during a burst of transfers and charges leaves a ledger that verifies, and settles right after a restart', async () => {
    const first = await startServe(env);
    servers.add(first);
    await first.waitUntilHealthy(60_000);
    let answered = 0;
    let cut = 0;
    const post = (path: string, body: unknown) =>
      fetch(`${first.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': app.key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      }).then(
        async (r) => {
          const reference = r.status === 201 ? ((await r.json()) as { data: { reference: string } }).data.reference : null;
          answered += 1;
          return reference;
        },
        () => {
          cut += 1;
          return null;
        },
      );
    // 25 000 available: 40 transfers of 1 000 cannot all be accepted; charges add money meanwhile.
    const burst = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 3
        ? post('/api/v1/pay-in/charge', { amount: 2000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' })
        : post('/api/v1/pay-out/transfer', {
            amount: 1000,
            currency: 'XAF',
            paymentMethod: 'MTN_MOMO_CM',
            beneficiaryAccount: i % 5 === 0 ? '237677000102' : '237677000001',
            beneficiaryName: 'Awa',
          }),
    );
    // Killed mid-burst: once a few requests have been answered, while the rest are in flight.
    for (let waited = 0; answered < 3 && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
    await kill9(first);
    const outcomes = await Promise.all(burst);
    expect(cut, 'requests cut by the crash').toBeGreaterThan(0);

    // Whatever the crash interrupted, the ledger is consistent at once.
    const afterCrash = await kolo(['ledger', 'verify']);
    expect(afterCrash.code, afterCrash.stdout + afterCrash.stderr).toBe(0);

    const second = await startServe(env);
    servers.add(second);
    await second.waitUntilHealthy(60_000);
    // Every acknowledged transaction reaches a final status through the poller; a create whose
    // answer the crash swallowed is re-initiated once its first poll is due (connector timeout
    // + 5 s after creation), so the wait also covers that.
    const known = outcomes.filter((r): r is string => r !== null);
    const restartedAt = Date.now();
    const isFinal = async (reference: string) => {
      const path = reference.startsWith('PI-') ? 'pay-in' : 'pay-out';
      const r = await fetch(`${second.baseUrl}/api/v1/${path}/check_status/${reference}`, { headers: { 'x-api-key': app.key } });
      return ((await r.json()) as { data: { status: string } }).data.status !== 'PENDING';
    };
    for (;;) {
      const finals = await Promise.all(known.map(isFinal));
      if (finals.every(Boolean) && Date.now() - restartedAt > 7000) break;
      if (Date.now() - restartedAt > 60_000) throw new Error('transactions still PENDING a minute after the restart');
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await second.stop()).toBe(0);
    servers.delete(second);

    const state = await withDatabase(async (d) => {
      const rows = await d.select().from(transactions).where(eq(transactions.applicationId, app.id));
      const available = await accountBalance(d, merchantAccount(app.id, 'TEST', 'XAF', 'AVAILABLE').key);
      const reserved = await accountBalance(d, merchantAccount(app.id, 'TEST', 'XAF', 'RESERVED').key);
      return { rows, available, reserved };
    });
    const pending = state.rows.filter((r) => r.status === 'PENDING').map((r) => r.reference);
    expect(pending).toEqual([]);
    const paidOut = state.rows.filter((r) => r.direction === 'PAY_OUT' && r.status === 'SUCCESS').reduce((s, r) => s + r.amount + (r.feeAmount ?? 0), 0);
    const collected = state.rows.filter((r) => r.direction === 'PAY_IN' && r.status === 'SUCCESS').reduce((s, r) => s + r.amount - (r.feeAmount ?? 0), 0);
    expect(state.reserved).toBe(0);
    expect(state.available).toBe(OPENING + 5000 + collected - paidOut);
    const verified = await kolo(['ledger', 'verify', '--json']);
    expect(verified.code, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout).ok).toBe(true);
  }, 240_000);
});
