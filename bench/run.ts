/**
 * `npm run bench`: throughput and latency of charge creation and status reads, measured with
 * autocannon at 64 connections against a real Kolo (its own process, embedded PGlite in a
 * temporary directory, or PostgreSQL when BENCH_DATABASE_URL is set), next to a bare Fastify
 * JSON echo on the same machine as the ceiling. Prints each figure and its ratio to the ceiling.
 * Not part of the tests. Options (env): BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (64).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a process and resolves once its stdout matches `ready`; returns the output seen so far. */
function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timeout starting ${args.join(' ')}:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code}:\n${out}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(name: string, options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections, duration: durationS, ...options });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const chargeBody = (i: number) =>
  JSON.stringify({
    amount: 5000,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    payerAccount: `2376770${String(i % 100000).padStart(5, '0')}`.slice(0, 12),
    merchantReference: `bench-${i}`,
  });

const dataDir = mkdtempSync(join(tmpdir(), 'kolo-bench-'));
const kolo = await freePort();
const echo = await freePort();
const children: ChildProcess[] = [];
try {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const server = await startProcess(
    ['bin/kolo.js', 'serve'],
    {
      PORT: String(kolo),
      HOST: '127.0.0.1',
      DATA_DIR: join(dataDir, 'data'),
      LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    /sk_test_[0-9a-f]{128}[\s\S]*={20,}/,
  );
  children.push(server.child);
  const key = /sk_test_[0-9a-f]{128}/.exec(server.output())![0];
  const ceiling = await startProcess(['--import', 'tsx', 'bench/echo-server.ts', String(echo)], {}, /LISTENING/);
  children.push(ceiling.child);

  const base = `http://127.0.0.1:${kolo}`;
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const first = await fetch(`${base}/api/v1/pay-in/charge`, { method: 'POST', headers, body: chargeBody(0) });
  const reference = ((await first.json()) as { data: { reference: string } }).data.reference;

  console.log(`Kolo benchmark: ${connections} connections, ${durationS} s per run, database ${databaseUrl ? 'PostgreSQL' : 'PGlite (embedded)'}`);
  let n = 1;
  const results: Figures[] = [];
  results.push(await load('echo POST (ceiling)', { url: `http://127.0.0.1:${echo}/echo`, method: 'POST', headers, body: chargeBody(0) }));
  results.push(
    await load('charge create', {
      url: `${base}/api/v1/pay-in/charge`,
      method: 'POST',
      headers,
      setupClient: (client) => {
        client.setBody(chargeBody(n++));
        client.on('response', () => client.setBody(chargeBody(n++)));
      },
    }),
  );
  results.push(await load('echo GET (ceiling)', { url: `http://127.0.0.1:${echo}/echo`, method: 'GET' }));
  results.push(await load('status read', { url: `${base}/api/v1/pay-in/check_status/${reference}`, method: 'GET', headers }));

  const pad = (s: string, w: number) => s.padEnd(w);
  console.log(`\n${pad('run', 22)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('non-2xx', 9)}errors`);
  for (const r of results) {
    console.log(`${pad(r.name, 22)}${pad(r.rps.toFixed(0), 10)}${pad(String(r.p50), 9)}${pad(String(r.p99), 9)}${pad(String(r.non2xx), 9)}${r.errors}`);
  }
  const [echoPost, charge, echoGet, status] = results as [Figures, Figures, Figures, Figures];
  console.log(`\ncharge create / echo POST: ${(charge.rps / echoPost.rps).toFixed(3)} of the ceiling's throughput, p99 ${charge.p99} ms vs ${echoPost.p99} ms`);
  console.log(`status read / echo GET:    ${(status.rps / echoGet.rps).toFixed(3)} of the ceiling's throughput, p99 ${status.p99} ms vs ${echoGet.p99} ms`);
} finally {
  for (const child of children) await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
}
