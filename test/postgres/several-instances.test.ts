/**
 * Three `kolo serve` instances on one PostgreSQL database, load spread over all three for a minute
 * (MULTI_INSTANCE_SECONDS). Every charge is answered once (an idempotent repeat on another instance
 * gets the same transaction), every webhook is delivered at least once (duplicates counted and
 * reported), the poller's and the worker's work is shared, a key rotated through one instance is
 * refused by the others on the next request, and an instance whose shared secrets differ refuses to
 * start, naming the variable.
 * PostgreSQL only (this directory runs when TEST_DATABASE_URL is set, as in CI).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../harness.ts';
import { runKolo, startServe, type ServeProcess } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

const SECONDS = Number(process.env.MULTI_INSTANCE_SECONDS ?? 60);
const CONCURRENCY = 4;
const METRICS_TOKEN = randomBytes(24).toString('hex');

let database: { url: string; drop: () => Promise<void> };
let receiver: Receiver;
const dirs: string[] = [];
const instances: ServeProcess[] = [];
let shared: Record<string, string>;

function envFor(overrides: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'kolo-instance-'));
  dirs.push(dir);
  // Each instance its own data directory: the shared secrets must come from the environment.
  return { ...shared, DATA_DIR: join(dir, 'data'), ...overrides };
}

beforeAll(async () => {
  database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, 'kolo_multi');
  receiver = await startReceiver();
  shared = {
    DATABASE_URL: database.url,
    JWT_SECRET: randomBytes(32).toString('hex'),
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CHECKOUT_CSRF_SECRET: randomBytes(32).toString('hex'),
    DEMO_SEED: 'false',
    EMAIL_VERIFICATION_REQUIRED: 'false',
    PASSWORD_SCRYPT_LOG_N: '14',
    POLLER_ENABLED: 'true',
    POLLER_INTERVAL_MS: '200',
    WEBHOOK_WORKER_INTERVAL_MS: '200',
    SANDBOX_DELAY_MS: '500',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    METRICS_TOKEN,
    PG_POOL_MAX: '5',
  };
  const migrated = await runKolo(['migrate'], envFor());
  expect(migrated.code, migrated.stderr).toBe(0);
  for (let i = 0; i < 3; i += 1) instances.push(await startServe(envFor()));
  await Promise.all(instances.map((instance) => instance.waitUntilHealthy()));
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await receiver?.close();
  await database?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function call(instance: ServeProcess, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${instance.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Waits for the process to exit by itself (at most 60 s) and returns its exit code. */
function exitCode(instance: ServeProcess): Promise<number | null> {
  const { child } = instance;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running:\n${instance.output()}`)), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** A sample of a Prometheus page (labels matched as a subset). */
function sample(page: string, name: string, labels: Record<string, string>): number {
  const line = page.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('three instances on one PostgreSQL', () => {
  it(`share the work for ${SECONDS} s: every charge answered once, every webhook delivered, rotation seen everywhere`, async () => {
    const [a, b, c] = instances as [ServeProcess, ServeProcess, ServeProcess];
    // A merchant signs up and logs in on A; the token works on B (JWT_SECRET shared).
    const email = 'multi@boutique.test';
    const password = 'un-mot-de-passe-solide';
    expect((await call(a, 'POST', '/api/v1/auth/register', {}, { fullName: 'Multi', email, phone: '+237677000001', password, country: 'CM' })).status).toBe(201);
    const token = (await call(a, 'POST', '/api/v1/auth/login', {}, { email, password })).json.data.accessToken as string;
    const bearer = { authorization: `Bearer ${token}` };
    const app = await call(b, 'POST', '/api/v1/merchants/apps', bearer, { name: 'Multi', currency: 'XAF', webhookUrl: receiver.url });
    expect(app.status).toBe(201);
    const appId = app.json.data.id as string;
    const created = await call(c, 'POST', `/api/v1/merchants/apps/${appId}/api-keys`, bearer, { name: 'Clé test', environment: 'TEST' });
    expect(created.status).toBe(201);
    let key = created.json.data.plainTextKey as string;

    // Load spread over the three instances.
    const answers = new Map<string, string>();
    const failures: string[] = [];
    let repeats = 0;
    let sent = 0;
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        let n = 0;
        while (Date.now() < until) {
          const idempotencyKey = `w${worker}-${n}`;
          const instance = instances[(worker + n) % 3]!;
          n += 1;
          sent += 1;
          const answer = await call(instance, 'POST', '/api/v1/pay-in/charge', { 'x-api-key': key }, { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey });
          if (answer.status !== 201) {
            failures.push(`${answer.status} ${JSON.stringify(answer.json)}`);
            continue;
          }
          answers.set(idempotencyKey, answer.json.data.reference);
          if (n % 25 === 0) {
            // The same request again, on the next instance: the same transaction, not a second one.
            const again = await call(instances[(worker + n) % 3]!, 'POST', '/api/v1/pay-in/charge', { 'x-api-key': key }, { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', idempotencyKey });
            repeats += 1;
            expect(again.json.data.reference).toBe(answer.json.data.reference);
          }
        }
      }),
    );
    expect(failures).toEqual([]);
    const references = new Set(answers.values());
    expect(references.size).toBe(answers.size);
    expect(answers.size).toBe(sent);

    // Every charge settles and its webhook arrives at least once.
    const deadline = Date.now() + 90_000;
    // Parsed as they arrive (re-parsing every body on each check cost seconds at 20 000 of them).
    const seen = new Set<string>();
    let parsed = 0;
    let paymentDeliveries = 0;
    const delivered = () => {
      for (; parsed < receiver.received.length; parsed++) {
        const event = JSON.parse(receiver.received[parsed]!.body);
        if (event.event !== 'payment.success') continue;
        paymentDeliveries += 1;
        seen.add(event.data.reference);
      }
      return seen;
    };
    while (delivered().size < references.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(delivered().size).toBe(references.size);
    for (const reference of references) expect(delivered().has(reference)).toBe(true);
    delivered();
    const duplicates = paymentDeliveries - references.size;
    console.info(`${SECONDS} s on 3 instances: ${references.size} charges (${repeats} idempotent repeats answered with the same transaction), ${paymentDeliveries} payment webhooks, ${duplicates} duplicates`);

    // Money across three instances: the ledger verifies.
    const verified = await runKolo(['ledger', 'verify', '--json'], envFor());
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);

    // The poller's and the worker's work was shared: each instance did some of each.
    for (const instance of instances) {
      const page = (await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text()));
      expect(sample(page, 'kolo_poller_batch_size_sum', { kind: 'transactions' }), instance.baseUrl).toBeGreaterThan(0);
      expect(sample(page, 'kolo_webhook_attempts_total', { outcome: 'delivered' }), instance.baseUrl).toBeGreaterThan(0);
      expect(sample(page, 'kolo_transactions_created_total', { rail: 'MTN_MOMO_CM' }), instance.baseUrl).toBeGreaterThan(0);
    }

    // A key rotated through A is refused by B and C on the very next request; the new one works there.
    const rotated = await call(a, 'POST', `/api/v1/merchants/apps/${appId}/api-keys/rotate`, bearer, { name: 'Clé test 2', environment: 'TEST' });
    expect(rotated.status).toBe(201);
    const old = key;
    key = rotated.json.data.plainTextKey as string;
    for (const instance of [b, c]) {
      expect((await call(instance, 'GET', '/api/v1/pay-in/check_status/PI-000000000000', { 'x-api-key': old })).status).toBe(401);
      expect((await call(instance, 'GET', '/api/v1/pay-in/check_status/PI-000000000000', { 'x-api-key': key })).status).toBe(404);
    }
  }, (SECONDS + 240) * 1000);

  it('refuses to start an instance whose shared secrets differ, naming the variable', async () => {
    const otherKey = await startServe(envFor({ WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex') }));
    expect(await exitCode(otherKey)).toBe(1);
    expect(otherKey.output()).toMatch(/refusing to start: WEBHOOK_ENCRYPTION_KEY/);
    expect(otherKey.output()).not.toContain(shared.WEBHOOK_ENCRYPTION_KEY!);
    // JWT_SECRET unset: the instance generates its own into its data directory, and is refused.
    const { JWT_SECRET: _unset, ...withoutJwt } = envFor();
    const generated = await startServe(withoutJwt);
    expect(await exitCode(generated)).toBe(1);
    expect(generated.output()).toMatch(/JWT_SECRET/);
    // The three instances kept serving.
    for (const instance of instances) expect((await fetch(`${instance.baseUrl}/actuator/health`)).status).toBe(200);
  }, 60_000);
});
