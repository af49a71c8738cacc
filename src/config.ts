/**
 * The one place that reads configuration. Every variable is documented in the README's
 * configuration table with its default; `loadConfig` parses them once with zod and throws a
 * readable error naming each bad variable.
 */
import proxyAddr from '@fastify/proxy-addr';
import { z } from 'zod';
import type { DarajaAccount } from './connectors/mpesa/mpesa-transformers.ts';

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

const configSchema = z.object({
  // `production`: the start-up checks of `productionIssues`; `development`: demo data by default.
  KOLO_ENV: z.enum(['development', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  TRUST_PROXY: trustProxy.default(false),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().optional(),
  METRICS_TOKEN: z.string().min(32).optional(),
  RETENTION_WEBHOOK_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  RETENTION_TRANSACTION_EVENT_DAYS: z.coerce.number().int().min(0).max(36_500).default(730),
  RETENTION_AUDIT_DAYS: z.coerce.number().int().min(0).max(36_500).default(730),
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Unset: true in development, false in production (where true is refused).
  DEMO_SEED: bool.optional(),
  PG_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(8),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(1024 * 1024),
  CHECKOUT_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24).max(24 * 30).default(24),
  POLLER_ENABLED: bool.default(true),
  POLLER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  POLLER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(200),
  // Unset: 60 s, or CONNECTOR_TIMEOUT_MS + 5 s when that is longer (see loadConfig).
  POLLER_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).optional(),
  CONNECTOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  SANDBOX_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  SANDBOX_LATE_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
  // Ledger: what a TEST application's available balance starts at, base units.
  SANDBOX_OPENING_BALANCE: z.coerce.number().int().min(0).max(1_000_000_000_000).default(1_000_000),
  LATE_SUCCESS_WATCH_HOURS: z.coerce.number().int().min(0).max(24 * 30).default(24),
  // Hosted checkout page.
  CHECKOUT_CSRF_SECRET: z.string().min(32).optional(),
  CHECKOUT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(30),
  // Webhooks.
  WEBHOOK_ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
  WEBHOOK_ALLOW_PRIVATE_HOSTS: bool.default(false),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().int().min(0).max(24 * 30).default(24),
  WEBHOOK_WORKER_ENABLED: bool.default(true),
  WEBHOOK_WORKER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  // Each batch is claimed and recorded in one statement: larger batches drain a backlog faster
  // when nothing else runs, but hold up the API's answers while they are written.
  WEBHOOK_WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  // Dashboard.
  JWT_SECRET: z.string().min(32).optional(),
  ACCESS_TOKEN_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  EMAIL_VERIFICATION_REQUIRED: bool.default(true),
  OTP_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(10),
  AUTH_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  AUTH_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
  AUTH_LOCKOUT_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Kolo <no-reply@kolo.local>'),
  MAIL_DIR: z.string().optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  /** Origins allowed to call the dashboard API from a browser: comma-separated, default none. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter((o) => o.length > 0))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^\s/]+$/, 'each origin must be scheme://host[:port], e.g. https://dashboard.example.com'))),
  /** Also let the `CORS_ORIGINS` call the merchant API (X-API-KEY) from a browser; off by default (the key then lives in that browser). */
  CORS_MERCHANT_API: bool.default(false),
  ADMIN_PASSWORD: z.string().min(12).max(128).optional(),
  PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(14).max(20).default(17),
  // Operator connectors. A connector is on exactly when its base URL is set.
  CALLBACK_BASE_URL: z.string().url().optional(),
  MTN_MOMO_BASE_URL: z.string().url().optional(),
  MTN_MOMO_TARGET_ENVIRONMENT: z.string().regex(/^[a-z]{3,40}$/, 'must be lowercase letters, e.g. mtncameroon').default('mtncameroon'),
  MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: z.string().optional(),
  MTN_MOMO_COLLECTION_API_USER: z.string().optional(),
  MTN_MOMO_COLLECTION_API_KEY: z.string().optional(),
  MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: z.string().optional(),
  MTN_MOMO_DISBURSEMENT_API_USER: z.string().optional(),
  MTN_MOMO_DISBURSEMENT_API_KEY: z.string().optional(),
  ORANGE_MONEY_BASE_URL: z.string().url().optional(),
  ORANGE_MONEY_CONSUMER_KEY: z.string().optional(),
  ORANGE_MONEY_CONSUMER_SECRET: z.string().optional(),
  ORANGE_MONEY_API_USERNAME: z.string().optional(),
  ORANGE_MONEY_API_PASSWORD: z.string().optional(),
  ORANGE_MONEY_CHANNEL_MSISDN: z.string().regex(/^6\d{8}$/, 'must be the 9-digit merchant number, e.g. 691234567').optional(),
  ORANGE_MONEY_PIN: z.string().regex(/^\d{4,6}$/, 'must be 4 to 6 digits').optional(),
  // Wave: one wallet per country, separate Checkout and Payout keys.
  WAVE_BASE_URL: z.string().url().optional(),
  WAVE_WEBHOOK_SECRET: z.string().min(16).optional(),
  WAVE_SN_CHECKOUT_API_KEY: z.string().optional(),
  WAVE_SN_PAYOUT_API_KEY: z.string().optional(),
  WAVE_CI_CHECKOUT_API_KEY: z.string().optional(),
  WAVE_CI_PAYOUT_API_KEY: z.string().optional(),
  // M-Pesa Daraja.
  MPESA_BASE_URL: z.string().url().optional(),
  MPESA_CONSUMER_KEY: z.string().optional(),
  MPESA_CONSUMER_SECRET: z.string().optional(),
  MPESA_SHORTCODE: z.string().regex(/^\d{5,7}$/, 'must be the 5 to 7-digit paybill or store number, e.g. 174379').optional(),
  MPESA_PASSKEY: z.string().optional(),
  MPESA_TRANSACTION_TYPE: z.enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']).default('CustomerPayBillOnline'),
  MPESA_TILL_NUMBER: z.string().regex(/^\d{5,7}$/, 'must be the 5 to 7-digit till number').optional(),
  MPESA_B2C_SHORTCODE: z.string().regex(/^\d{5,7}$/, 'must be the 5 to 7-digit B2C shortcode, e.g. 600996').optional(),
  MPESA_INITIATOR_NAME: z.string().optional(),
  MPESA_SECURITY_CREDENTIAL: z.string().optional(),
});

type ParsedEnv = z.infer<typeof configSchema>;

/** Credentials of one MTN MoMo product (collection or disbursement), from the partner portal. */
export interface MtnProductCredentials {
  subscriptionKey: string;
  apiUser: string;
  apiKey: string;
}

/** MTN MoMo Open API settings (Collection, Disbursement); secrets never leave the connector. */
export interface MtnMomoConfig {
  baseUrl: string;
  targetEnvironment: string;
  collection: MtnProductCredentials;
  disbursement: MtnProductCredentials;
}

/** Orange Money Cameroon OM API settings (`omcoreapis`); secrets never leave the connector. */
export interface OrangeMoneyConfig {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  apiUsername: string;
  apiPassword: string;
  channelMsisdn: string;
  pin: string;
}

/** One Wave business wallet (a country): its Checkout and Payout API keys. */
export interface WaveWalletConfig {
  country: 'SN' | 'CI';
  checkoutApiKey: string;
  payoutApiKey: string;
}

/** Wave settings (Checkout and Payout APIs): base URL, webhook signing secret, wallets by country. */
export interface WaveConfig {
  baseUrl: string;
  webhookSecret: string;
  wallets: WaveWalletConfig[];
}

/** M-Pesa Daraja 3.0 settings (M-Pesa Express, B2C); secrets never leave the connector. */
export interface MpesaConfig extends DarajaAccount {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

/** Every variable in `names` set, or the list of missing ones. */
function requireAll<K extends keyof ParsedEnv>(e: ParsedEnv, names: K[], because: string, issues: string[]): boolean {
  const missing = names.filter((n) => e[n] === undefined);
  for (const n of missing) issues.push(`  ${String(n)}: required when ${because} is set`);
  return missing.length === 0;
}

function connectorConfigs(
  e: ParsedEnv,
  issues: string[],
): { mtnMomo: MtnMomoConfig | null; orangeMoney: OrangeMoneyConfig | null; mpesa: MpesaConfig | null; wave: WaveConfig | null } {
  let mtnMomo: MtnMomoConfig | null = null;
  let orangeMoney: OrangeMoneyConfig | null = null;
  const mtnKeys = [
    'MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY',
    'MTN_MOMO_COLLECTION_API_USER',
    'MTN_MOMO_COLLECTION_API_KEY',
    'MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY',
    'MTN_MOMO_DISBURSEMENT_API_USER',
    'MTN_MOMO_DISBURSEMENT_API_KEY',
  ] as const;
  if (e.MTN_MOMO_BASE_URL && requireAll(e, [...mtnKeys], 'MTN_MOMO_BASE_URL', issues)) {
    mtnMomo = {
      baseUrl: e.MTN_MOMO_BASE_URL.replace(/\/+$/, ''),
      targetEnvironment: e.MTN_MOMO_TARGET_ENVIRONMENT,
      collection: {
        subscriptionKey: e.MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY!,
        apiUser: e.MTN_MOMO_COLLECTION_API_USER!,
        apiKey: e.MTN_MOMO_COLLECTION_API_KEY!,
      },
      disbursement: {
        subscriptionKey: e.MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY!,
        apiUser: e.MTN_MOMO_DISBURSEMENT_API_USER!,
        apiKey: e.MTN_MOMO_DISBURSEMENT_API_KEY!,
      },
    };
  }
  const orangeKeys = [
    'ORANGE_MONEY_CONSUMER_KEY',
    'ORANGE_MONEY_CONSUMER_SECRET',
    'ORANGE_MONEY_API_USERNAME',
    'ORANGE_MONEY_API_PASSWORD',
    'ORANGE_MONEY_CHANNEL_MSISDN',
    'ORANGE_MONEY_PIN',
  ] as const;
  if (e.ORANGE_MONEY_BASE_URL && requireAll(e, [...orangeKeys], 'ORANGE_MONEY_BASE_URL', issues)) {
    orangeMoney = {
      baseUrl: e.ORANGE_MONEY_BASE_URL.replace(/\/+$/, ''),
      consumerKey: e.ORANGE_MONEY_CONSUMER_KEY!,
      consumerSecret: e.ORANGE_MONEY_CONSUMER_SECRET!,
      apiUsername: e.ORANGE_MONEY_API_USERNAME!,
      apiPassword: e.ORANGE_MONEY_API_PASSWORD!,
      channelMsisdn: e.ORANGE_MONEY_CHANNEL_MSISDN!,
      pin: e.ORANGE_MONEY_PIN!,
    };
  }
  let mpesa: MpesaConfig | null = null;
  const mpesaKeys = [
    'MPESA_CONSUMER_KEY',
    'MPESA_CONSUMER_SECRET',
    'MPESA_SHORTCODE',
    'MPESA_PASSKEY',
    'MPESA_B2C_SHORTCODE',
    'MPESA_INITIATOR_NAME',
    'MPESA_SECURITY_CREDENTIAL',
  ] as const;
  if (e.MPESA_TRANSACTION_TYPE === 'CustomerBuyGoodsOnline' && e.MPESA_BASE_URL && !e.MPESA_TILL_NUMBER) {
    issues.push('  MPESA_TILL_NUMBER: required when MPESA_TRANSACTION_TYPE is CustomerBuyGoodsOnline');
  }
  if (e.MPESA_BASE_URL && requireAll(e, [...mpesaKeys], 'MPESA_BASE_URL', issues)) {
    mpesa = {
      baseUrl: e.MPESA_BASE_URL.replace(/\/+$/, ''),
      consumerKey: e.MPESA_CONSUMER_KEY!,
      consumerSecret: e.MPESA_CONSUMER_SECRET!,
      shortCode: e.MPESA_SHORTCODE!,
      passkey: e.MPESA_PASSKEY!,
      transactionType: e.MPESA_TRANSACTION_TYPE,
      partyB: e.MPESA_TRANSACTION_TYPE === 'CustomerBuyGoodsOnline' ? (e.MPESA_TILL_NUMBER ?? '') : e.MPESA_SHORTCODE!,
      b2cShortCode: e.MPESA_B2C_SHORTCODE!,
      initiatorName: e.MPESA_INITIATOR_NAME!,
      securityCredential: e.MPESA_SECURITY_CREDENTIAL!,
    };
  }
  let wave: WaveConfig | null = null;
  if (e.WAVE_BASE_URL && requireAll(e, ['WAVE_WEBHOOK_SECRET'], 'WAVE_BASE_URL', issues)) {
    const wallets: WaveWalletConfig[] = [];
    for (const country of ['SN', 'CI'] as const) {
      const checkout = e[`WAVE_${country}_CHECKOUT_API_KEY`];
      const payout = e[`WAVE_${country}_PAYOUT_API_KEY`];
      if (checkout && payout) wallets.push({ country, checkoutApiKey: checkout, payoutApiKey: payout });
      else if (checkout || payout) issues.push(`  WAVE_${country}_${checkout ? 'PAYOUT' : 'CHECKOUT'}_API_KEY: required with WAVE_${country}_${checkout ? 'CHECKOUT' : 'PAYOUT'}_API_KEY`);
    }
    if (wallets.length === 0) issues.push('  WAVE_SN_CHECKOUT_API_KEY: a wallet (SN or CI) is required when WAVE_BASE_URL is set');
    wave = { baseUrl: e.WAVE_BASE_URL.replace(/\/+$/, ''), webhookSecret: e.WAVE_WEBHOOK_SECRET!, wallets };
  }
  return { mtnMomo, orangeMoney, mpesa, wave };
}

/** Time a claim lease must leave beyond the bounded call it covers (reads and recording). */
const LEASE_MARGIN_MS = 1000;

/** Parsed configuration. Units are in the names (`…Ms`, `…Minutes`, `…Bytes`). */
export interface Config {
  /** `KOLO_ENV=production`: started only after `productionIssues` found nothing; no demo data, JSON logs. */
  isProduction: boolean;
  port: number;
  host: string;
  /**
   * Fastify's `trustProxy`: false (the client address is the peer's) or the trusted proxies'
   * addresses and CIDRs; X-Forwarded-For is read only when the peer is one of them.
   */
  trustProxy: false | string[];
  databaseUrl: string | undefined;
  dataDir: string;
  publicBaseUrl: string;
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
  /** Port of the metrics-only listener (`GET /metrics`); undefined → none. */
  metricsPort: number | undefined;
  /** Address of the metrics-only listener (default: HOST). */
  metricsHost: string;
  /** Bearer token that opens `GET /metrics` on the public port; undefined → not served there. */
  metricsToken: string | undefined;
  /**
   * Ages after which the retention job purges: finished webhook deliveries with their attempts
   * and events, events of finished transactions, audit entries. 0 = keep for ever. Transactions
   * themselves are never purged.
   */
  retention: { webhookDays: number; transactionEventDays: number; auditDays: number; intervalMs: number; batchSize: number };
  /** Longest a graceful stop may take (SIGTERM/SIGINT) before the process exits anyway. */
  shutdownTimeoutMs: number;
  demoSeed: boolean;
  pgPoolMax: number;
  /** Embedded PGlite only: its `shared_buffers`, in MiB (memory held by the process; PostgreSQL's own default is 128). */
  pgliteSharedBuffersMb: number;
  bodyLimitBytes: number;
  checkoutTtlMinutes: number;
  idempotencyTtlHours: number;
  pollerEnabled: boolean;
  pollerIntervalMs: number;
  pollerBatchSize: number;
  /**
   * How long a poller's claim holds a transaction; a crashed instance's claims are polled again
   * after it. Always at least `connectorTimeoutMs` + 1 s, so a live poller finishes first.
   */
  pollerLeaseMs: number;
  connectorTimeoutMs: number;
  sandboxDelayMs: number;
  sandboxLateDelayMs: number;
  /** Opening available balance of a TEST application (per currency), base units; 0 for none. */
  sandboxOpeningBalance: number;
  /** How long a charge failed at its deadline is still asked about, so a late success is never dropped; 0: not at all. */
  lateSuccessWatchHours: number;
  /** HMAC key of the checkout page's CSRF tokens; undefined → random per process (one instance only). */
  checkoutCsrfSecret: string | undefined;
  /** Payment attempts allowed per checkout session. */
  checkoutMaxAttempts: number;
  /** Payment attempts allowed per client IP per hour, all sessions together. */
  checkoutAttemptsPerIpPerHour: number;
  /** AES-256-GCM key (64 hex) for webhook secrets at rest; undefined → generated (webhooks/secret-box.ts). */
  webhookEncryptionKey: string | undefined;
  /** Let webhook URLs reach loopback/private/link-local hosts (local use and tests only). */
  webhookAllowPrivateHosts: boolean;
  /** How long a rotated-out webhook secret keeps signing. */
  webhookSecretOverlapHours: number;
  webhookWorkerEnabled: boolean;
  webhookWorkerIntervalMs: number;
  webhookWorkerBatchSize: number;
  /** Whole-request timeout of one webhook attempt. */
  webhookTimeoutMs: number;
  /**
   * How long a worker's claim holds a delivery; a crashed worker's claims are sent again after
   * it. Always at least `webhookTimeoutMs` + 1 s, so a live worker records before it ends.
   */
  webhookLeaseMs: number;
  /** HS256 secret of dashboard access tokens; undefined → generated (see dashboard/jwt-secret.ts). */
  jwtSecret: string | undefined;
  accessTokenTtlMinutes: number;
  refreshTokenTtlDays: number;
  emailVerificationRequired: boolean;
  otpTtlMinutes: number;
  /** Failed logins or code guesses per e-mail before a lockout of `authLockoutMinutes`. */
  authMaxFailures: number;
  /** Failed logins from one client IP (any e-mail) before that IP is locked out. */
  authMaxFailuresPerIp: number;
  authLockoutMinutes: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Where mails are written without SMTP; undefined → `<dataDir>/mail` (none for `memory://`). */
  mailDir: string | undefined;
  adminEmail: string | undefined;
  /** Origins (`scheme://host[:port]`) whose browsers may call the dashboard API with credentials; empty: no CORS at all. */
  corsOrigins: string[];
  /** The `corsOrigins` may also call the merchant API (pay-in, pay-out, webhook configuration) with `X-API-KEY`. */
  isCorsMerchantApi: boolean;
  adminPassword: string | undefined;
  /** log2 of scrypt's N for new password hashes (OWASP: 17); tests may lower it to 14. */
  passwordScryptLogN: number;
  /** Base of the operator callback URLs (`CALLBACK_BASE_URL`, default `publicBaseUrl`); public HTTPS in production. */
  callbackBaseUrl: string;
  /** MTN MoMo connector settings; null when not configured (MTN rails then refuse LIVE keys). */
  mtnMomo: MtnMomoConfig | null;
  /** Orange Money Cameroon connector settings; null when not configured. */
  orangeMoney: OrangeMoneyConfig | null;
  /** M-Pesa Daraja connector settings (MPESA_KE); null when not configured. */
  mpesa: MpesaConfig | null;
  /** Wave connector settings (WAVE_SN, WAVE_CI); null when not configured. */
  wave: WaveConfig | null;
}

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
  if (!parsed.success) throw new Error(`${heading}:\n${[...schemaLines, ...productionLines].join('\n')}`);
  const e = parsed.data;
  const issues: string[] = [...productionLines];
  // A lease shorter than the call it covers would let a second instance repeat a live call.
  if (e.POLLER_LEASE_MS !== undefined && e.POLLER_LEASE_MS < e.CONNECTOR_TIMEOUT_MS + LEASE_MARGIN_MS) {
    issues.push(`  POLLER_LEASE_MS: must be at least CONNECTOR_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${e.CONNECTOR_TIMEOUT_MS + LEASE_MARGIN_MS})`);
  }
  if (e.WEBHOOK_LEASE_MS < e.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS) {
    issues.push(`  WEBHOOK_LEASE_MS: must be at least WEBHOOK_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${e.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS})`);
  }
  const connectors = connectorConfigs(e, issues);
  if (issues.length > 0) throw new Error(`${heading}:\n${issues.join('\n')}`);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    isProduction,
    port: e.PORT,
    host: e.HOST,
    trustProxy: e.TRUST_PROXY,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    publicBaseUrl,
    logLevel: e.LOG_LEVEL,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST ?? e.HOST,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    retention: {
      webhookDays: e.RETENTION_WEBHOOK_DAYS,
      transactionEventDays: e.RETENTION_TRANSACTION_EVENT_DAYS,
      auditDays: e.RETENTION_AUDIT_DAYS,
      intervalMs: e.RETENTION_INTERVAL_MS,
      batchSize: e.RETENTION_BATCH_SIZE,
    },
    demoSeed: e.DEMO_SEED ?? !isProduction,
    pgPoolMax: e.PG_POOL_MAX,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    checkoutTtlMinutes: e.CHECKOUT_TTL_MINUTES,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    pollerEnabled: e.POLLER_ENABLED,
    pollerIntervalMs: e.POLLER_INTERVAL_MS,
    pollerBatchSize: e.POLLER_BATCH_SIZE,
    pollerLeaseMs: e.POLLER_LEASE_MS ?? Math.max(60_000, e.CONNECTOR_TIMEOUT_MS + 5000),
    connectorTimeoutMs: e.CONNECTOR_TIMEOUT_MS,
    sandboxDelayMs: e.SANDBOX_DELAY_MS,
    sandboxLateDelayMs: e.SANDBOX_LATE_DELAY_MS,
    sandboxOpeningBalance: e.SANDBOX_OPENING_BALANCE,
    lateSuccessWatchHours: e.LATE_SUCCESS_WATCH_HOURS,
    checkoutCsrfSecret: e.CHECKOUT_CSRF_SECRET,
    checkoutMaxAttempts: e.CHECKOUT_MAX_ATTEMPTS,
    checkoutAttemptsPerIpPerHour: e.CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR,
    webhookEncryptionKey: e.WEBHOOK_ENCRYPTION_KEY,
    webhookAllowPrivateHosts: e.WEBHOOK_ALLOW_PRIVATE_HOSTS,
    webhookSecretOverlapHours: e.WEBHOOK_SECRET_OVERLAP_HOURS,
    webhookWorkerEnabled: e.WEBHOOK_WORKER_ENABLED,
    webhookWorkerIntervalMs: e.WEBHOOK_WORKER_INTERVAL_MS,
    webhookWorkerBatchSize: e.WEBHOOK_WORKER_BATCH_SIZE,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookLeaseMs: e.WEBHOOK_LEASE_MS,
    jwtSecret: e.JWT_SECRET,
    accessTokenTtlMinutes: e.ACCESS_TOKEN_TTL_MINUTES,
    refreshTokenTtlDays: e.REFRESH_TOKEN_TTL_DAYS,
    emailVerificationRequired: e.EMAIL_VERIFICATION_REQUIRED,
    otpTtlMinutes: e.OTP_TTL_MINUTES,
    authMaxFailures: e.AUTH_MAX_FAILURES,
    authMaxFailuresPerIp: e.AUTH_MAX_FAILURES_PER_IP,
    authLockoutMinutes: e.AUTH_LOCKOUT_MINUTES,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailDir: e.MAIL_DIR,
    adminEmail: e.ADMIN_EMAIL,
    corsOrigins: e.CORS_ORIGINS,
    isCorsMerchantApi: e.CORS_MERCHANT_API,
    adminPassword: e.ADMIN_PASSWORD,
    passwordScryptLogN: e.PASSWORD_SCRYPT_LOG_N,
    callbackBaseUrl: (e.CALLBACK_BASE_URL ?? publicBaseUrl).replace(/\/+$/, ''),
    mtnMomo: connectors.mtnMomo,
    orangeMoney: connectors.orangeMoney,
    mpesa: connectors.mpesa,
    wave: connectors.wave,
  };
}
