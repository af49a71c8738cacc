import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localSecretHex } from './local-secret.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kolo-secret-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('localSecretHex', () => {
  it('generates the secret once into the data directory (mode 0600) and returns it at every later call', () => {
    const dir = join(tempDir(), 'data');
    const first = localSecretHex(dir, 'some-secret', 32);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dir, 'some-secret'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, 'some-secret')).mode & 0o777).toBe(0o600);
    expect(localSecretHex(dir, 'some-secret', 32)).toBe(first);
    expect(localSecretHex(dir, 'other-secret', 32)).not.toBe(first);
  });

  it('refuses a damaged file rather than replacing it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'some-secret'), 'not hex\n');
    expect(() => localSecretHex(dir, 'some-secret', 32)).toThrow(/64 hex characters/);
    expect(readFileSync(join(dir, 'some-secret'), 'utf8')).toBe('not hex\n');
  });

  it('keeps a memory:// secret in the process only, a new one each time', () => {
    const a = localSecretHex('memory://', 'some-secret', 16);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(localSecretHex('memory://', 'some-secret', 16)).not.toBe(a);
  });
});
