/**
 * The HS256 secret that signs dashboard access tokens. Order: `JWT_SECRET` from configuration;
 * else, for an on-disk data directory (the embedded default), a secret generated once into
 * `<DATA_DIR>/jwt-secret` (mode 0600) and reused at every start; else (`memory://`) a random
 * in-process secret. Several instances behind one load balancer must share `JWT_SECRET`.
 */
import { localSecretHex } from '../local-secret.ts';
import type { Config } from '../config.ts';

const cache = new WeakMap<Config, Uint8Array>();

/** The secret bytes for `config` (computed once per configuration object). */
export function jwtSecret(config: Config): Uint8Array {
  const cached = cache.get(config);
  if (cached) return cached;
  const secret = new TextEncoder().encode(config.jwtSecret ?? localSecretHex(config.dataDir, 'jwt-secret', 32));
  cache.set(config, secret);
  return secret;
}
