/**
 * Helpers to run the real `kolo` command (`node bin/kolo.js`) as a child process: one-shot
 * commands with a time limit, and `serve` with its output collected. The database is a PGlite
 * data directory in a temporary folder, or a fresh PostgreSQL database when
 * `TEST_DATABASE_URL` is set (dropped by `cleanup`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freshPostgresDatabase } from '../harness.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'kolo.js');

/** Where a CLI test keeps its data: env for the child, and a cleanup. */
export interface CliDatabase {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A fresh, empty database for the child processes. */
export async function freshCliDatabase(): Promise<CliDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'kolo-cli-'));
    return { env: { DATA_DIR: join(dir, 'data'), DATABASE_URL: '' }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await freshPostgresDatabase(adminUrl, 'kolo_cli');
  return { env: { DATABASE_URL: database.url }, cleanup: database.drop };
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { TEST_DATABASE_URL: _ignored, ...parent } = process.env;
  return { ...parent, LOG_LEVEL: 'warn', NODE_ENV: 'test', ...env };
}

/** Result of a one-shot command. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `kolo <args>`; kills it after `timeoutMs`. */
export function runKolo(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kolo ${args.join(' ')} timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port that was free a moment ago (bound to 0 by the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running `kolo serve`. */
export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything written so far on stdout and stderr. */
  output(): string;
  /** Resolves with the output once `pattern` appears in it; rejects after `timeoutMs` or if the process exits. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once GET /actuator/health answers 200. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s). */
  stop(): Promise<number | null>;
}

/**
 * Starts `kolo serve` on a free loopback port and waits until it answers its health check or
 * exits (a test may expect it to refuse to start). A port taken between `freePort` and the
 * child's listen (another test file spawning at the same instant) is retried on a new port.
 */
export async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  for (let attempt = 1; ; attempt += 1) {
    const serve = await spawnServe(env);
    const exited = await Promise.race([
      serve.waitUntilHealthy(90_000).then(() => false),
      new Promise<boolean>((resolve) => serve.child.once('exit', () => resolve(true))),
    ]).catch(() => true);
    if (!exited || attempt === 3 || !/EADDRINUSE/.test(serve.output())) return serve;
  }
}

async function spawnServe(env: Record<string, string>): Promise<ServeProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), PUBLIC_BASE_URL: baseUrl, POLLER_ENABLED: 'false', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited: number | null | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exited = code))));

  const until = async (check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      if (exited !== undefined) throw new Error(`kolo serve exited (${exited}) before ${what}\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}\n${output}`);
  };

  return {
    child,
    baseUrl,
    output: () => output,
    async waitFor(pattern, timeoutMs = 60_000) {
      await until(() => pattern.test(output), timeoutMs, String(pattern));
      return output;
    },
    async waitUntilHealthy(timeoutMs = 60_000) {
      // Kolo's own answer only: between `freePort` and the child's listen, another test file's
      // server may take the port and answer 200 to anything (the child then exits EADDRINUSE).
      await until(
        () =>
          fetch(`${baseUrl}/actuator/health`, { signal: AbortSignal.timeout(2000) }).then(
            async (r) => r.status === 200 && exited === undefined && (await r.text()).includes('"UP"'),
            () => false,
          ),
        timeoutMs,
        'health',
      );
    },
    async stop() {
      if (exited !== undefined) return exited;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exit;
      clearTimeout(killer);
      return code;
    },
  };
}

/** A long-running `kolo` command other than `serve` (`listen`, `simulate`). */
export interface KoloProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once `pattern` appears in it; rejects after `timeoutMs` or if the process exits. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (null: killed by a signal). */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGINT by default, as Ctrl-C), then waits for the exit (SIGKILL after 20 s). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `kolo <args>` and collects its output. */
export function spawnKolo(args: string[], env: Record<string, string>): KoloProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let code: number | null | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(stdout)) {
        if (code !== undefined) throw new Error(`kolo ${args[0]} exited (${code}) before ${pattern}\n${stdout}\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return stdout;
    },
    async stop(signal = 'SIGINT') {
      if (code !== undefined) return code;
      child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const result = await exited;
      clearTimeout(killer);
      return result;
    },
  };
}
