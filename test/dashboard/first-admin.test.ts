/**
 * The first administrators: `kolo staff create` (in-process CLI) and ADMIN_EMAIL/ADMIN_PASSWORD
 * at `kolo serve`; both log in through the real login route.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';

it('creates staff with the CLI and the configured ADMIN at start; both can log in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kolo-staff-'));
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
  const base = {
    DATA_DIR: join(dir, 'data'),
    PASSWORD_SCRYPT_LOG_N: '14',
    LOG_LEVEL: 'silent',
    DEMO_SEED: 'false',
    POLLER_ENABLED: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  try {
    const created = await runCli(['staff', 'create', '--name', 'Agent', '--email', 'agent@kolo.test', '--role', 'SUPPORT', '--json'], base, io);
    expect(created).toEqual({ exitCode: 0 });
    const printed = JSON.parse(out.join(''));
    expect(printed).toMatchObject({ email: 'agent@kolo.test', role: 'SUPPORT' });
    expect(printed.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const bad = await runCli(['staff', 'create', '--name', 'X', '--email', 'x@kolo.test', '--role', 'MERCHANT'], base, io);
    expect(bad).toEqual({ exitCode: 2 });

    const served = await runCli(['serve'], { ...base, ADMIN_EMAIL: 'root@kolo.test', ADMIN_PASSWORD: 'un-mot-de-passe-admin' }, io);
    if (!('server' in served)) throw new Error(out.join(''));
    try {
      const loginAs = (email: string, password: string) =>
        fetch(`${served.server.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
      const admin = await loginAs('root@kolo.test', 'un-mot-de-passe-admin');
      expect(admin.status).toBe(200);
      expect(admin.json.data.user.role).toBe('ADMIN');
      const agent = await loginAs('agent@kolo.test', printed.password);
      expect(agent.json.data.user.role).toBe('SUPPORT');
    } finally {
      await served.server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Three CLI processes and a server start, each booting its own embedded database: ~16 s on an
  // idle machine, over 30 s on a loaded one.
}, 120_000);
