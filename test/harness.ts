/**
 * Test harness: a real Kolo (real database, real Fastify listening on a loopback port, real
 * HTTP through `fetch`) with a manual clock. The database is PGlite in memory, or, when
 * `TEST_DATABASE_URL` is set (CI), a fresh PostgreSQL database created for this harness and
 * dropped afterwards. Nothing of Kolo's own code is mocked.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../src/config.ts';
import { openRuntime, type Runtime } from '../src/bootstrap.ts';
import { createManualClock, type ManualClock } from '../src/domain/clock.ts';
import { buildApp } from '../src/http/app.ts';
import { createMerchant } from '../src/accounts/merchants.ts';
import { createApplication, type NewApplication } from '../src/accounts/applications.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import type { Services } from '../src/services.ts';

/** A running test instance. */
export interface Harness {
  services: Services;
  runtime: Runtime;
  app: FastifyInstance;
  clock: ManualClock;
  baseUrl: string;
  config: Config;
  /** Sends a request; `body` is JSON-encoded unless `raw` is given. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Creates a merchant, an application and an active key; returns the key and ids. */
  createTenant(options?: TenantOptions): Promise<Tenant>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any;
}

export interface TenantOptions {
  currency?: string;
  /** The merchant account's country (ISO 3166 alpha-2); unset: none. */
  country?: string;
  environment?: 'TEST' | 'LIVE';
  application?: Partial<NewApplication>;
}

export interface Tenant {
  merchantId: string;
  applicationId: string;
  key: string;
  keyId: string;
}

/** Creates an empty PostgreSQL database next to `adminUrl`'s; `drop` removes it. */
export async function freshPostgresDatabase(adminUrl: string, prefix = 'kolo_test'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

let tenantCounter = 0;

/** Starts a harness. `env` overrides configuration variables (e.g. SANDBOX_DELAY_MS); `options.log` replaces the silent logger. */
export async function startHarness(env: Record<string, string> = {}, options: { log?: Logger } = {}): Promise<Harness> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const pgDb = adminUrl ? await freshPostgresDatabase(adminUrl) : null;
  const config = loadConfig({
    DATA_DIR: 'memory://',
    DATABASE_URL: pgDb?.url,
    LOG_LEVEL: 'silent',
    POLLER_ENABLED: 'false',
    DEMO_SEED: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  });
  const clock = createManualClock(new Date('2026-11-20T10:00:00Z'));
  const runtime = await openRuntime(config, { clock, log: options.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const app = await buildApp(runtime.services);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = address;
  runtime.services.config.publicBaseUrl = baseUrl;
  if (!env.CALLBACK_BASE_URL) runtime.services.config.callbackBaseUrl = baseUrl;
  const services = runtime.services;

  const request: Harness['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };

  const createTenant: Harness['createTenant'] = async (options = {}) => {
    tenantCounter += 1;
    const merchant = await createMerchant(services, {
      fullName: `Marchand ${tenantCounter}`,
      email: `marchand${tenantCounter}-${randomBytes(3).toString('hex')}@example.test`,
      ...(options.country ? { country: options.country } : {}),
    });
    const application = await createApplication(services, {
      merchantId: merchant.id,
      name: `App ${tenantCounter}`,
      currency: options.currency ?? 'XAF',
      ...options.application,
    });
    const key = await createApiKey(services, {
      applicationId: application.id,
      name: 'test',
      environment: options.environment ?? 'TEST',
    });
    return { merchantId: merchant.id, applicationId: application.id, key: key.plainTextKey, keyId: key.id };
  };

  return {
    services,
    runtime,
    app,
    clock,
    baseUrl,
    config,
    request,
    createTenant,
    async close() {
      await app.close();
      await runtime.close();
      await pgDb?.drop();
    },
  };
}
