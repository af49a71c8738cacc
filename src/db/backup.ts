/**
 * Backups of the embedded database: the whole PGlite data
 * directory as one gzipped tarball (PGlite's own `dumpDataDir`), and its restoration into a data
 * directory (`loadDataDir`). Both run while the server is stopped: PGlite is one process per data
 * directory. PostgreSQL deployments use `pg_dump` / `pg_restore` instead (README).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LOCK_FILE } from './data-dir-lock.ts';

/** Told each step of a backup or restore, as a short human text (`writing 4.0 of 12.3 MB`). */
export type BackupProgress = (step: string) => void;

/** Bytes written per write of a backup file: the unit of its progress. */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;

/** `bytes` in MB with one decimal (SI). */
function mb(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Number and total size of the files under `dir`. */
function sizeOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

/** What a backup wrote: the file and its size in bytes. */
export interface BackupResult {
  file: string;
  bytes: number;
}

/**
 * Writes a gzipped tarball of the PGlite data directory `dataDir` to `outFile` (mode 0600: it
 * holds every secret's ciphertext and every key digest). Throws when `dataDir` holds no database.
 * `onProgress` is told each step: opening, checkpoint, archiving (files and bytes of the
 * directory), then the bytes written every `WRITE_CHUNK_BYTES`.
 */
export async function backupDataDir(dataDir: string, outFile: string, onProgress: BackupProgress = () => {}): Promise<BackupResult> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`no embedded database in ${dataDir}`);
  onProgress('opening the database');
  const { PGlite } = await import('@electric-sql/pglite');
  const client = await PGlite.create(dataDir);
  let bytes: Buffer;
  try {
    // A checkpoint first, so that the files on disk hold every committed change.
    onProgress('checkpoint');
    await client.exec('checkpoint');
    const size = sizeOf(dataDir);
    onProgress(`archiving ${size.files} files (${mb(size.bytes)})`);
    const dump = await client.dumpDataDir('gzip');
    bytes = Buffer.from(await dump.arrayBuffer());
  } finally {
    await client.close();
  }
  mkdirSync(dirname(outFile), { recursive: true });
  const file = await open(outFile, 'w', 0o600);
  try {
    for (let offset = 0; offset < bytes.length; offset += WRITE_CHUNK_BYTES) {
      const end = Math.min(offset + WRITE_CHUNK_BYTES, bytes.length);
      await file.write(bytes, offset, end - offset);
      onProgress(`written ${mb(end)} of ${mb(bytes.length)}`);
    }
  } finally {
    await file.close();
  }
  return { file: outFile, bytes: bytes.length };
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
export async function restoreDataDir(fromFile: string, dataDir: string, now: Date, onProgress: BackupProgress = () => {}): Promise<RestoreResult> {
  const bytes = readFileSync(fromFile);
  onProgress(`read ${fromFile} (${mb(bytes.length)})`);
  let previousMovedTo: string | null = null;
  // The lock file of the process restoring (data-dir-lock.ts) alone does not make it non-empty.
  if (existsSync(dataDir) && readdirSync(dataDir).some((name) => name !== LOCK_FILE)) {
    previousMovedTo = `${dataDir}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    onProgress(`moving the current data to ${previousMovedTo}`);
    renameSync(dataDir, previousMovedTo);
  }
  mkdirSync(dataDir, { recursive: true });
  onProgress(`loading into ${dataDir}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const client = await PGlite.create(dataDir, { loadDataDir: new Blob([bytes]) });
  try {
    onProgress('checking the restored database');
    await client.query('select 1');
  } finally {
    await client.close();
  }
  return { dataDir, previousMovedTo };
}
