/**
 * CORS for browsers on the origins of `CORS_ORIGINS`:
 *
 * - the dashboard API — `/api/v1/auth/*`, `/api/v1/merchants/*`, `/api/v1/admin/*`,
 *   `/api/v1/public/*` — with credentials and the `Authorization` header, preflights included;
 * - with `CORS_MERCHANT_API=true` only, the merchant API too — `/api/v1/pay-in/*`,
 *   `/api/v1/pay-out/*` (creation and status reads) and `/api/v1/webhook*` — with the `X-API-KEY`
 *   and `Idempotency-Key` headers and without credentials (it uses no cookie). Off by default: a
 *   page that calls it holds the merchant's API key, which any script on that page can read.
 *
 * Everything else — the checkout pages, callbacks, health, metrics — never carries a CORS
 * header, and a request from an origin not listed gets none either (its preflight answers 404
 * like any unknown route). With `CORS_ORIGINS` empty the plugin is not registered at all.
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Path prefixes of the dashboard API. */
export const DASHBOARD_API_PREFIXES = ['/api/v1/auth/', '/api/v1/merchants/', '/api/v1/admin/', '/api/v1/public/'] as const;
/** Path prefixes of the merchant API (X-API-KEY), open to CORS only with `CORS_MERCHANT_API`. */
export const MERCHANT_API_PREFIXES = ['/api/v1/pay-in/', '/api/v1/pay-out/', '/api/v1/webhook/'] as const;

/** True when `url`'s path is under one of `prefixes` (or is one without its last slash); doubled slashes are folded like the router does. */
function isUnder(url: string, prefixes: readonly string[]): boolean {
  const path = (url.split('?')[0] ?? '').replace(/\/{2,}/g, '/');
  return prefixes.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix);
}

/** True when `url` (path and query) is under the dashboard API. */
export function isDashboardApiPath(url: string): boolean {
  return isUnder(url, DASHBOARD_API_PREFIXES);
}

/** True when `url` (path and query) is under the merchant API. */
export function isMerchantApiPath(url: string): boolean {
  return isUnder(url, MERCHANT_API_PREFIXES);
}

/** Seconds a browser may cache a preflight answer (Chromium caps it at 7 200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const DASHBOARD_ALLOWED = {
  credentials: true,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
  // Read by the dashboard: Retry-After on 429, the CSV file name, the request id for support.
  exposedHeaders: ['Retry-After', 'X-Request-Id', 'Content-Disposition'],
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
} satisfies FastifyCorsOptions;

const MERCHANT_API_ALLOWED = {
  // The key travels in a header, not a cookie: no credentials.
  credentials: false,
  methods: ['GET', 'POST', 'PATCH'],
  allowedHeaders: ['X-API-KEY', 'Idempotency-Key', 'Content-Type', 'Accept', 'X-Request-Id'],
  exposedHeaders: ['Retry-After', 'X-Request-Id'],
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
} satisfies FastifyCorsOptions;

/**
 * Registers @fastify/cors for `origins` (exact `scheme://host[:port]` strings): the dashboard API,
 * plus the merchant API when `isMerchantApiAllowed`. Does nothing when `origins` is empty.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[], options: { isMerchantApiAllowed: boolean }): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(fastifyCors, {
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || !allowed.has(origin)) {
        callback(null, { origin: false });
      } else if (isDashboardApiPath(request.url)) {
        callback(null, { ...DASHBOARD_ALLOWED, origin });
      } else if (options.isMerchantApiAllowed && isMerchantApiPath(request.url)) {
        callback(null, { ...MERCHANT_API_ALLOWED, origin });
      } else {
        callback(null, { origin: false });
      }
    },
  });
}
