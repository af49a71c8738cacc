/**
 * Helpers of the benchmark (bench/run.ts): free ports, child processes started and stopped by
 * their own id, one autocannon run reduced to the figures we print, resident memory of a
 * process tree from /proc, and small statistics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A started child process and everything it printed so far (stdout and stderr). */
export interface Started {
  child: ChildProcess;
  output: () => string;
}

/**
 * Spawns `<command> <args>` (node by default) and resolves once its output matches `ready`
 * (rejects after 60 s or if it exits first). `env` is added to the bench's own environment.
 */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp, command: string = process.execPath): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timeout starting ${command} ${args.join(' ')}:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      // Keep the first 64 KiB only (the banner); a long run's warnings must not grow memory.
      if (out.length < 65_536) out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code}:\n${out}`));
    });
  });
}

/** The command line of process `pid` (from /proc), its arguments joined by spaces. */
export function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
}

/** Stops a child with SIGTERM (SIGKILL after 10 s) and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Figures of one autocannon run: mean requests/s, latency percentiles (ms), failures. */
export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered. */
  total: number;
  non2xx: number;
  /** Socket errors, timeouts excluded (autocannon counts timeouts among its errors). */
  errors: number;
  timeouts: number;
  /**
   * Milliseconds of CPU the serving process spent per answered request during the run (user and
   * system time of all its threads, from /proc), when the run was given its process id.
   */
  serverCpuMs?: number;
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc/<pid>/stat; 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) used so far by the PostgreSQL backends serving database `name`
 * (the processes whose command line names it, from /proc): what the server spent on that
 * database's connections, as long as they stay open.
 */
export function databaseCpuSeconds(name: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres: ') && cmdline.includes(` ${name} `)) total += processCpuSeconds(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** Runs autocannon with `options` and reduces its result to `Figures`. */
export async function load(name: string, options: autocannon.Options): Promise<Figures> {
  const result = await autocannon(options);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors - result.timeouts,
    timeouts: result.timeouts,
  };
}

/** Process ids of `pid` and all its descendants (from /proc/<pid>/task/<tid>/children). */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      const tasks = readFileSync(`/proc/${all[i]}/task/${all[i]}/children`, 'utf8').trim();
      if (tasks) all.push(...tasks.split(/\s+/).map(Number));
    } catch {
      // The process ended meanwhile.
    }
  }
  return all;
}

/** VmRSS in MB of one process (0 when it is gone). */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of the server: `dist/main.js` runs the server in its own process today, but
 * should it spawn a child, the node process actually serving is a descendant; we report the
 * largest node process of the tree and the tree's total.
 */
export function serverRss(pid: number): { pid: number; mb: number; treeMb: number } {
  const pids = processTree(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim().startsWith('node');
    } catch {
      return false;
    }
  });
  let best = { pid, mb: 0 };
  let treeMb = 0;
  for (const p of pids) {
    const mb = rssMb(p);
    treeMb += mb;
    if (mb > best.mb) best = { pid: p, mb };
  }
  return { ...best, treeMb };
}

/** Median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` over `items` with at most `concurrency` in flight; results in order. */
export async function mapLimit<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** The Prometheus sample `name` (first match) from Kolo's metrics endpoint; null when absent. */
export async function scrapeMetric(metricsPort: number, name: string): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
