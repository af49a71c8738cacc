/**
 * Configuration and database for the commands that need them. Each opens the database only
 * after taking the data directory's lock (data-dir-lock.ts) when it is an embedded one on disk,
 * so that no command works on a copy of a database that a running server holds.
 */
import { loadConfig, type Config } from '../config.ts';
import pino from 'pino';
import { createLogger, openRuntime, type Runtime } from '../bootstrap.ts';
import { acquireDataDirLock, type DataDirLock } from '../db/data-dir-lock.ts';
import { UsageError, type CliContext } from './context.ts';

/** The configuration from the environment; a bad variable is a usage error (exit 2, its message). */
export function configOf(ctx: CliContext): Config {
  try {
    return loadConfig(ctx.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** True when `config` runs on an embedded database kept on disk (the one that must be locked). */
export function isEmbeddedOnDisk(config: Config): boolean {
  return !config.databaseUrl && !config.dataDir.startsWith('memory://');
}

/** Takes the data directory's lock for `command` when the database is embedded and on disk; null otherwise. */
export function lockDataDir(config: Config, command: string): DataDirLock | null {
  return isEmbeddedOnDisk(config) ? acquireDataDirLock(config.dataDir, command) : null;
}

/**
 * Runs `work` with an open runtime (migrations applied, logs at `warn` and above on stderr, so
 * that stdout holds only the command's own output, `--json` included), holding the data
 * directory's lock throughout; closes and releases whatever happens.
 */
export async function withRuntime<T>(ctx: CliContext, command: string, work: (runtime: Runtime, config: Config) => Promise<T>): Promise<T> {
  const config = configOf(ctx);
  const lock = lockDataDir(config, command);
  let runtime: Runtime | undefined;
  try {
    runtime = await openRuntime({ ...config, logLevel: 'warn' }, { log: createLogger('warn', pino.destination({ fd: 2, sync: true })) });
    return await work(runtime, config);
  } finally {
    await runtime?.close();
    lock?.release();
  }
}
