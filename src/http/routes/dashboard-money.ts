/**
 * Dashboard money routes, at the paths and in the shapes SharePay's dashboard calls:
 * `GET /api/v1/merchants/balance` and `GET /api/v1/merchants/dashboard`, both read from the ledger,
 * and the refund of a pay-in (`POST /api/v1/merchants/transactions/{reference}/refund`).
 * Bearer-authenticated; a merchant sees only their own applications (staff have none). Without
 * `environment`, balances and the summary are the merchant's default one (`dashboardEnvironment`).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import { merchantBalances, merchantDashboard } from '../../payments/merchant-balances.ts';
import { transactionOut } from './dashboard-transactions.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, findAccessibleApplication, requireAccount, requireRole } from '../dashboard-auth.ts';
import { applications } from '../../db/schema.ts';
import { eq } from 'drizzle-orm';
import { envelopeOf, errorEnvelope, ok } from '../envelope.ts';
import { appIdKeyParams } from '../schemas/dashboard.ts';
import { balanceLine, balanceQuery, dashboardRefundRequest, dashboardSummaryData, refundData } from '../schemas/money.ts';
import { refundMerchantPayment } from '../../payments/refund-payment.ts';
import { bearerSecurity } from './dashboard-auth.ts';

const errors = { 400: errorEnvelope, 401: errorEnvelope, 403: errorEnvelope, 404: errorEnvelope };

/** Registers the balance, dashboard summary and refund routes. */
export async function dashboardMoneyRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Dashboard : soldes'];

  r.get(
    '/api/v1/merchants/balance',
    {
      schema: {
        tags,
        summary: 'Mes soldes par devise (issus du grand livre)',
        security: bearerSecurity,
        querystring: balanceQuery,
        response: { 200: envelopeOf(z.array(balanceLine)), ...errors },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const environment = await dashboardEnvironment(services.db, account.accountId, request.query.environment);
      const lines = await merchantBalances(request.services, account.accountId, { environment, applicationId: request.query.appId });
      return ok(lines, 'Soldes récupérés.', services.clock.now());
    },
  );

  r.get(
    '/api/v1/merchants/dashboard',
    {
      schema: {
        tags,
        summary: 'Tableau de bord : soldes, volume et transactions du jour',
        security: bearerSecurity,
        querystring: balanceQuery,
        response: { 200: envelopeOf(dashboardSummaryData), ...errors },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const summary = await merchantDashboard(request.services, account.accountId, {
        environment: await dashboardEnvironment(services.db, account.accountId, request.query.environment),
        applicationId: request.query.appId,
        currency: request.query.currency,
      });
      return ok(
        {
          ...summary,
          todayTransactions: summary.todayTransactions.map(transactionOut),
          lastFiveTransactions: summary.lastFiveTransactions.map(transactionOut),
        },
        'Tableau de bord récupéré.',
        services.clock.now(),
      );
    },
  );

  r.post(
    '/api/v1/merchants/transactions/:reference/refund',
    {
      schema: {
        tags,
        summary: "Rembourser l'un de mes paiements réussis (comme POST /api/v1/pay-in/refund)",
        security: bearerSecurity,
        params: z.object({ reference: z.string().max(64) }),
        body: dashboardRefundRequest,
        response: { 201: envelopeOf(refundData), ...errors, 409: errorEnvelope },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      // A refund moves a merchant's money: staff accounts have none of their own.
      requireRole(account, 'MERCHANT');
      const data = await refundMerchantPayment(request.services, account.accountId, { ...request.body, reference: request.params.reference });
      return reply.code(201).send(ok(data, 'Remboursement initié.', services.clock.now()));
    },
  );

  const moneySettings = z.object({
    lateSuccessPolicy: z
      .enum(['REFUND', 'KEEP'])
      .describe("Paiement signalé réussi après la clôture : REFUND rembourse le payeur (par défaut), KEEP le crédite comme un paiement"),
  });

  r.get(
    '/api/v1/merchants/apps/:appId/money-settings',
    {
      schema: {
        tags,
        summary: "Réglages d'argent d'une application (succès tardifs)",
        security: bearerSecurity,
        params: appIdKeyParams,
        response: { 200: envelopeOf(moneySettings), ...errors },
      },
    },
    async (request) => {
      const app = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: false });
      return ok({ lateSuccessPolicy: app.lateSuccessPolicy as 'REFUND' | 'KEEP' }, 'Réglages récupérés.', services.clock.now());
    },
  );

  r.put(
    '/api/v1/merchants/apps/:appId/money-settings',
    {
      schema: {
        tags,
        summary: "Modifier les réglages d'argent d'une application",
        security: bearerSecurity,
        params: appIdKeyParams,
        body: moneySettings,
        response: { 200: envelopeOf(moneySettings), ...errors },
      },
    },
    async (request) => {
      const app = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      await services.db
        .update(applications)
        .set({ lateSuccessPolicy: request.body.lateSuccessPolicy, updatedAt: services.clock.now() })
        .where(eq(applications.id, app.id));
      return ok({ lateSuccessPolicy: request.body.lateSuccessPolicy }, 'Réglages enregistrés.', services.clock.now());
    },
  );
}
