/**
 * The HS256 secret that signs dashboard access tokens. Order: `JWT_SECRET` from configuration;
 * else, for an on-disk data directory (the embedded default), a secret generated once into
 * `<DATA_DIR>/jwt-secret` (mode 0600) and reused at every start; else (`memory://`) a random
 * in-process secret. Several instances behind one load balancer must share `JWT_SECRET`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

const cache = new WeakMap<Config, Uint8Array>();

/** The secret bytes for `config` (computed once per configuration object). */
export function jwtSecret(config: Config): Uint8Array {
  const cached = cache.get(config);
  if (cached) return cached;
  const secret = new TextEncoder().encode(config.jwtSecret ?? fileOrMemorySecret(config.dataDir));
  cache.set(config, secret);
  return secret;
}

function fileOrMemorySecret(dataDir: string): string {
  if (dataDir.startsWith('memory://')) return randomBytes(32).toString('hex');
  const path = join(dataDir, 'jwt-secret');
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // Not there yet: generated below.
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  try {
    // `wx`: if another process wrote it first, read theirs instead of overwriting it.
    writeFileSync(path, secret + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return readFileSync(path, 'utf8').trim();
  }
}
