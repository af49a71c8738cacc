/**
 * Encryption at rest of webhook secrets: AES-256-GCM (node:crypto) under a 32-byte key.
 * The key comes from `WEBHOOK_ENCRYPTION_KEY` (64 hex characters); without it, the embedded
 * default generates one into `<DATA_DIR>/webhook-encryption.key` (mode 0600) on first start, and
 * an in-memory database (`memory://`) uses a random key for the life of the process.
 * Ciphertext format: `v1:<base64 iv(12)>:<base64 tag(16)>:<base64 ciphertext>`.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { localSecretHex } from '../local-secret.ts';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

/** Encrypts and decrypts short secrets. */
export interface SecretBox {
  /** `secretFingerprint` of the key: compared between instances, never the key itself. */
  keyFingerprint: string;
  seal(plainText: string): string;
  /** Throws when the ciphertext was not produced under this key (or was altered). */
  open(cipherText: string): string;
}

/** A box under `key` (32 bytes). */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('webhook encryption key must be 32 bytes');
  return {
    keyFingerprint: secretFingerprint(key),
    seal(plainText) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
    },
    open(cipherText) {
      const [version, iv, tag, data] = cipherText.split(':');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown webhook secret ciphertext format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

const KEY_FILE = 'webhook-encryption.key';

/**
 * A fingerprint of a secret that instances can compare without revealing it: the hex
 * HMAC-SHA256 of a fixed label, keyed with the secret.
 */
export function secretFingerprint(secret: Buffer | Uint8Array | string): string {
  return createHmac('sha256', secret).update('kolo shared secret fingerprint v1').digest('hex');
}

/**
 * Resolves the encryption key as described in the module comment. Throws when the key file
 * exists but is not 64 hex characters (never silently replaces a key: secrets would be lost).
 */
export function loadWebhookEncryptionKey(config: Pick<Config, 'webhookEncryptionKey' | 'dataDir' | 'databaseUrl'>, log?: Logger): Buffer {
  if (config.webhookEncryptionKey) return Buffer.from(config.webhookEncryptionKey, 'hex');
  if (config.dataDir.startsWith('memory://')) return randomBytes(32);
  const path = join(config.dataDir, KEY_FILE);
  const isNew = !existsSync(path);
  const key = Buffer.from(localSecretHex(config.dataDir, KEY_FILE, 32), 'hex');
  if (isNew && config.databaseUrl) {
    log?.warn({ path }, 'generated a webhook encryption key locally; set WEBHOOK_ENCRYPTION_KEY so every instance shares it');
  }
  return key;
}
