/**
 * `kolo backup` and `kolo restore`: the embedded database's data directory as one gzipped
 * tarball, and back (db/backup.ts). Both hold the data directory's lock, so they refuse while a
 * server runs on it; with PostgreSQL they refuse and point to pg_dump / pg_restore. Progress goes
 * to stderr (output.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { backupDataDir, restoreDataDir } from '../../db/backup.ts';
import type { Config } from '../../config.ts';
import { UsageError, type CliContext } from '../context.ts';
import { configOf, lockDataDir } from '../database.ts';
import { LOCK_FILE } from '../../db/data-dir-lock.ts';
import { print, progress } from '../output.ts';

function embeddedConfig(ctx: CliContext, command: 'backup' | 'restore'): Config {
  const config = configOf(ctx);
  if (config.databaseUrl) throw new UsageError(`${command} is for the embedded database; with PostgreSQL use pg_dump / pg_restore (README, "Backups")`);
  if (config.dataDir.startsWith('memory://')) throw new UsageError(`DATA_DIR is ${config.dataDir}: there is nothing on disk to ${command}`);
  return config;
}

/** `kolo backup --out FILE`. */
export async function backup(ctx: CliContext, opts: { json?: boolean | undefined; out: string; progress: boolean }): Promise<void> {
  const config = embeddedConfig(ctx, 'backup');
  const lock = lockDataDir(config, 'kolo backup');
  const line = progress(ctx.io, 'backup', opts.progress);
  try {
    const result = await backupDataDir(config.dataDir, opts.out, (step) => line.update(step));
    line.done();
    print(ctx.io, opts.json, `backup of ${config.dataDir} written to ${result.file} (${result.bytes} bytes)`, { ...result, dataDir: config.dataDir });
  } finally {
    lock?.release();
  }
}

/** `kolo restore --from FILE`: a non-empty DATA_DIR is moved aside, never overwritten. */
export async function restore(ctx: CliContext, opts: { json?: boolean | undefined; from: string; progress: boolean }): Promise<void> {
  const config = embeddedConfig(ctx, 'restore');
  const lock = lockDataDir(config, 'kolo restore');
  const line = progress(ctx.io, 'restore', opts.progress);
  try {
    const result = await restoreDataDir(opts.from, config.dataDir, new Date(), (step) => line.update(step));
    line.done();
    // The directory was replaced: the lock moved aside with the old contents, and the tarball may
    // carry the lock of the backup that made it. Ours goes back in place until we are done.
    lock?.rewrite();
    if (result.previousMovedTo) rmSync(join(result.previousMovedTo, LOCK_FILE), { force: true });
    const moved = result.previousMovedTo ? ` (previous data moved to ${result.previousMovedTo})` : '';
    print(ctx.io, opts.json, `${config.dataDir} restored from ${opts.from}${moved}`, result);
  } finally {
    lock?.release();
  }
}
