/**
 * Platform statistics, at the paths SharePay's clients call:
 * `GET /api/v1/admin/stats/overview` (ADMIN and SUPPORT: merchants, volumes, counts and success
 * rate by rail over a period) and the public, unauthenticated `GET /api/v1/public/stats`
 * (merchantCount, transactionCount, paymentMethodCount), cached for `PUBLIC_STATS_TTL_MS` so a busy
 * landing page costs at most one set of counts a minute.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { adminStatsOverview, publicStats, type PublicStats } from '../../dashboard/platform-stats.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { ts } from '../schemas/dashboard.ts';
import { adminStatsData, adminStatsQuery, publicStatsData } from '../schemas/transactions.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';
import { BEARER_ERRORS, errorResponses, publicSecurity, success } from '../schemas/openapi.ts';

/** How long the public counters are reused (ms). */
const PUBLIC_STATS_TTL_MS = 60_000;
/** Default period of the admin overview: the last 30 days. */
const DEFAULT_PERIOD_MS = 30 * 86_400_000;

/** Registers the admin overview (bearer, staff) and the public counters (no credential). */
export async function dashboardStatsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const now = () => services.clock.now();

  await app.register(async (scope) => {
    scope.addHook('onRequest', dashboardAuthHook(services));
    scope.withTypeProvider<ZodTypeProvider>().get(
      '/api/v1/admin/stats/overview',
      {
        schema: {
          tags: ['Administration'],
          operationId: 'getPlatformStats', summary: 'Statistiques de la plateforme sur une période (30 derniers jours par défaut)',
          security,
          querystring: adminStatsQuery,
          response: {
            200: success(adminStatsData, 'Les statistiques de la période', {
              message: 'Statistiques récupérées.',
              data: {
                from: '2026-10-21T10:00:00.000',
                to: '2026-11-20T10:00:00.000',
                environment: 'LIVE',
                merchants: { total: 42, active: 40, newInPeriod: 5 },
                transactions: { count: 1250, successCount: 1100, failedCount: 140, pendingCount: 10, successRate: 0.887 },
                volumes: [{ currency: 'XAF', payInVolume: 6250000, payOutVolume: 2100000 }],
                byRail: [
                  { provider: 'MTN_MOMO_CM', currency: 'XAF', count: 800, successCount: 720, failedCount: 75, pendingCount: 5, successRate: 0.906, volume: 4000000 },
                ],
              },
            }),
            ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED'),
          },
        },
        onRequest: async (request) => requireRole(requireAccount(request), 'ADMIN', 'SUPPORT'),
      },
      async (request) => {
        const to = request.query.to ?? now();
        const from = request.query.from ?? new Date(to.getTime() - DEFAULT_PERIOD_MS);
        if (from.getTime() >= to.getTime()) {
          // Only reachable with `from` alone, later than now (the schema checks a given pair).
          throw new ApiError('INVALID_PARAMETER', { message: 'La période est vide : from doit précéder to.' });
        }
        const o = await adminStatsOverview(services.db, { from, to, environment: request.query.environment });
        return ok({ ...o, from: ts(o.from), to: ts(o.to) }, 'Statistiques récupérées.', now());
      },
    );
  });

  let cached: { at: number; data: PublicStats } | null = null;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/v1/public/stats',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getPublicStats',
        summary: 'Compteurs publics : marchands actifs, transactions LIVE réussies, moyens de paiement actifs',
        security: publicSecurity,
        response: {
          200: success(publicStatsData, 'Les compteurs (mis en cache quelques minutes)', {
            message: 'Statistiques récupérées.',
            data: { merchantCount: 42, transactionCount: 1250, paymentMethodCount: 14 },
          }),
        },
      },
    },
    async () => {
      const at = now().getTime();
      if (!cached || at - cached.at >= PUBLIC_STATS_TTL_MS || at < cached.at) cached = { at, data: await publicStats(services.db) };
      return ok(cached.data, 'Statistiques récupérées.', now());
    },
  );
}
