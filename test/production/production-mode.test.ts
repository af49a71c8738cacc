/**
 * `KOLO_ENV=production` through the real `kolo serve` (a child process): with anything missing or
 * unsafe it exits non-zero before opening anything, and its one error names every such variable.
 * The start that succeeds (PostgreSQL, no demo data, no key printed) is
 * test/postgres/production-serve.test.ts: it needs a PostgreSQL server.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKolo } from '../helpers/cli.ts';

/** Every variable production checks, blanked (a blank variable is unset for Kolo): the parent's environment leaks nothing in. */
const BLANK = {
  PUBLIC_BASE_URL: '',
  CALLBACK_BASE_URL: '',
  JWT_SECRET: '',
  WEBHOOK_ENCRYPTION_KEY: '',
  CHECKOUT_CSRF_SECRET: '',
  DATABASE_URL: '',
  DEMO_SEED: '',
  WEBHOOK_ALLOW_PRIVATE_HOSTS: '',
};

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs `kolo serve` in production with `env`; the data directory it would create is `dataDir`. */
async function serveInProduction(env: Record<string, string>) {
  dir = mkdtempSync(join(tmpdir(), 'kolo-production-'));
  const dataDir = join(dir, 'data');
  const run = await runKolo(['serve'], { ...BLANK, KOLO_ENV: 'production', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ...env }, 60_000);
  return { ...run, dataDir };
}

/** The error's lines naming `name`, e.g. `  JWT_SECRET: required in production …`. */
function linesOf(stderr: string, name: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith(`  ${name}: `));
}

describe('kolo serve with KOLO_ENV=production', () => {
  it('refuses to start with nothing set, naming each missing variable once', async () => {
    const run = await serveInProduction({});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Invalid configuration for production (KOLO_ENV=production):');
    for (const name of ['PUBLIC_BASE_URL', 'JWT_SECRET', 'WEBHOOK_ENCRYPTION_KEY', 'CHECKOUT_CSRF_SECRET', 'DATABASE_URL']) {
      expect(linesOf(run.stderr, name), name).toHaveLength(1);
      expect(linesOf(run.stderr, name)[0]).toContain('required in production');
    }
    // Only those: the optional ones are not reported unset.
    expect(run.stderr.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(5);
    // Nothing started: no server line, no database opened (the data directory was never made).
    expect(run.stdout).not.toMatch(/listening/i);
    expect(existsSync(run.dataDir)).toBe(false);
  });

  it('refuses unsafe values, naming each with its fix, schema and production problems in one list', async () => {
    const run = await serveInProduction({
      PUBLIC_BASE_URL: 'http://pay.example.com',
      CALLBACK_BASE_URL: 'http://callbacks.example.com',
      JWT_SECRET: 'a'.repeat(31),
      WEBHOOK_ENCRYPTION_KEY: 'not-hex',
      CHECKOUT_CSRF_SECRET: 'c'.repeat(32),
      DATABASE_URL: 'mysql://kolo@db.example.com/kolo',
      DEMO_SEED: 'true',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    });
    expect(run.code).toBe(2);
    const expected: Record<string, RegExp> = {
      PUBLIC_BASE_URL: /must be an https:\/\/ URL in production/,
      CALLBACK_BASE_URL: /must be an https:\/\/ URL in production/,
      JWT_SECRET: /32/,
      WEBHOOK_ENCRYPTION_KEY: /64 hex characters/,
      DATABASE_URL: /must be a postgres:\/\/ or postgresql:\/\/ URL/,
      DEMO_SEED: /demo data is refused in production/,
      WEBHOOK_ALLOW_PRIVATE_HOSTS: /refused in production/,
    };
    for (const [name, message] of Object.entries(expected)) {
      expect(linesOf(run.stderr, name), name).toHaveLength(1);
      expect(linesOf(run.stderr, name)[0]).toMatch(message);
    }
    // CHECKOUT_CSRF_SECRET is good (32 characters): not reported.
    expect(linesOf(run.stderr, 'CHECKOUT_CSRF_SECRET')).toEqual([]);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(Object.keys(expected).length);
    expect(existsSync(run.dataDir)).toBe(false);
  });

  it('refuses an unknown KOLO_ENV rather than starting in development', async () => {
    const run = await serveInProduction({ KOLO_ENV: 'prod' });
    expect(run.code).toBe(2);
    expect(linesOf(run.stderr, 'KOLO_ENV')).toHaveLength(1);
    expect(existsSync(run.dataDir)).toBe(false);
  });
});
