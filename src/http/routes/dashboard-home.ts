/**
 * The home screen of Kolo's web app: `GET /api/v1/merchants/home/today` (volume, count and last
 * transactions of the reader's day) and `GET /api/v1/merchants/home/period` (success rate and
 * daily volume over 7 or 30 days). Kolo's own routes, outside SharePay's contract, so the web
 * app shows figures the server computed (dashboard/home.ts) and never depends on the SharePay
 * summary (`GET /api/v1/merchants/dashboard`). Bearer-authenticated; staff own no application
 * and read empty figures, as on the other merchant reads. Without `environment`, the merchant's
 * default (`dashboardEnvironment`); without `timeZone`, UTC days.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import { homePeriod, homeToday } from '../../dashboard/home.ts';
import { DEFAULT_DAY_ZONE } from '../../dashboard/reader-days.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, requireAccount } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { homePeriodData, homePeriodQuery, homeTodayData, homeTodayQuery } from '../schemas/home.ts';
import { BEARER_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_TRANSACTION_ITEM } from '../schemas/examples.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';
import { transactionOut } from './dashboard-transactions.ts';

const tags = ['Dashboard : accueil'];

/** Registers both home reads. */
export async function dashboardHomeRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.addHook('onRequest', dashboardAuthHook(services));
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => services.clock.now();

  r.get(
    '/api/v1/merchants/home/today',
    {
      schema: {
        tags,
        operationId: 'getHomeToday',
        summary: "Accueil de l'application web : volume, nombre et dernières transactions du jour (fuseau timeZone)",
        security,
        querystring: homeTodayQuery,
        response: {
          200: success(homeTodayData, 'Les chiffres du jour', {
            message: 'Accueil récupéré.',
            data: { currency: 'XAF', volume: 5000, count: 1, lastTransactions: [EXAMPLE_TRANSACTION_ITEM] },
          }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS),
        },
      },
    },
    async (request) => {
      const merchantId = requireAccount(request).accountId;
      const environment = await dashboardEnvironment(services.db, merchantId, request.query.environment);
      const today = await homeToday(services.db, services.clock, merchantId, { environment, timeZone: request.query.timeZone ?? DEFAULT_DAY_ZONE });
      return ok({ ...today, lastTransactions: today.lastTransactions.map(transactionOut) }, 'Accueil récupéré.', now());
    },
  );

  r.get(
    '/api/v1/merchants/home/period',
    {
      schema: {
        tags,
        operationId: 'getHomePeriod',
        summary: "Accueil de l'application web : taux de succès et volume par jour des paiements sur 7 ou 30 jours (fuseau timeZone)",
        security,
        querystring: homePeriodQuery,
        response: {
          200: success(homePeriodData, 'Les chiffres de la période', {
            message: 'Accueil récupéré.',
            data: {
              interval: 'LAST_7_DAYS',
              currency: 'XAF',
              successRate: 0.9,
              labels: ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'],
              volumes: [0, 4925, 0, 11820, 0, 0, 14775],
            },
          }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS),
        },
      },
    },
    async (request) => {
      const merchantId = requireAccount(request).accountId;
      const { interval, timeZone } = request.query;
      const environment = await dashboardEnvironment(services.db, merchantId, request.query.environment);
      const period = await homePeriod(services.db, services.clock, merchantId, { environment, interval, timeZone: timeZone ?? DEFAULT_DAY_ZONE });
      return ok(period, 'Accueil récupéré.', now());
    },
  );
}
