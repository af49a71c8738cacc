/**
 * The lock of an embedded (PGlite) data directory: PGlite runs PostgreSQL inside ONE process per
 * data directory, and a second process that opens it works on its own copy of the database in
 * memory, whose changes the first one never sees and may overwrite (a key rotated by the CLI
 * while the server ran came back after the server's restart). So every `kolo` process that opens
 * the directory — `serve`, and every command that reads or writes the database, `backup` and
 * `restore` included — first takes `<DATA_DIR>/kolo.lock`, and refuses when another holds it.
 *
 * The file is created with O_EXCL (`wx`: one creator wins) and holds who owns it (pid, host,
 * command, start time). Its holder refreshes its modification time every `HEARTBEAT_MS` and
 * deletes it on release or at exit. A lock left by a process that died without deleting it (a
 * crash, SIGKILL, power loss) is stale and taken over when either:
 * - it was written on this host and its pid is no longer running (or is this very process, as
 *   for a server restarted as pid 1 of a container); or
 * - its modification time is older than `STALE_AFTER_MS` (a holder on another host, or a pid
 *   since reused by another program).
 * With PostgreSQL (`DATABASE_URL`) nothing is locked: any number of processes share it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Name of the lock file inside the data directory. */
export const LOCK_FILE = 'kolo.lock';
/** How often a holder refreshes the lock's modification time. */
const HEARTBEAT_MS = 15_000;
/** A lock not refreshed for this long is stale whatever its pid (8 missed heartbeats). */
const STALE_AFTER_MS = 120_000;
/** A lock file being written (created, not yet filled) is given this long before it counts as damaged. */
const WRITING_GRACE_MS = 5_000;

/** Who holds a data directory, as written in its lock file. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** What runs, e.g. `kolo serve`. */
  command: string;
  /** ISO 8601 time the lock was taken. */
  since: string;
  /** Random token of this holder: release deletes the file only while it still holds this. */
  token: string;
}

/** Thrown when another live process holds the data directory; the message says who and what to do. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
    readonly lockFile: string,
  ) {
    const who = holder ? `${holder.command} (pid ${holder.pid} on ${holder.hostname}, since ${holder.since})` : 'another process';
    super(
      `DATA_DIR ${dataDir} is in use by ${who}: the embedded database allows one process at a time. ` +
        `Stop it first, or use PostgreSQL (DATABASE_URL) to run commands while the server runs. ` +
        `If no such process exists any more, delete ${lockFile}.`,
    );
    this.name = 'DataDirBusyError';
  }
}

/** A held lock. `release` is idempotent and also runs at process exit. */
export interface DataDirLock {
  file: string;
  holder: LockHolder;
  /** Writes the lock file again (after a restore replaced the directory's contents). */
  rewrite(): void;
  release(): void;
}

function readHolder(file: string): { holder: LockHolder | null; mtimeMs: number } | null {
  try {
    const mtimeMs = statSync(file).mtimeMs;
    let holder: LockHolder | null = null;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
      if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string') holder = parsed as LockHolder;
    } catch {
      holder = null;
    }
    return { holder, mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Whether process `pid` of this host runs (EPERM: it runs under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(found: { holder: LockHolder | null; mtimeMs: number }, nowMs: number): boolean {
  const age = nowMs - found.mtimeMs;
  if (age > STALE_AFTER_MS) return true;
  const { holder } = found;
  if (!holder) return age > WRITING_GRACE_MS;
  if (holder.hostname !== hostname()) return false;
  return holder.pid === process.pid || !isRunning(holder.pid);
}

/**
 * Takes the lock of `dataDir` for `command` (creating the directory if needed), or throws
 * `DataDirBusyError` when a live process holds it. A stale lock is replaced (at most twice, so
 * two processes racing over one stale lock cannot loop).
 */
export function acquireDataDirLock(dataDir: string, command: string, now: () => Date = () => new Date()): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, hostname: hostname(), command, since: now().toISOString(), token: randomUUID() };
  const write = (flag: 'wx' | 'w') => writeFileSync(file, `${JSON.stringify(holder)}\n`, { flag, mode: 0o600 });
  for (let attempt = 0; ; attempt += 1) {
    try {
      write('wx');
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = readHolder(file);
    if (found === null) continue; // released between our create and our read: try again
    if (attempt >= 2 || !isStale(found, now().getTime())) throw new DataDirBusyError(dataDir, found.holder, file);
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  // Unref'd: the heartbeat never keeps a finished command alive.
  const heartbeat = setInterval(() => {
    try {
      const t = now();
      utimesSync(file, t, t);
    } catch {
      // Gone (released, or deleted by hand): nothing to refresh.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    process.removeListener('exit', release);
    try {
      // Only our own file: if it was taken over as stale, it is someone else's now.
      if (readHolder(file)?.holder?.token === holder.token) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', release);
  return { file, holder, rewrite: () => write('w'), release };
}
