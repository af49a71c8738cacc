/**
 * `kolo backup` / `kolo restore` of the embedded database, as an
 * operator runs them (child processes, server stopped), proven by a round trip: what was in the
 * database at backup time is back after the restore, what came after is not, and the data
 * directory that was replaced is kept aside. PostgreSQL deployments are sent to pg_dump.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { runKolo, startServe } from '../helpers/cli.ts';
import { startReceiver } from '../helpers/webhooks.ts';

const dir = mkdtempSync(join(tmpdir(), 'kolo-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: '', DEMO_SEED: 'true', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' };
let webhookSecret = '';

async function chargeThenStop(key?: string): Promise<{ key: string; reference: string }> {
  const server = await startServe(env);
  try {
    const output = key ? '' : await server.waitFor(/sk_test_[0-9a-f]{128}[\s\S]*whsec_[0-9a-f]{64}/);
    const apiKey = key ?? output.match(/sk_test_[0-9a-f]{128}/)![0];
    if (!key) webhookSecret = output.match(/whsec_[0-9a-f]{64}/)![0];
    await server.waitUntilHealthy();
    const created = await fetch(`${server.baseUrl}/api/v1/pay-in/charge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' }),
    });
    expect(created.status).toBe(201);
    return { key: apiKey, reference: ((await created.json()) as { data: { reference: string } }).data.reference };
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe('kolo backup and restore (embedded database)', () => {
  it('round-trips the data directory', async () => {
    const before = await chargeThenStop();
    const file = join(dir, 'backups', 'kolo.tar.gz');
    const backup = await runKolo(['backup', '--out', file, '--json'], env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, bytes: expect.any(Number) });
    expect(statSync(file).size).toBeGreaterThan(1000);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Its steps on stderr, one plain line each (not a terminal), the result alone on stdout.
    expect(backup.stderr).toMatch(/^backup: checkpoint\nbackup: archiving \d+ files \([\d.]+ MB\)\n(backup: written [\d.]+ MB of [\d.]+ MB\n)+$/m);
    expect(backup.stderr.trim().split('\n').at(-1)).toMatch(/^backup: written ([\d.]+) MB of \1 MB$/);

    const after = await chargeThenStop(before.key);
    const restore = await runKolo(['restore', '--from', file, '--json'], env);
    expect(restore.code, restore.stderr).toBe(0);
    const moved = JSON.parse(restore.stdout).previousMovedTo as string;
    expect(restore.stderr).toContain(`restore: moving the current data to ${moved}\nrestore: loading into ${env.DATA_DIR}\nrestore: checking the restored database\n`);
    expect(existsSync(moved)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('data.before-restore-'))).toHaveLength(1);

    const server = await startServe(env);
    try {
      await server.waitUntilHealthy();
      const read = (reference: string) => fetch(`${server.baseUrl}/api/v1/pay-in/check_status/${reference}`, { headers: { 'x-api-key': before.key } });
      const kept = await read(before.reference);
      expect(kept.status).toBe(200);
      expect(((await kept.json()) as { data: { reference: string } }).data.reference).toBe(before.reference);
      // Created after the backup: not in the restored database.
      expect((await read(after.reference)).status).toBe(404);
      // The generated keys of the data directory came back too: the webhook secret still decrypts and signs.
      const receiver = await startReceiver();
      try {
        const headers = { 'content-type': 'application/json', 'x-api-key': before.key };
        expect((await fetch(`${server.baseUrl}/api/v1/webhook`, { method: 'PATCH', headers, body: JSON.stringify({ webhookUrl: receiver.url }) })).status).toBe(200);
        expect((await fetch(`${server.baseUrl}/api/v1/webhook/test`, { method: 'POST', headers: { 'x-api-key': before.key } })).status).toBe(200);
        const got = receiver.received.at(-1)!;
        expect(() => new Webhook(webhookSecret).verify(got.body, got.headers)).not.toThrow();
      } finally {
        await receiver.close();
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // The demo seed did not run again on the restored database (it already had accounts).
    expect(server.output()).not.toMatch(/sk_test_/);
  }, 180_000);

  it('refuses PostgreSQL (pg_dump is the tool there) and in-memory data directories', async () => {
    const pg = await runKolo(['backup', '--out', join(dir, 'x.tar.gz')], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' });
    expect(pg.code).toBe(2);
    expect(pg.stderr).toContain('pg_dump');
    const memory = await runKolo(['restore', '--from', join(dir, 'x.tar.gz')], { DATA_DIR: 'memory://', DATABASE_URL: '' });
    expect(memory.code).toBe(2);
    const missing = await runKolo(['backup'], { DATA_DIR: join(dir, 'data'), DATABASE_URL: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--out');
  });
});
