/**
 * A developer's first `kolo serve` at a terminal (run under util-linux `script`, which gives it a
 * pseudo-terminal as stdout): readable log lines (pino-pretty), and the demo banner saying how to
 * receive webhooks on a local URL. Without a terminal, the same start logs JSON lines only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startServe } from '../helpers/cli.ts';
import { serveAtTerminal } from './terminal.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The environment of a first start on an empty embedded database, parent's variables blanked. */
function firstStartEnv(port: number): NodeJS.ProcessEnv {
  dir = mkdtempSync(join(tmpdir(), 'kolo-terminal-'));
  const { TEST_DATABASE_URL: _ignored, ...parent } = process.env;
  return {
    ...parent,
    KOLO_ENV: '',
    DATABASE_URL: '',
    DEMO_SEED: '',
    DATA_DIR: join(dir, 'data'),
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    POLLER_ENABLED: 'false',
    LOG_LEVEL: 'info',
    PASSWORD_SCRYPT_LOG_N: '14',
  };
}

describe('the first start in development', () => {
  it('at a terminal: readable log lines, and a banner saying how to receive webhooks locally', async () => {
    const port = await freePort();
    const output = await serveAtTerminal(firstStartEnv(port), /Kolo is listening/);
    const listening = output.split('\n').find((line) => line.includes('Kolo is listening'))!;
    // pino-pretty: `[HH:MM:ss.mmm] INFO: Kolo is listening`, then the fields on their own lines.
    expect(listening).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: Kolo is listening$/);
    expect(output).toContain(`url: "http://127.0.0.1:${port}"`);
    expect(output.split('\n').filter((line) => line.startsWith('{"level"'))).toEqual([]);
    // The banner: a local URL through `kolo listen`, or the application's webhook URL in the dashboard.
    expect(output).toContain('kolo listen --forward-to http://localhost:3000/webhooks');
    const appId = /Application : Boutique démo \(([^,]+), XAF\)/.exec(output)![1]!;
    expect(output).toContain(`dans le tableau de bord (« URL des webhooks ») : http://127.0.0.1:${port}/app/apps/${appId}`);
  }, 120_000);

  it('without a terminal: JSON lines only', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kolo-terminal-'));
    const serve = await startServe({ KOLO_ENV: '', DATABASE_URL: '', DATA_DIR: join(dir, 'data'), DEMO_SEED: 'false', LOG_LEVEL: 'info' });
    try {
      await serve.waitFor(/Kolo is listening/);
    } finally {
      await serve.stop();
    }
    const lines = serve.output().split('\n').filter((line) => line.trim() !== '');
    expect(lines.map((line) => JSON.parse(line).msg)).toContain('Kolo is listening');
  }, 120_000);
});
