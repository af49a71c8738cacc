/**
 * The one place that reads configuration. Every variable is documented in the README's
 * configuration table with its default; `loadConfig` parses them once with one zod schema — the
 * core variables below composed with each registered operator's (`connectors/operators.ts`) — and
 * throws a readable error naming each bad variable. `Config` is that schema's output: a plain
 * variable becomes its camel-cased name (`POLLER_INTERVAL_MS` → `pollerIntervalMs`), the
 * variables with a rule of their own are turned into settings by `configSchema`'s transform, and
 * each operator's settings sit under its key (`mtnMomo`, `wave`…), null when it is not configured.
 */
import proxyAddr from '@fastify/proxy-addr';
import { z } from 'zod';
import { operators, operatorsEnvShape, type OperatorsConfig } from './connectors/operators.ts';

/** Strings a boolean variable reads as true. */
const TRUE_VALUES: readonly string[] = ['true', '1', 'yes'];

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => TRUE_VALUES.includes(v));

const TRUST_PROXY_HELP =
  'must be false or a comma-separated list of the proxies\' addresses or CIDRs, e.g. 127.0.0.1 or 10.0.0.0/8,::1 (also loopback, linklocal, uniquelocal)';

/**
 * `TRUST_PROXY` → Fastify's `trustProxy`: `false` (never read X-Forwarded-For) or the trusted
 * proxies' addresses and CIDRs, checked with `@fastify/proxy-addr` (the library Fastify applies
 * them with). No hop count: it would trust whoever connects, and Fastify 5 reads a number as
 * "trust no one".
 */
const trustProxy = z.string().transform((raw, ctx): false | string[] => {
  const value = raw.trim().toLowerCase();
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    ctx.addIssue({ code: 'custom', message: `a hop count would trust any client that connects directly; ${TRUST_PROXY_HELP}` });
    return z.NEVER;
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  try {
    if (entries.length === 0) throw new Error('no address');
    proxyAddr.compile(entries);
  } catch {
    ctx.addIssue({ code: 'custom', message: TRUST_PROXY_HELP });
    return z.NEVER;
  }
  return entries;
});


/** Variables read as they are: each becomes the camel-cased setting of its name. Units are in the names. */
const plainVariables = {
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  /**
   * Fastify's `trustProxy`: false (the client address is the peer's) or the trusted proxies'
   * addresses and CIDRs; X-Forwarded-For is read only when the peer is one of them.
   */
  TRUST_PROXY: trustProxy.default(false),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  /** Port of the metrics-only listener (`GET /metrics`); unset → none. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Bearer token that opens `GET /metrics` on the public port; unset → not served there. */
  METRICS_TOKEN: z.string().min(32).optional(),
  /** Longest a graceful stop may take (SIGTERM/SIGINT) before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PG_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Embedded PGlite only: its `shared_buffers`, in MiB (memory held by the process; PostgreSQL's own default is 128). */
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(8),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(1024 * 1024),
  CHECKOUT_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24).max(24 * 30).default(24),
  // A batch pay-out not approved within this time expires (src/batches); nothing was reserved yet.
  BATCH_EXPIRY_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(72),
  // Items of approved batches sent per rail per dispatcher run (one run per poller interval).
  BATCH_ITEMS_PER_RAIL_PER_RUN: z.coerce.number().int().min(1).max(100).default(5),
  POLLER_ENABLED: bool.default(true),
  /** The daily reconciliation of each LIVE rail whose operator has a transaction list by API (Wave, M-Pesa; instances with the poller run it). */
  RECONCILIATION_DAILY: bool.default(true),
  /** The hour (UTC, 0–23) from which the daily reconciliation of the previous day runs. */
  RECONCILIATION_HOUR_UTC: z.coerce.number().int().min(0).max(23).default(3),
  POLLER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  POLLER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(200),
  /** Poller questions (status queries, late watches) in flight at once per operator. */
  POLLER_OPERATOR_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Poller questions started per second per operator. */
  POLLER_OPERATOR_RATE: z.coerce.number().int().min(1).max(10_000).default(100),
  CONNECTOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Connections open at once to one operator (its base URL's origin), every call together; a call beyond waits for one within its timeout. */
  OPERATOR_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(4096).default(128),
  SANDBOX_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  SANDBOX_LATE_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
  /** Opening available balance of a TEST application (per currency), base units; 0 for none. */
  SANDBOX_OPENING_BALANCE: z.coerce.number().int().min(0).max(1_000_000_000_000).default(1_000_000),
  /** How long a charge failed at its deadline is still asked about, so a late success is never dropped; 0: not at all. */
  LATE_SUCCESS_WATCH_HOURS: z.coerce.number().int().min(0).max(24 * 30).default(24),
  /** HMAC key of the checkout page's CSRF tokens; unset → random per process (one instance only). */
  CHECKOUT_CSRF_SECRET: z.string().min(32).optional(),
  /** Payment attempts allowed per checkout session. */
  CHECKOUT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  /** Payment attempts allowed per client IP per hour, all sessions together. */
  CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(30),
  /** AES-256-GCM key (64 hex) for webhook secrets at rest; unset → generated (webhooks/secret-box.ts). */
  WEBHOOK_ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
  /** Let webhook URLs reach loopback/private/link-local hosts (local use and tests only). */
  WEBHOOK_ALLOW_PRIVATE_HOSTS: bool.default(false),
  /** How long a rotated-out webhook secret keeps signing. */
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().int().min(0).max(24 * 30).default(24),
  WEBHOOK_WORKER_ENABLED: bool.default(true),
  WEBHOOK_WORKER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  // Each batch is claimed and recorded in one statement: larger batches drain a backlog faster
  // when nothing else runs, but hold up the API's answers while they are written.
  WEBHOOK_WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
  /** Whole-request timeout of one webhook attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /**
   * How long a worker's claim holds a delivery; a crashed worker's claims are sent again after
   * it. Always at least `WEBHOOK_TIMEOUT_MS` + 1 s, so a live worker records before it ends.
   */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** HS256 secret of dashboard access tokens; unset → generated (see dashboard/jwt-secret.ts). */
  JWT_SECRET: z.string().min(32).optional(),
  ACCESS_TOKEN_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  EMAIL_VERIFICATION_REQUIRED: bool.default(true),
  OTP_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(10),
  /** Failed logins or code guesses per e-mail before a lockout of `AUTH_LOCKOUT_MINUTES`. */
  AUTH_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** Failed logins from one client IP (any e-mail) before that IP is locked out. */
  AUTH_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
  AUTH_LOCKOUT_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Kolo <no-reply@kolo.local>'),
  /** Where mails are written without SMTP; unset → `<dataDir>/mail` (none for `memory://`). */
  MAIL_DIR: z.string().optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  /** Origins (`scheme://host[:port]`) whose browsers may call the dashboard API with credentials: comma-separated, default none (no CORS at all). */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter((o) => o.length > 0))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^\s/]+$/, 'each origin must be scheme://host[:port], e.g. https://dashboard.example.com'))),
  ADMIN_PASSWORD: z.string().min(12).max(128).optional(),
  /** How often the float job reads each LIVE rail's operator balance (float/). */
  FLOAT_READ_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  /**
   * Longest wait between two balance queries of a rail whose operator gives no balance (errors, no
   * answer, an asynchronous Result that never comes): the wait doubles from FLOAT_READ_INTERVAL_MS
   * per unanswered query up to this (float/read-backoff.ts).
   */
  FLOAT_READ_BACKOFF_MAX_MS: z.coerce.number().int().min(1000).max(7 * 86_400_000).default(3_600_000),
  /** Longest a pay-out waits for its rail's float before it fails `FLOAT_WAIT_EXPIRED`. */
  FLOAT_QUEUE_MAX_WAIT_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(240),
  /**
   * Low and critical watermarks of each LIVE rail's float, base units:
   * `RAIL=low:critical` comma-separated, e.g. `MTN_MOMO_CM=500000:100000`; a rail not named has 0:0.
   */
  FLOAT_WATERMARKS: z
    .string()
    .default('')
    .transform((raw, ctx) => {
      const out: Record<string, { low: number; critical: number }> = {};
      for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e.length > 0)) {
        const m = /^([A-Z0-9_]+)=(\d{1,15}):(\d{1,15})$/.exec(entry);
        if (!m || Number(m[3]) > Number(m[2])) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" must be RAIL=low:critical with critical ≤ low, e.g. MTN_MOMO_CM=500000:100000` });
          return z.NEVER;
        }
        out[m[1]!] = { low: Number(m[2]), critical: Number(m[3]) };
      }
      return out;
    }),
  /** A statement of more days than this is prepared in the background and offered for download when ready. */
  STATEMENT_SYNC_MAX_DAYS: z.coerce.number().int().min(1).max(3660).default(31),
  /** log2 of scrypt's N for new password hashes (OWASP: 17); tests may lower it to 14. */
  PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(14).max(20).default(17),
};

/** Variables with a rule of their own (a default computed from others, a grouping, a rename): see `configSchema`. */
const ruledVariables = {
  // `production`: the start-up checks of `productionIssues`; `development`: demo data by default.
  KOLO_ENV: z.enum(['development', 'production']).default('development'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  METRICS_HOST: z.string().optional(),
  RETENTION_WEBHOOK_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  RETENTION_TRANSACTION_EVENT_DAYS: z.coerce.number().int().min(0).max(36_500).default(730),
  RETENTION_AUDIT_DAYS: z.coerce.number().int().min(0).max(36_500).default(730),
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  // Unset: true in development, false in production (where true is refused).
  DEMO_SEED: bool.optional(),
  // Unset: 60 s, or CONNECTOR_TIMEOUT_MS + 5 s when that is longer.
  POLLER_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).optional(),
  /** Also let the `CORS_ORIGINS` call the merchant API (X-API-KEY) from a browser; off by default (the key then lives in that browser). */
  CORS_MERCHANT_API: bool.default(false),
  // Operator connectors: each is on exactly when its base URL is set (connectors/<operator>/*-config.ts).
  CALLBACK_BASE_URL: z.string().url().optional(),
};

/** `POLLER_LEASE_MS` → `pollerLeaseMs`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}` : Lowercase<S>;

/** `POLLER_LEASE_MS` → `pollerLeaseMs` (the runtime twin of `CamelCase`). */
function camelCase<S extends string>(name: S): CamelCase<S> {
  return name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;
}

type PlainSettings = { [K in keyof typeof plainVariables as CamelCase<K>]: z.output<(typeof plainVariables)[K]> };

/** Time a claim lease must leave beyond the bounded call it covers (reads and recording). */
const LEASE_MARGIN_MS = 1000;

/** Every variable Kolo reads: the core ones and each registered operator's (a name defined twice is refused here). */
export const envSchema = z.object({ ...plainVariables, ...ruledVariables, ...operatorsEnvShape });

/**
 * The environment → `Config`: plain variables camel-cased, the ruled ones below, each operator's
 * settings built by its own configuration (`settingsOf`), and the checks that span variables.
 */
export const configSchema = envSchema.transform((e, ctx) => {
  // A lease shorter than the call it covers would let a second instance repeat a live call.
  if (e.POLLER_LEASE_MS !== undefined && e.POLLER_LEASE_MS < e.CONNECTOR_TIMEOUT_MS + LEASE_MARGIN_MS) {
    ctx.addIssue({ code: 'custom', path: ['POLLER_LEASE_MS'], message: `must be at least CONNECTOR_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${e.CONNECTOR_TIMEOUT_MS + LEASE_MARGIN_MS})` });
  }
  if (e.WEBHOOK_LEASE_MS < e.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS) {
    ctx.addIssue({ code: 'custom', path: ['WEBHOOK_LEASE_MS'], message: `must be at least WEBHOOK_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${e.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS})` });
  }
  const plain = Object.fromEntries(Object.keys(plainVariables).map((name) => [camelCase(name), e[name as keyof typeof plainVariables]])) as PlainSettings;
  const operatorSettings = Object.fromEntries(operators.map((o) => [o.key, o.config.settingsOf(e, ctx)])) as OperatorsConfig;
  const isProduction = e.KOLO_ENV === 'production';
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    ...plain,
    /** `KOLO_ENV=production`: started only after `productionIssues` found nothing; no demo data, JSON logs. */
    isProduction,
    publicBaseUrl,
    /** Address of the metrics-only listener (default: HOST). */
    metricsHost: e.METRICS_HOST ?? e.HOST,
    /**
     * Ages after which the retention job purges: finished webhook deliveries with their attempts
     * and events, events of finished transactions, audit entries. 0 = keep for ever. Transactions
     * themselves are never purged.
     */
    retention: {
      webhookDays: e.RETENTION_WEBHOOK_DAYS,
      transactionEventDays: e.RETENTION_TRANSACTION_EVENT_DAYS,
      auditDays: e.RETENTION_AUDIT_DAYS,
      intervalMs: e.RETENTION_INTERVAL_MS,
      batchSize: e.RETENTION_BATCH_SIZE,
    },
    demoSeed: e.DEMO_SEED ?? !isProduction,
    /**
     * How long a poller's claim holds a transaction; a crashed instance's claims are polled again
     * after it. Always at least `connectorTimeoutMs` + 1 s, so a live poller finishes first.
     */
    pollerLeaseMs: e.POLLER_LEASE_MS ?? Math.max(60_000, e.CONNECTOR_TIMEOUT_MS + 5000),
    /** The `corsOrigins` may also call the merchant API (pay-in, pay-out, webhook configuration) with `X-API-KEY`. */
    isCorsMerchantApi: e.CORS_MERCHANT_API,
    /** Base of the operator callback URLs (`CALLBACK_BASE_URL`, default `publicBaseUrl`); public HTTPS in production. */
    callbackBaseUrl: (e.CALLBACK_BASE_URL ?? publicBaseUrl).replace(/\/+$/, ''),
    ...operatorSettings,
  };
});

/** Parsed configuration (`configSchema`'s output). Units are in the names (`…Ms`, `…Minutes`, `…Bytes`). */
export type Config = z.output<typeof configSchema>;

/** What production needs and each shared secret's purpose, for the error message. */
const SHARED_SECRETS = {
  JWT_SECRET: 'signs dashboard sessions',
  WEBHOOK_ENCRYPTION_KEY: 'encrypts webhook secrets at rest; 64 hex characters',
  CHECKOUT_CSRF_SECRET: "signs the checkout pages' forms",
} as const;

/**
 * With `KOLO_ENV=production`, one line per missing or unsafe variable of the raw environment `env`
 * (formats, such as a secret's length, are the schema's): no demo data, an HTTPS
 * `PUBLIC_BASE_URL` (and `CALLBACK_BASE_URL` when set), the three shared secrets, PostgreSQL, and
 * webhooks to public addresses only.
 */
function productionIssues(env: Record<string, string>): string[] {
  const issues: string[] = [];
  const isHttps = (url: string) => /^https:\/\//i.test(url);
  if (env.DEMO_SEED !== undefined && TRUE_VALUES.includes(env.DEMO_SEED)) {
    issues.push('  DEMO_SEED: demo data is refused in production (unset it)');
  }
  if (env.PUBLIC_BASE_URL === undefined) {
    issues.push('  PUBLIC_BASE_URL: required in production: the HTTPS address customers and operators reach, e.g. https://pay.example.com');
  } else if (!isHttps(env.PUBLIC_BASE_URL)) {
    issues.push('  PUBLIC_BASE_URL: must be an https:// URL in production');
  }
  if (env.CALLBACK_BASE_URL !== undefined && !isHttps(env.CALLBACK_BASE_URL)) {
    issues.push('  CALLBACK_BASE_URL: must be an https:// URL in production');
  }
  for (const [name, purpose] of Object.entries(SHARED_SECRETS)) {
    if (env[name] === undefined) {
      issues.push(`  ${name}: required in production (${purpose}; the same value on every instance), e.g. the output of openssl rand -hex 32`);
    }
  }
  if (env.DATABASE_URL === undefined) {
    issues.push('  DATABASE_URL: required in production: a PostgreSQL URL, e.g. postgres://kolo@db.internal:5432/kolo (the embedded database is for development)');
  } else if (!/^postgres(ql)?:\/\//i.test(env.DATABASE_URL)) {
    issues.push('  DATABASE_URL: must be a postgres:// or postgresql:// URL');
  }
  if (env.WEBHOOK_ALLOW_PRIVATE_HOSTS !== undefined && TRUE_VALUES.includes(env.WEBHOOK_ALLOW_PRIVATE_HOSTS)) {
    issues.push('  WEBHOOK_ALLOW_PRIVATE_HOSTS: refused in production: webhooks go to public addresses only (unset it)');
  }
  return issues;
}

/**
 * Parses `env` (normally `process.env`). Throws an Error listing every invalid variable, and with
 * `KOLO_ENV=production` every missing or unsafe one (`productionIssues`) in the same list.

/**
 * Parses `env` (normally `process.env`). Throws an Error listing every invalid variable, and with
 * `KOLO_ENV=production` every missing or unsafe one (`productionIssues`), first, in the same list.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;
  const parsed = configSchema.safeParse(cleaned);
  const schemaLines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const isProduction = cleaned.KOLO_ENV === 'production';
  // Each variable once: one the schema already refused is not reported again.
  const productionLines = isProduction
    ? productionIssues(cleaned).filter((line) => !schemaLines.some((s) => s.startsWith(line.slice(0, line.indexOf(':') + 1))))
    : [];
  const heading = isProduction ? 'Invalid configuration for production (KOLO_ENV=production)' : 'Invalid configuration';
  const lines = [...productionLines, ...schemaLines];
  if (!parsed.success || lines.length > 0) throw new Error(`${heading}:\n${lines.join('\n')}`);
  return parsed.data;
}
