/**
 * The embedded database's data directory belongs to one process at a time: while `kolo serve`
 * runs on a DATA_DIR, every command that would open it (`keys rotate`, `merchants create`,
 * `backup`, `restore`, even a `list`) refuses with exit 1, naming the server's pid and what to
 * do, and changes nothing; a second server refuses to start. Once the server stops they work.
 * A lock left by a process that died (its pid gone, or not refreshed for minutes) does not
 * block. With PostgreSQL there is no lock: a command run while the server runs takes effect in
 * the server at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCliDatabase, runKolo, startServe } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'kolo-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = /sk_(test|live)_[0-9a-f]{128}/;

/** Creates a merchant, an application and its TEST key with the CLI; returns the application id and the key. */
async function setUp(env: Record<string, string>, email: string): Promise<{ appId: string; key: string }> {
  // The first command of a fresh embedded data directory creates the database: the slow one.
  const merchant = await runKolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', email, '--json'], env, 180_000);
  expect(merchant.code, merchant.stderr).toBe(0);
  const app = await runKolo(['apps', 'create', '--merchant', email, '--name', 'Boutique', '--currency', 'XAF', '--json'], env);
  expect(app.code, app.stderr).toBe(0);
  const appId = JSON.parse(app.stdout).id as string;
  const key = await runKolo(['keys', 'create', '--app', appId, '--json'], env);
  expect(key.code, key.stderr).toBe(0);
  return { appId, key: JSON.parse(key.stdout).plainTextKey as string };
}

/** A status read with `key`: 404 for an unknown reference when the key is valid, 401 when it is not. */
async function keyStatus(baseUrl: string, key: string): Promise<number> {
  return (await fetch(`${baseUrl}/api/v1/pay-in/check_status/PI-000000000000`, { headers: { 'x-api-key': key } })).status;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the data directory lock of the embedded database', () => {
  const env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: '', DEMO_SEED: 'false' };

  it('refuses every command while kolo serve runs on DATA_DIR, changes nothing, and works once it stops', async () => {
    const { appId, key } = await setUp(env, 'awa@example.cm');
    const backupFile = join(dir, 'while-serving.tar.gz');
    const server = await startServe(env);
    try {
      await server.waitUntilHealthy();
      const pid = server.child.pid!;
      expect(JSON.parse(readFileSync(join(env.DATA_DIR, 'kolo.lock'), 'utf8'))).toMatchObject({ pid, command: 'kolo serve', hostname: hostname() });

      const refused = [
        await runKolo(['keys', 'rotate', '--app', appId], env),
        await runKolo(['merchants', 'create', '--name', 'Binta', '--email', 'binta@example.sn'], env),
        await runKolo(['backup', '--out', backupFile], env),
        await runKolo(['restore', '--from', backupFile], env),
        await runKolo(['keys', 'list', '--app', appId], env),
        await runKolo(['migrate'], env),
      ];
      for (const run of refused) {
        expect(run.code, run.stdout + run.stderr).toBe(1);
        expect(run.stderr).toContain(`is in use by kolo serve (pid ${pid} on ${hostname()}`);
        expect(run.stderr).toContain('Stop it first, or use PostgreSQL (DATABASE_URL)');
        expect(run.stdout).toBe('');
        expect(run.stdout + run.stderr).not.toMatch(KEY);
      }
      expect(existsSync(backupFile)).toBe(false);

      // A second server on the same directory refuses to start.
      const second = await startServe(env);
      expect(await second.stop()).toBe(1);
      expect(second.output()).toContain(`refusing to start: DATA_DIR ${env.DATA_DIR} is in use by kolo serve (pid ${pid}`);

      // The running server still has the original key, and no other.
      expect(await keyStatus(server.baseUrl, key)).toBe(404);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(existsSync(join(env.DATA_DIR, 'kolo.lock'))).toBe(false);

    // Nothing the refused commands asked for happened.
    const keys = await runKolo(['keys', 'list', '--app', appId, '--json'], env);
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.parse(keys.stdout).keys).toEqual([expect.objectContaining({ keyPrefix: key.slice(0, 16), status: 'ACTIVE' })]);
    const merchants = await runKolo(['merchants', 'list', '--json'], env);
    expect(JSON.parse(merchants.stdout).merchants.map((m: { email: string }) => m.email)).toEqual(['awa@example.cm']);

    // Server stopped: the rotation works, and the next server sees it.
    const rotated = await runKolo(['keys', 'rotate', '--app', appId, '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = JSON.parse(rotated.stdout).plainTextKey as string;
    const backup = await runKolo(['backup', '--out', backupFile, '--no-progress'], env);
    expect(backup.code, backup.stderr).toBe(0);
    const again = await startServe(env);
    try {
      await again.waitUntilHealthy();
      expect(await keyStatus(again.baseUrl, key)).toBe(401);
      expect(await keyStatus(again.baseUrl, newKey)).toBe(404);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 240_000);

  it('takes over the lock of a process that died, or of a holder that stopped refreshing it; not a live one', async () => {
    const lockFile = join(env.DATA_DIR, 'kolo.lock');
    const lock = (pid: number, host = hostname()) =>
      writeFileSync(lockFile, JSON.stringify({ pid, hostname: host, command: 'kolo serve', since: '2026-01-01T00:00:00.000Z', token: 't' }));

    // A crashed server: its pid is gone.
    lock(await deadPid());
    const afterCrash = await runKolo(['merchants', 'list', '--json'], env);
    expect(afterCrash.code, afterCrash.stderr).toBe(0);
    expect(existsSync(lockFile)).toBe(false);

    // A live process of this host (this test's own) that refreshes its lock: refused.
    lock(process.pid);
    const live = await runKolo(['merchants', 'list'], env);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain(`is in use by kolo serve (pid ${process.pid} on ${hostname()}, since 2026-01-01T00:00:00.000Z)`);
    expect(live.stderr).toContain(`delete ${lockFile}`);

    // Another host's lock: its pid cannot be checked; refused while fresh, taken over once not
    // refreshed for minutes.
    lock(process.pid, 'another-host');
    expect((await runKolo(['merchants', 'list'], env)).code).toBe(1);
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(lockFile, tenMinutesAgo, tenMinutesAgo);
    const stale = await runKolo(['merchants', 'list'], env);
    expect(stale.code, stale.stderr).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  }, 120_000);
});

describe('the database under test (PostgreSQL when TEST_DATABASE_URL is set)', () => {
  it('PostgreSQL: a command run while the server runs takes effect in it at once; embedded: refused', async () => {
    const db = await freshCliDatabase();
    try {
      const { appId, key } = await setUp({ ...db.env, DEMO_SEED: 'false' }, 'kofi@example.gh');
      const server = await startServe({ ...db.env, DEMO_SEED: 'false' });
      try {
        await server.waitUntilHealthy();
        const rotated = await runKolo(['keys', 'rotate', '--app', appId, '--json'], db.env);
        if (process.env.TEST_DATABASE_URL) {
          expect(rotated.code, rotated.stderr).toBe(0);
          const newKey = JSON.parse(rotated.stdout).plainTextKey as string;
          expect(await keyStatus(server.baseUrl, key)).toBe(401);
          expect(await keyStatus(server.baseUrl, newKey)).toBe(404);
        } else {
          expect(rotated.code).toBe(1);
          expect(rotated.stderr).toContain('is in use by kolo serve');
          expect(await keyStatus(server.baseUrl, key)).toBe(404);
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      await db.cleanup();
    }
  }, 240_000);
});
