/**
 * `GET /metrics` (Prometheus text format) on the public port, only when `METRICS_TOKEN` is set,
 * and only with `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time); without the
 * token configured the route does not exist there (404), so metrics are never open on the public
 * port. The metrics-only listener of `METRICS_PORT` is in `server.ts`.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { sendError } from '../error-handler.ts';

/** True when `header` is `Bearer <token>` (digests compared in constant time). */
export function isMetricsBearer(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(header.slice('Bearer '.length)), digest(token));
}

/** Registers the token-protected `/metrics` when `config.metricsToken` is set. */
export async function metricsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const token = services.config.metricsToken;
  if (!token) return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!isMetricsBearer(request.headers.authorization, token)) return sendError(reply, services.clock, 'INVALID_TOKEN');
    const body = await services.metrics.registry.metrics();
    return reply.type(services.metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
}
