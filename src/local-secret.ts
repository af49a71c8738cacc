/**
 * Secrets that an embedded deployment generates for itself: on first use, `bytes` random bytes
 * are written as hex to `<DATA_DIR>/<fileName>` (mode 0600) and read back at every later start,
 * so tokens and encrypted data survive restarts without any configuration. With a `memory://`
 * data directory the secret lives in the process only. Deployments with several instances
 * configure the secret explicitly instead (each caller names its variable).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The hex secret stored in `fileName` under `dataDir`, created when missing. Throws when the
 * file exists but does not hold `2 × bytes` hex characters (a damaged or foreign file must not
 * be silently replaced: data encrypted with it would be lost).
 */
export function localSecretHex(dataDir: string, fileName: string, bytes: number): string {
  if (dataDir.startsWith('memory://')) return randomBytes(bytes).toString('hex');
  const path = join(dataDir, fileName);
  const pattern = new RegExp(`^[0-9a-f]{${bytes * 2}}$`, 'i');
  const read = (): string | null => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return null;
    }
  };
  const existing = read();
  if (existing !== null) {
    if (!pattern.test(existing)) throw new Error(`${path} must contain ${bytes * 2} hex characters`);
    return existing;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(bytes).toString('hex');
  try {
    // `wx`: if another process wrote it first, use theirs rather than overwrite it.
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    const theirs = read();
    if (theirs === null || !pattern.test(theirs)) throw new Error(`cannot create ${path}`);
    return theirs;
  }
}
