/**
 * Backups of the embedded database: the whole PGlite data
 * directory as one gzipped tarball (PGlite's own `dumpDataDir`), and its restoration into a data
 * directory (`loadDataDir`). Both run while the server is stopped: PGlite is one process per data
 * directory. PostgreSQL deployments use `pg_dump` / `pg_restore` instead (README).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** What a backup wrote: the file and its size in bytes. */
export interface BackupResult {
  file: string;
  bytes: number;
}

/**
 * Writes a gzipped tarball of the PGlite data directory `dataDir` to `outFile` (mode 0600: it
 * holds every secret's ciphertext and every key digest). Throws when `dataDir` holds no database.
 */
export async function backupDataDir(dataDir: string, outFile: string): Promise<BackupResult> {
  if (!existsSync(dataDir) || readdirSync(dataDir).length === 0) throw new Error(`no embedded database in ${dataDir}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const client = await PGlite.create(dataDir);
  try {
    // A checkpoint first, so that the files on disk hold every committed change.
    await client.exec('checkpoint');
    const dump = await client.dumpDataDir('gzip');
    const bytes = Buffer.from(await dump.arrayBuffer());
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, bytes, { mode: 0o600 });
    return { file: outFile, bytes: bytes.length };
  } finally {
    await client.close();
  }
}

/** What a restore did: where the previous data directory went, if there was one. */
export interface RestoreResult {
  dataDir: string;
  /** The previous, non-empty data directory, moved aside rather than deleted. */
  previousMovedTo: string | null;
}

/**
 * Restores the tarball `fromFile` (made by `backupDataDir`) into `dataDir`. A non-empty
 * `dataDir` is never overwritten: it is moved aside to `<dataDir>.before-restore-<time>` first.
 * The restored database is opened once and checked (`select 1`) before this returns.
 */
export async function restoreDataDir(fromFile: string, dataDir: string, now: Date): Promise<RestoreResult> {
  const bytes = readFileSync(fromFile);
  let previousMovedTo: string | null = null;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    previousMovedTo = `${dataDir}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(dataDir, previousMovedTo);
  }
  mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const client = await PGlite.create(dataDir, { loadDataDir: new Blob([bytes]) });
  try {
    await client.query('select 1');
  } finally {
    await client.close();
  }
  return { dataDir, previousMovedTo };
}
