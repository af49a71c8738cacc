/**
 * `loadConfig`: TRUST_PROXY as Fastify and proxy-addr read it (addresses only), and the
 * production checks of `KOLO_ENV=production` (each bound on both sides, every problem in one list).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** A complete production environment. */
const PRODUCTION = {
  KOLO_ENV: 'production',
  PUBLIC_BASE_URL: 'https://pay.example.com',
  JWT_SECRET: 'j'.repeat(32),
  WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  CHECKOUT_CSRF_SECRET: 'c'.repeat(32),
  DATABASE_URL: 'postgres://kolo@db.example.com:5432/kolo',
};

/** The lines of loadConfig's error for `env` (empty when it loads). */
function issues(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return (error as Error).message.split('\n').slice(1);
  }
}

describe('TRUST_PROXY', () => {
  it('is off unless set: false and unset mean the peer is the client', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('refuses a hop count, which would trust any client connecting directly', () => {
    for (const value of ['0', '1', '2']) {
      expect(issues({ TRUST_PROXY: value }), value).toEqual([expect.stringMatching(/^ {2}TRUST_PROXY: a hop count would trust any client/)]);
    }
  });

  it('takes addresses, CIDRs and named ranges, comma-separated', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , ::1,loopback ' }).trustProxy).toEqual(['10.0.0.0/8', '::1', 'loopback']);
  });

  it('refuses what proxy-addr would not read, and `true` (trusting every peer)', () => {
    for (const value of ['true', 'proxy.example.com', '10.0.0.0/33', '300.1.1.1', ',', '-1']) {
      expect(issues({ TRUST_PROXY: value }), value).toEqual([expect.stringMatching(/^ {2}TRUST_PROXY: /)]);
    }
  });
});

describe('KOLO_ENV=production', () => {
  it('loads a complete configuration: no demo data, private webhook hosts off', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.isProduction).toBe(true);
    expect(config.demoSeed).toBe(false);
    expect(config.webhookAllowPrivateHosts).toBe(false);
    expect(loadConfig({ ...PRODUCTION, DEMO_SEED: 'false' }).demoSeed).toBe(false);
  });

  it('keeps demo data the default in development', () => {
    expect(loadConfig({}).isProduction).toBe(false);
    expect(loadConfig({}).demoSeed).toBe(true);
    expect(loadConfig({ KOLO_ENV: 'development' }).demoSeed).toBe(true);
  });

  it('checks the shared secrets on both sides of their bounds', () => {
    expect(issues({ ...PRODUCTION, JWT_SECRET: 'j'.repeat(31) })).toEqual([expect.stringMatching(/^ {2}JWT_SECRET: /)]);
    expect(issues({ ...PRODUCTION, CHECKOUT_CSRF_SECRET: 'c'.repeat(31) })).toEqual([expect.stringMatching(/^ {2}CHECKOUT_CSRF_SECRET: /)]);
    expect(issues({ ...PRODUCTION, WEBHOOK_ENCRYPTION_KEY: 'a'.repeat(63) })).toEqual([expect.stringMatching(/^ {2}WEBHOOK_ENCRYPTION_KEY: /)]);
    expect(issues({ ...PRODUCTION, WEBHOOK_ENCRYPTION_KEY: 'g'.repeat(64) })).toEqual([expect.stringMatching(/^ {2}WEBHOOK_ENCRYPTION_KEY: /)]);
  });

  it('accepts postgresql:// and an HTTPS CALLBACK_BASE_URL; refuses an HTTP one', () => {
    expect(issues({ ...PRODUCTION, DATABASE_URL: 'postgresql://kolo@db/kolo', CALLBACK_BASE_URL: 'https://cb.example.com' })).toEqual([]);
    expect(issues({ ...PRODUCTION, CALLBACK_BASE_URL: 'http://cb.example.com' })).toEqual(['  CALLBACK_BASE_URL: must be an https:// URL in production']);
  });

  it('lists production problems together with the connector and lease ones', () => {
    const lines = issues({ ...PRODUCTION, PUBLIC_BASE_URL: '', MTN_MOMO_BASE_URL: 'https://proxy.momoapi.mtn.com', POLLER_LEASE_MS: '1000' });
    expect(lines[0]).toMatch(/^ {2}PUBLIC_BASE_URL: required in production/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}POLLER_LEASE_MS: /));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}MTN_MOMO_COLLECTION_API_KEY: required/));
  });
});
