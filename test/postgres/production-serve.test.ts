/**
 * `kolo serve` with `KOLO_ENV=production` and everything it requires, on a fresh PostgreSQL
 * database (TEST_DATABASE_URL, as in CI; the embedded database is refused in production): it
 * starts, creates no demo merchant, prints no key, password or webhook secret, and logs JSON lines,
 * at a terminal too.
 * The refusals are test/production/production-mode.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../harness.ts';
import { freePort, startServe } from '../helpers/cli.ts';
import { serveAtTerminal } from '../runtime/terminal.ts';

let database: { url: string; drop: () => Promise<void> };
let dir: string;
beforeAll(async () => {
  database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, 'kolo_production');
  dir = mkdtempSync(join(tmpdir(), 'kolo-production-'));
});
afterAll(async () => {
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The shared secrets, the same for both starts. */
const secrets = { jwt: randomBytes(32).toString('hex'), webhook: randomBytes(32).toString('hex'), csrf: randomBytes(32).toString('hex') };

/** A complete production configuration on the test's database. */
function productionEnv(): Record<string, string> {
  return {
    KOLO_ENV: 'production',
    DATABASE_URL: database.url,
    DATA_DIR: join(dir, 'data'),
    PUBLIC_BASE_URL: 'https://pay.example.test',
    JWT_SECRET: secrets.jwt,
    WEBHOOK_ENCRYPTION_KEY: secrets.webhook,
    CHECKOUT_CSRF_SECRET: secrets.csrf,
    LOG_LEVEL: 'info',
    DEMO_SEED: '',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: '',
    CALLBACK_BASE_URL: '',
  };
}

/** Every non-blank line of `output` is a JSON object; returns their messages. */
function jsonMessages(output: string): string[] {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => JSON.parse(line).msg);
}

describe('kolo serve with KOLO_ENV=production and a complete configuration', () => {
  it('starts on PostgreSQL without demo data and prints no secret', async () => {
    const serve = await startServe(productionEnv());
    let output: string;
    try {
      await serve.waitFor(/Kolo is listening/);
      const health = await fetch(`${serve.baseUrl}/actuator/health`);
      expect(health.status).toBe(200);
      // The demo merchant's login does not exist.
      const login = await fetch(`${serve.baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'demo@kolo.local', password: 'x'.repeat(12) }),
      });
      expect(login.status).toBe(401);
    } finally {
      expect(await serve.stop()).toBe(0);
      output = serve.output();
    }
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const accounts = await client.query<{ count: number }>('select count(*)::int as count from accounts');
      expect(accounts.rows[0]!.count).toBe(0);
      const keys = await client.query<{ count: number }>('select count(*)::int as count from api_keys');
      expect(keys.rows[0]!.count).toBe(0);
    } finally {
      await client.end();
    }
    expect(output).not.toMatch(/sk_(test|live)_/);
    expect(output).not.toMatch(/whsec_/);
    expect(output).not.toContain('démonstration');
    // Production logs: JSON lines only, the listening line among them.
    expect(jsonMessages(output)).toContain('Kolo is listening');
  }, 120_000);

  it('logs JSON lines at a terminal too', async () => {
    const port = await freePort();
    const { TEST_DATABASE_URL: _ignored, ...parent } = process.env;
    const output = await serveAtTerminal({ ...parent, ...productionEnv(), HOST: '127.0.0.1', PORT: String(port), POLLER_ENABLED: 'false' }, /Kolo is listening/);
    // Up to the listening line (the stop may cut the last line short).
    expect(jsonMessages(output.slice(0, output.indexOf('\n', output.indexOf('Kolo is listening'))))).toContain('Kolo is listening');
  }, 120_000);
});
