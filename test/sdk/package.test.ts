/**
 * The SDK as a user installs it: built by `tsc -p packages/sdk` into a scratch
 * `node_modules/@kolo/sdk`, imported by its package name from a separate Node process (so
 * `exports` is what resolves it), used against a running Kolo, and type-checked from a
 * TypeScript consumer. Also its manifest: version of the root, no runtime dependency.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_VERSION } from '../../packages/sdk/src/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/sdk/package.json'), 'utf8'));
const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

let h: Harness;
let t: Tenant;
let scratch: string;
let installed: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kolo-sdk-'));
  installed = join(scratch, 'node_modules/@kolo/sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'packages/sdk'), '--outDir', join(installed, 'dist')], {
    stdio: 'pipe',
  });
  cpSync(join(ROOT, 'packages/sdk/package.json'), join(installed, 'package.json'));
  h = await startHarness();
  t = await h.createTenant();
}, 120_000);
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('manifest', () => {
  it('is @kolo/sdk at the root version, ESM, Node ≥ 18, without runtime dependencies', () => {
    expect(manifest).toMatchObject({ name: '@kolo/sdk', version: rootManifest.version, type: 'module', engines: { node: '>=18' } });
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    expect(SDK_VERSION).toBe(manifest.version);
  });

  it('builds to JavaScript that imports only Node built-ins and its own files', () => {
    const files = readdirSync(join(installed, 'dist')).filter((f) => f.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const file of files) {
      const source = readFileSync(join(installed, 'dist', file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        expect(specifier!.startsWith('node:') || /^\.\/[a-z-]+\.js$/.test(specifier!), `${file} imports ${specifier}`).toBe(true);
      }
    }
  });
});

describe('installed', () => {
  it('is imported by name in another process and creates a checkout on a running Kolo', async () => {
    const script = `
      import { Kolo, KoloAuthenticationError, verifyWebhook, generateTestHeaders } from '@kolo/sdk';
      const kolo = new Kolo({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL });
      const checkout = await kolo.checkouts.create({ amount: 1500, currency: 'XAF' });
      const status = await kolo.payIns.retrieve(checkout.reference);
      const wrong = await new Kolo({ apiKey: 'sk_test_wrong', baseUrl: process.env.BASE_URL }).payIns.retrieve(checkout.reference).catch((e) => e);
      const payload = '{"event":"webhook.test","id":"evt_1"}';
      const secret = 'whsec_' + 'ab'.repeat(32);
      const event = verifyWebhook({ payload, headers: generateTestHeaders({ payload, secret }), secret });
      console.log(JSON.stringify({ status: status.status, type: status.type, wrong: wrong instanceof KoloAuthenticationError, event: event.event }));
    `;
    // Asynchronous: this process serves the Kolo the child calls.
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { cwd: scratch, env: { ...process.env, KEY: t.key, BASE_URL: h.baseUrl }, encoding: 'utf8', timeout: 30_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ status: 'PENDING', type: 'CHECKOUT', wrong: true, event: 'webhook.test' });
  });

  it('type-checks a TypeScript consumer against its declarations, and rejects a wrong call', () => {
    const consumer = `
      import { Kolo, type PayInStatus, type KoloEvent } from '@kolo/sdk';
      const kolo = new Kolo({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:1' });
      export async function f(event: KoloEvent): Promise<number> {
        const status: PayInStatus = await kolo.payIns.retrieve('PI-0123456789AB');
        if (event.event === 'payment.success') return event.data.refundedAmount + status.amount;
        return 0;
      }
    `;
    writeFileSync(join(scratch, 'consumer.ts'), consumer);
    writeFileSync(join(scratch, 'wrong.ts'), `import { Kolo } from '@kolo/sdk';\nnew Kolo({ apiKey: 'k', baseUrl: 'u' }).charges.create({ amount: '5000', currency: 'XAF' });\n`);
    // One run over both files (type-checking is slow on a shared machine): the consumer must add no error.
    const tsc = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module', 'nodenext',
        '--moduleResolution', 'nodenext',
        '--target', 'es2022',
        '--types', 'node',
        '--typeRoots', join(ROOT, 'node_modules/@types'),
        'consumer.ts',
        'wrong.ts',
      ],
      { cwd: scratch, encoding: 'utf8', timeout: 60_000 },
    );
    expect(tsc.status).not.toBe(0);
    const errors = tsc.stdout.trim().split('\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});
