/**
 * `kolo simulate mtn|orange --port N` and `kolo connectors check`: the simulators answer their
 * operator's token endpoint; the check fetches a token from each configured operator, prints
 * what works with secrets masked, warns about a callback base URL operators cannot reach, and
 * exits non-zero when something fails. The simulate command also runs as a real process that
 * stops cleanly on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../src/cli/run.ts';
import { MTN_SIM_DEFAULTS, startMtnSimulator, type MtnSimulator } from '../../src/simulators/mtn-momo/mtn-simulator.ts';
import { startOrangeSimulator, type OrangeSimulator } from '../../src/simulators/orange-money/orange-simulator.ts';
import { freePort, startServe } from '../helpers/cli.ts';
import { mtnEnv, orangeEnv } from '../helpers/live.ts';

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const result: CliResult = await runCli(argv, { DATA_DIR: 'memory://', LOG_LEVEL: 'silent', ...env }, { out: (t) => (out += t), err: (t) => (err += t) });
  return { result, out, err };
}

describe('kolo simulate', () => {
  it('mtn and orange run in process and answer their token endpoints', async () => {
    const mtn = await run(['simulate', 'mtn', '--port', '0']);
    const orange = await run(['simulate', 'orange', '--port', '0', '--decision-delay-ms', '10']);
    try {
      const mtnUrl = /listening on (\S+)/.exec(mtn.out)![1]!;
      const c = MTN_SIM_DEFAULTS.collection;
      const token = await fetch(`${mtnUrl}/collection/token/`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${c.apiUser}:${c.apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': c.subscriptionKey },
      });
      expect(token.status).toBe(200);
      const orangeUrl = /listening on (\S+)/.exec(orange.out)![1]!;
      expect((await fetch(`${orangeUrl}/token`, { method: 'POST' })).status).toBe(401);
    } finally {
      for (const r of [mtn.result, orange.result]) if ('service' in r) await r.service.stop();
    }
  });

  it('refuses a bad port or delay with exit code 2', async () => {
    expect((await run(['simulate', 'mtn', '--port', 'abc'])).result).toEqual({ exitCode: 2 });
    expect((await run(['simulate', 'orange', '--decision-delay-ms', '-1'])).result).toEqual({ exitCode: 2 });
  });

  it('runs as a process and stops on SIGTERM with exit code 0', async () => {
    const port = await freePort();
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, [join(root, 'bin', 'kolo.js'), 'simulate', 'mtn', '--port', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 300 && !output.includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(output).toContain(`http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/collection/token/`, { method: 'POST' })).status).toBe(401);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('kolo connectors check', () => {
  let mtn: MtnSimulator;
  let orange: OrangeSimulator;
  beforeAll(async () => {
    mtn = await startMtnSimulator();
    orange = await startOrangeSimulator();
  });
  afterAll(async () => {
    await mtn.close();
    await orange.close();
  });

  it('fetches a token per product and operator, masks secrets, and warns about a local callback URL', async () => {
    const env = { ...mtnEnv(mtn), ...orangeEnv(orange), CALLBACK_BASE_URL: 'http://localhost:8080' };
    const { result, out } = await run(['connectors', 'check'], env);
    expect(result).toEqual({ exitCode: 0 });
    expect(out).toMatch(/^OK {3}MTN_MOMO_CM MTN_MOMO collection: token obtained/m);
    expect(out).toMatch(/^OK {3}MTN_MOMO_CM MTN_MOMO disbursement: token obtained/m);
    expect(out).toMatch(/^OK {3}ORANGE_MONEY_CM ORANGE_MONEY om-api: token obtained/m);
    expect(out).toMatch(/^WARN CALLBACK_BASE_URL \(http:\/\/localhost:8080\) is not a public HTTPS URL/m);
    for (const [name, value] of Object.entries(env)) {
      if (/KEY|SECRET|PASSWORD|PIN|API_USER|USERNAME/.test(name)) expect(out, name).not.toContain(value);
    }
  });

  it('no warning with a public HTTPS callback base; a refused credential is FAIL with exit code 1, secret masked', async () => {
    const good = await run(['connectors', 'check'], { ...orangeEnv(orange), CALLBACK_BASE_URL: 'https://pay.example.cm' });
    expect(good.result).toEqual({ exitCode: 0 });
    expect(good.out).not.toContain('WARN');
    const bad = await run(['connectors', 'check', '--json'], { ...mtnEnv(mtn, { MTN_MOMO_DISBURSEMENT_API_KEY: 'a-wrong-disbursement-key' }) });
    expect(bad.result).toEqual({ exitCode: 1 });
    const json = JSON.parse(bad.out);
    expect(json.connectors.map((c: { product: string; ok: boolean }) => [c.product, c.ok])).toEqual([
      ['MTN_MOMO collection', true],
      ['MTN_MOMO disbursement', false],
    ]);
    expect(json.connectors[1].detail).toContain('HTTP 401');
    expect(bad.out).not.toContain('a-wrong-disbursement-key');
  });

  it('says so when no connector is configured, and names missing variables of a half-configured one', async () => {
    const none = await run(['connectors', 'check']);
    expect(none.result).toEqual({ exitCode: 1 });
    expect(none.out).toContain('no operator connector configured');
    const half = await run(['connectors', 'check'], { MTN_MOMO_BASE_URL: mtn.url });
    expect(half.result).toEqual({ exitCode: 2 });
    expect(half.err).toContain('MTN_MOMO_COLLECTION_API_KEY: required when MTN_MOMO_BASE_URL is set');
  });

  it('kolo serve warns at start-up when the callback base URL is not public HTTPS, naming no credential', async () => {
    const serve = await startServe({ DATA_DIR: 'memory://', DEMO_SEED: 'false', LOG_LEVEL: 'info', ...mtnEnv(mtn) });
    try {
      const output = await serve.waitFor(/Kolo is listening/);
      expect(output).toMatch(/CALLBACK_BASE_URL \(http:\/\/127\.0\.0\.1:\d+\) is not a public HTTPS URL/);
      for (const [name, value] of Object.entries(mtnEnv(mtn))) {
        if (/KEY|API_USER/.test(name)) expect(output, name).not.toContain(value);
      }
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
