/**
 * Dashboard money routes, at the paths and in the shapes SharePay's dashboard calls:
 * `GET /api/v1/merchants/balance` and `GET /api/v1/merchants/dashboard` (balances from the ledger;
 * the summary's figures and lists of pay-ins only, payer accounts masked, as SharePay's overview),
 * and the refund of a pay-in (`POST /api/v1/merchants/transactions/{reference}/refund`); and, for
 * Kolo's own dashboard, a transfer from one of my applications
 * (`POST /api/v1/merchants/apps/{appId}/transfer`, the merchant API's `POST /api/v1/pay-out/transfer`
 * use case) and its fee beforehand (`GET …/transfer/fee`).
 * Bearer-authenticated; a merchant sees only their own applications (staff have none). Without
 * `environment`, balances and the summary are the merchant's default one (`dashboardEnvironment`);
 * the summary's "today" is the day of `timeZone` (an IANA name), UTC without it.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import { createTransfer, merchantBalances, merchantDashboard, payOutStatusView, transferFee } from '../../payments/index.ts';
import { transactionOut } from './dashboard-transactions.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, findAccessibleApplication, requireAccount, requireRole } from '../dashboard-auth.ts';
import { applications } from '../../db/schema.ts';
import { eq } from 'drizzle-orm';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS, EXAMPLE_TRANSACTION_ITEM } from '../schemas/examples.ts';
import { ApiError } from '../../domain/errors.ts';
import { appIdKeyParams } from '../schemas/dashboard.ts';
import { balanceLine, balanceQuery, dashboardRefundRequest, dashboardSummaryData, dashboardSummaryQuery, refundData } from '../schemas/money.ts';
import { DEFAULT_DAY_ZONE } from '../../dashboard/reader-days.ts';
import { refundMerchantPayment } from '../../refunds/index.ts';
import { EXAMPLE_TRANSFER_CREATED, TRANSFER_EXAMPLE, payOutStatusData, transferData, transferRequest } from '../schemas/payments.ts';
import { cancelMerchantPayOut } from '../../float/index.ts';
import { dashboardEnvironmentQuery } from '../schemas/dashboard.ts';
import { currencySchema, requiredText } from '../schemas/common.ts';
import { idempotencyHeader } from './payments.ts';
import { bearerSecurity } from './dashboard-auth.ts';

/** Codes of a transfer (or its fee) from one of my applications: the application, the rail and its limits. */
const TRANSFER_ERRORS = [
  'INVALID_PARAMETER',
  ...BEARER_ERRORS,
  'ACCESS_DENIED',
  'APP_NOT_FOUND',
  'APP_ACCESS_DENIED',
  'PROVIDER_NOT_FOUND',
  'CURRENCY_MISMATCH',
  'AMOUNT_BELOW_MINIMUM',
  'AMOUNT_ABOVE_MAXIMUM',
] as const;

/** A pay-in as the summary lists it: its payer's account masked. */
const MASKED_ITEM = { ...EXAMPLE_TRANSACTION_ITEM, payerAccount: '••••0001' };

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
        operationId: 'listBalances', summary: 'Mes soldes par devise (issus du grand livre)',
        security: bearerSecurity,
        querystring: balanceQuery,
        response: { 200: success(z.array(balanceLine), 'Un solde par devise (unités de base)', { message: 'Soldes récupérés.', data: [{ availableAmount: 990000, pendingAmount: 4925, reservedAmount: 10000, batchReservedAmount: 95000, currency: 'XAF' }] }), ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND') },
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
        operationId: 'getDashboardSummary', summary: 'Tableau de bord : soldes, volume et paiements reçus du jour (dans le fuseau timeZone, UTC par défaut)',
        description:
          'Comme la vue d’ensemble du tableau de bord SharePay : les nombres, le volume et les listes ne comptent que les ' +
          'paiements reçus (ni virements, ni retraits, ni remboursements) ; le volume est net de frais ; le numéro de chaque ' +
          'payeur est masqué à ses quatre derniers chiffres.',
        security: bearerSecurity,
        querystring: dashboardSummaryQuery,
        response: { 200: success(dashboardSummaryData, 'Soldes, volume et paiements reçus du jour', { message: 'Tableau de bord récupéré.', data: { availableBalance: 990000, pendingBalance: 4925, currency: 'XAF', dailyVolume: 4925, todayTransactionCount: 1, todayTransactions: [MASKED_ITEM], lastFiveTransactions: [MASKED_ITEM] } }), ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND') },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const summary = await merchantDashboard(request.services, account.accountId, {
        environment: await dashboardEnvironment(services.db, account.accountId, request.query.environment),
        applicationId: request.query.appId,
        currency: request.query.currency,
        timeZone: request.query.timeZone ?? DEFAULT_DAY_ZONE,
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
        operationId: 'refundMerchantPayment', summary: "Rembourser l'un de mes paiements réussis (comme POST /api/v1/pay-in/refund)",
        security: bearerSecurity,
        params: z.object({ reference: z.string().max(64) }),
        body: dashboardRefundRequest,
        response: { 201: success(refundData, 'Remboursement initié (un virement PENDING vers le payeur)', { message: 'Remboursement initié.', data: { reference: EXAMPLE_IDS.refund, paymentReference: EXAMPLE_IDS.payIn, status: 'PENDING', amount: 1000, feeAmount: 0, currency: 'XAF', reason: 'Article retourné' } }), ...errorResponses(...BODY_ERRORS, 'INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'TRANSACTION_NOT_FOUND', 'REFUND_NOT_ALLOWED', 'REFUND_AMOUNT_EXCEEDED', 'PROVIDER_NOT_FOUND', 'AMOUNT_BELOW_MINIMUM', 'AMOUNT_ABOVE_MAXIMUM', 'INSUFFICIENT_BALANCE') },
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

  r.post(
    '/api/v1/merchants/transactions/:reference/cancel',
    {
      schema: {
        tags,
        operationId: 'cancelMerchantPayOut',
        summary: "Annuler l'un de mes virements en file d'attente (comme POST /api/v1/pay-out/{reference}/cancel)",
        security: bearerSecurity,
        params: z.object({ reference: z.string().max(64) }),
        response: {
          200: success(payOutStatusData, 'Le virement annulé (FAILED, PAYOUT_CANCELLED)', {
            message: 'Virement annulé.',
            data: { ...EXAMPLE_TRANSFER_CREATED, status: 'FAILED', failureCode: 'PAYOUT_CANCELLED', failureReason: "Transfert annulé par le marchand pendant qu'il attendait le float de l'opérateur.", feeAmount: 0, netAmount: null, operatorTransactionId: null, lateSuccess: false, heldAmount: 0, queuedForFloat: false },
          }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'TRANSACTION_NOT_FOUND', 'PAYOUT_NOT_CANCELLABLE'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      // Staff have no pay-outs of their own.
      requireRole(account, 'MERCHANT');
      const row = await cancelMerchantPayOut(request.services, account.accountId, request.params.reference);
      return ok(payOutStatusView(row), 'Virement annulé.', services.clock.now());
    },
  );

  /** The merchant's own active application, for a transfer or its fee (staff have no money of their own). */
  const transferApp = async (request: Parameters<typeof requireAccount>[0], appId: string) => {
    const account = requireAccount(request);
    requireRole(account, 'MERCHANT');
    const app = await findAccessibleApplication(request.services, account, appId, { write: true });
    if (app.status !== 'ACTIVE') throw new ApiError('APP_ACCESS_DENIED');
    return { account, app };
  };

  r.get(
    '/api/v1/merchants/apps/:appId/transfer/fee',
    {
      schema: {
        tags,
        operationId: 'getTransferFee', summary: "Frais d'un virement depuis l'une de mes applications, avant de l'envoyer",
        description:
          'Les frais que POST …/transfer prendrait maintenant pour ce montant et ce moyen de paiement (mes frais si un ' +
          'administrateur les a fixés, sinon ceux du moyen de paiement), après les mêmes contrôles (devise, moyen de ' +
          'paiement actif, limites). Ne modifie rien.',
        security: bearerSecurity,
        params: appIdKeyParams,
        querystring: z.object({
          amount: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Entier, en unité de base de la devise, minimum 1'),
          currency: currencySchema,
          paymentMethod: requiredText(100),
          environment: dashboardEnvironmentQuery,
        }),
        response: {
          200: success(
            z.object({
              amount: z.number(),
              feeAmount: z.number(),
              totalAmount: z.number().describe('Montant et frais : ce qui quitte le solde disponible'),
              currency: z.string(),
              paymentMethod: z.string(),
            }),
            'Les frais du virement', { message: 'Frais calculés.', data: { amount: 10000, feeAmount: 0, totalAmount: 10000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM' } }),
          ...errorResponses(...TRANSFER_ERRORS),
        },
      },
    },
    async (request) => {
      const { account, app } = await transferApp(request, request.params.appId);
      const { environment: requested, ...input } = request.query;
      const environment = await dashboardEnvironment(services.db, account.accountId, requested);
      const fee = await transferFee(request.services, { applicationId: app.id, currency: app.currency, environment }, input);
      return ok(fee, 'Frais calculés.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/merchants/apps/:appId/transfer',
    {
      schema: {
        tags,
        operationId: 'createDashboardTransfer', summary: "Envoyer un virement depuis l'une de mes applications (comme POST /api/v1/pay-out/transfer)",
        description:
          'Mêmes champs, contrôles, frais et réservation sur le solde disponible que le virement de l’API marchand ; ' +
          "l'environnement est celui du tableau de bord (environment, sinon celui par défaut). En-tête facultatif " +
          "Idempotency-Key (1 à 100 caractères) : la même clé avec la même requête renvoie le même virement sans rien " +
          'renvoyer à l’opérateur. 400 INSUFFICIENT_BALANCE quand le solde disponible ne couvre pas montant et frais.',
        security: bearerSecurity,
        params: appIdKeyParams,
        body: transferRequest.extend({ environment: dashboardEnvironmentQuery }).meta({ examples: [{ ...TRANSFER_EXAMPLE, environment: 'TEST' }] }),
        response: { 201: success(transferData, 'Virement initié (PENDING)', { message: 'Virement initié.', data: EXAMPLE_TRANSFER_CREATED }), ...errorResponses(...BODY_ERRORS, ...TRANSFER_ERRORS, 'INSUFFICIENT_BALANCE', 'IDEMPOTENCY_KEY_REUSED') },
      },
    },
    async (request, reply) => {
      const { account, app } = await transferApp(request, request.params.appId);
      const { environment: requested, ...input } = request.body;
      const environment = await dashboardEnvironment(services.db, account.accountId, requested);
      const data = await createTransfer(request.services, { applicationId: app.id, currency: app.currency, environment }, input, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Virement initié.', services.clock.now()));
    },
  );

  const moneySettings = z.object({
    lateSuccessPolicy: z
      .enum(['REFUND', 'KEEP'])
      .describe("Paiement signalé réussi après la clôture : REFUND rembourse le payeur (par défaut), KEEP le crédite comme un paiement"),
    batchAutoApproveBelow: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe("Un lot de virements dont montants + frais sont sous ce montant (unités de base) est approuvé sans personne ; 0 (par défaut) : jamais. Absent : inchangé"),
  });

  r.get(
    '/api/v1/merchants/apps/:appId/money-settings',
    {
      schema: {
        tags,
        operationId: 'getMoneySettings', summary: "Réglages d'argent d'une application (succès tardifs)",
        security: bearerSecurity,
        params: appIdKeyParams,
        response: { 200: success(moneySettings, "Les réglages d'argent", { message: 'Réglages récupérés.', data: { lateSuccessPolicy: 'REFUND' as const } }), ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND') },
      },
    },
    async (request) => {
      const app = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: false });
      return ok({ lateSuccessPolicy: app.lateSuccessPolicy as 'REFUND' | 'KEEP', batchAutoApproveBelow: app.batchAutoApproveBelow }, 'Réglages récupérés.', services.clock.now());
    },
  );

  r.put(
    '/api/v1/merchants/apps/:appId/money-settings',
    {
      schema: {
        tags,
        operationId: 'putMoneySettings', summary: "Modifier les réglages d'argent d'une application",
        description:
          "Propriétaire ou administrateur. Qui a (ou doit avoir) un second facteur le confirme d'abord (moins de 5 minutes) : " +
          '403 FRESH_SECOND_FACTOR_REQUIRED sinon, comme pour les autres réglages qui font sortir de l’argent.',
        security: bearerSecurity,
        params: appIdKeyParams,
        body: moneySettings.meta({ examples: [{ lateSuccessPolicy: 'KEEP' }] }),
        response: { 200: success(moneySettings, 'Les réglages enregistrés', { message: 'Réglages enregistrés.', data: { lateSuccessPolicy: 'REFUND' as const } }), ...errorResponses(...BODY_ERRORS, 'INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND', 'ACCESS_DENIED', 'SECOND_FACTOR_ENROLMENT_REQUIRED', 'FRESH_SECOND_FACTOR_REQUIRED') },
      },
    },
    async (request) => {
      const app = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      const batchAutoApproveBelow = request.body.batchAutoApproveBelow ?? app.batchAutoApproveBelow;
      await services.db
        .update(applications)
        .set({ lateSuccessPolicy: request.body.lateSuccessPolicy, batchAutoApproveBelow, updatedAt: services.clock.now() })
        .where(eq(applications.id, app.id));
      return ok({ lateSuccessPolicy: request.body.lateSuccessPolicy, batchAutoApproveBelow }, 'Réglages enregistrés.', services.clock.now());
    },
  );
}
