/**
 * CORS for the dashboard API (issue 12 point 1): a dashboard served from another origin (one of
 * `CORS_ORIGINS`) calls `/api/v1/auth/*`, `/api/v1/merchants/*`, `/api/v1/admin/*` and
 * `/api/v1/public/*` with credentials and the `Authorization` header, preflights included.
 * Everything else — the merchant API (X-API-KEY), the checkout pages, callbacks, health,
 * metrics — never carries a CORS header, and a request from an origin not listed gets none
 * either (its preflight answers 404 like any unknown route). With `CORS_ORIGINS` empty the
 * plugin is not registered at all.
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Path prefixes of the dashboard API, the only routes CORS applies to. */
export const DASHBOARD_API_PREFIXES = ['/api/v1/auth/', '/api/v1/merchants/', '/api/v1/admin/', '/api/v1/public/'] as const;

/** True when `url` (path and query) is under the dashboard API; doubled slashes are folded like the router does. */
export function isDashboardApiPath(url: string): boolean {
  const path = (url.split('?')[0] ?? '').replace(/\/{2,}/g, '/');
  return DASHBOARD_API_PREFIXES.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix);
}

/** Seconds a browser may cache a preflight answer (Chromium caps it at 7 200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const ALLOWED = {
  credentials: true,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
  // Read by the dashboard: Retry-After on 429, the CSV file name, the request id for support.
  exposedHeaders: ['Retry-After', 'X-Request-Id', 'Content-Disposition'],
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
} satisfies FastifyCorsOptions;

/** Registers @fastify/cors for `origins` (exact `scheme://host[:port]` strings); does nothing when empty. */
export async function registerDashboardCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(fastifyCors, {
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || !allowed.has(origin) || !isDashboardApiPath(request.url)) {
        callback(null, { origin: false });
        return;
      }
      callback(null, { ...ALLOWED, origin });
    },
  });
}
