/**
 * `kolo simulate mtn|orange|mpesa|wave|orange-webpay --port N` and `kolo connectors check`: the simulators answer their
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
import { MTN_SIM_DEFAULTS, startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startOrangeSimulator, type OrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import { freePort, startServe } from '../helpers/cli.ts';
import { mpesaEnv, mtnEnv, orangeEnv, orangeWebpayEnv, waveEnv } from '../helpers/live.ts';
import { ORANGE_WEBPAY_SIM_DEFAULTS } from '../../src/connectors/orange-webpay/simulator/orange-webpay-simulator.ts';
import { startMpesaSimulator } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { startWaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const result: CliResult = await runCli(argv, { DATA_DIR: 'memory://', LOG_LEVEL: 'silent', ...env }, { out: (t) => (out += t), err: (t) => (err += t) });
  return { result, out, err };
}

describe('kolo simulate', () => {
  it('mtn, orange, mpesa and wave run in process and answer their auth endpoints', async () => {
    const mtn = await run(['simulate', 'mtn', '--port', '0']);
    const orange = await run(['simulate', 'orange', '--port', '0', '--decision-delay-ms', '10']);
    const mpesa = await run(['simulate', 'mpesa', '--port', '0']);
    const wave = await run(['simulate', 'wave', '--port', '0', '--webhook-url', 'http://127.0.0.1:9/api/v1/callbacks/wave']);
    try {
      const mpesaUrl = /listening on (\S+)/.exec(mpesa.out)![1]!;
      expect((await fetch(`${mpesaUrl}/oauth/v1/generate?grant_type=client_credentials`)).status).toBe(400);
      const waveUrl = /listening on (\S+)/.exec(wave.out)![1]!;
      expect((await fetch(`${waveUrl}/v1/checkout/sessions/search?client_reference=x`)).status).toBe(401);
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
      for (const r of [mtn.result, orange.result, mpesa.result, wave.result]) if ('service' in r) await r.service.stop();
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

describe('Orange Money Web Payment: kolo simulate and kolo connectors check', () => {
  it('the simulator runs in process and answers its token endpoint; the check obtains a token for each country, secrets masked', async () => {
    const sim = await run(['simulate', 'orange-webpay', '--port', '0']);
    try {
      const url = /listening on (\S+)/.exec(sim.out)![1]!;
      expect((await fetch(`${url}/oauth/v3/token`, { method: 'POST', body: 'grant_type=client_credentials' })).status).toBe(401);
      const env = { ...orangeWebpayEnv({ url }, ['CI', 'ML']), CALLBACK_BASE_URL: 'https://kolo.example.com' };
      const { result, out } = await run(['connectors', 'check'], env);
      expect(result).toEqual({ exitCode: 0 });
      expect(out).toMatch(/^OK {3}ORANGE_WEBPAY_CI ORANGE_WEBPAY webpayment: token obtained/m);
      expect(out).toMatch(/^OK {3}ORANGE_WEBPAY_ML ORANGE_WEBPAY webpayment: token obtained/m);
      for (const secret of [ORANGE_WEBPAY_SIM_DEFAULTS.clientSecret, ORANGE_WEBPAY_SIM_DEFAULTS.merchantKeys.CI!, ORANGE_WEBPAY_SIM_DEFAULTS.merchantKeys.ML!]) expect(out).not.toContain(secret);
      const refused = await run(['connectors', 'check'], { ...env, ORANGE_WEBPAY_CLIENT_SECRET: 'not-the-secret' });
      expect(refused.result).toEqual({ exitCode: 1 });
      expect(refused.out).toMatch(/^FAIL ORANGE_WEBPAY_CI ORANGE_WEBPAY webpayment: Orange WebPay token: HTTP 401/m);
    } finally {
      if ('service' in sim.result) await sim.result.service.stop();
    }
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

  it('M-Pesa: a Daraja token; Wave: each wallet key proven by an authenticated call; secrets masked, a wrong Wave key FAIL', async () => {
    const mpesa = await startMpesaSimulator();
    const wave = await startWaveSimulator();
    try {
      const env = { ...mpesaEnv(mpesa), ...waveEnv(wave), CALLBACK_BASE_URL: 'https://pay.example.ke' };
      const { result, out } = await run(['connectors', 'check'], env);
      expect(result).toEqual({ exitCode: 0 });
      expect(out).toMatch(/^OK {3}MPESA_KE MPESA oauth: token obtained/m);
      expect(out).toMatch(/^OK {3}WAVE_SN WAVE_SN checkout: API key accepted/m);
      expect(out).toMatch(/^OK {3}WAVE_SN WAVE_SN payout: API key accepted/m);
      expect(out).toMatch(/^OK {3}WAVE_CI WAVE_CI checkout: API key accepted/m);
      for (const [name, value] of Object.entries(env)) {
        if (/KEY|SECRET|PASSKEY|CREDENTIAL/.test(name)) expect(out, name).not.toContain(value);
      }
      const bad = await run(['connectors', 'check'], { ...waveEnv(wave, { WAVE_CI_PAYOUT_API_KEY: 'wave_ci_prod_wrongwrongwrong' }) });
      expect(bad.result).toEqual({ exitCode: 1 });
      expect(bad.out).toMatch(/^FAIL WAVE_CI WAVE_CI payout: HTTP 401/m);
      expect(bad.out).not.toContain('wave_ci_prod_wrongwrongwrong');
      const half = await run(['connectors', 'check'], { WAVE_BASE_URL: wave.url, WAVE_WEBHOOK_SECRET: 'x'.repeat(20), WAVE_SN_CHECKOUT_API_KEY: 'k' });
      expect(half.result).toEqual({ exitCode: 2 });
      expect(half.err).toContain('WAVE_SN_PAYOUT_API_KEY: required with WAVE_SN_CHECKOUT_API_KEY');
    } finally {
      await mpesa.close();
      await wave.close();
    }
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
