import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretBox, loadWebhookEncryptionKey } from './secret-box.ts';

describe('secret box', () => {
  it('round-trips, never stores the plain text, and refuses altered ciphertext or another key', () => {
    const box = createSecretBox(Buffer.alloc(32, 7));
    const secret = `whsec_${'a1'.repeat(32)}`;
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
    const parts = sealed.split(':');
    const data = Buffer.from(parts[3]!, 'base64');
    data[0] = data[0]! ^ 1;
    expect(() => box.open([...parts.slice(0, 3), data.toString('base64')].join(':'))).toThrow();
    expect(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
  });

  it('uses WEBHOOK_ENCRYPTION_KEY, else generates a key file in the data directory once and reuses it', () => {
    const key = 'ab'.repeat(32);
    expect(loadWebhookEncryptionKey({ webhookEncryptionKey: key, dataDir: 'memory://', databaseUrl: undefined }).toString('hex')).toBe(key);
    const dir = mkdtempSync(join(tmpdir(), 'kolo-key-'));
    try {
      const config = { webhookEncryptionKey: undefined, dataDir: dir, databaseUrl: undefined };
      const first = loadWebhookEncryptionKey(config);
      const path = join(dir, 'webhook-encryption.key');
      expect(readFileSync(path, 'utf8').trim()).toBe(first.toString('hex'));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(loadWebhookEncryptionKey(config).equals(first)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(loadWebhookEncryptionKey({ webhookEncryptionKey: undefined, dataDir: 'memory://', databaseUrl: undefined })).toHaveLength(32);
  });
});
