/**
 * The public JSON side of fund collections (SharePay's public collection page posts its payment
 * to `/api/v1/public/collect/confirm`): no credentials, rate-limited per IP.
 * - `POST /api/v1/public/collect/confirm` starts a payment (the page's script, or any client);
 * - `GET /api/v1/public/collect/payments/{reference}?token=…` follows it (the token comes with
 *   the 201; without it a reference reads as unknown).
 * CSRF: these routes take JSON only (no form parser in this scope: a form post is 415), and a
 * cross-site page cannot send `application/json` without a CORS preflight; they carry no cookie
 * and no session anyway. The HTML form of `/collect/{slug}` has its own CSRF token.
 */
import type { FastifyInstance } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkoutCsrfSecret } from '../../checkout/csrf.ts';
import { collectPaths, collectStatusToken, isValidCollectStatusToken } from '../../checkout/collect-token.ts';
import { ApiError } from '../../domain/errors.ts';
import { findCollectPayment, payFundCollection, refreshCollectPayment } from '../../collections/index.ts';
import type { Services } from '../../services.ts';
import { ok } from '../envelope.ts';
import { BODY_ERRORS, errorResponses, publicSecurity, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS } from '../schemas/examples.ts';
import { collectConfirmRequest, collectPaymentData, collectStatusData } from '../schemas/fund-collections.ts';


/** Registers /api/v1/public/collect/…. */
export async function publicCollectRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const secret = checkoutCsrfSecret(services.config);
  await app.register(fastifyRateLimit, { global: false });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Collectes : page publique'];
  const now = () => services.clock.now();

  r.post(
    '/api/v1/public/collect/confirm',
    {
      config: { rateLimit: { max: services.config.checkoutAttemptsPerIpPerHour, timeWindow: 3_600_000 } },
      schema: {
        tags,
        summary: 'Payer une collecte',
        description:
          'Sans authentification. Démarre un paiement (transaction FUND_COLLECTION, référence FC-…) : le payeur confirme sur son téléphone. ' +
          'Codes : COLLECTION_NOT_FOUND, COLLECTION_NOT_AVAILABLE (fermée, expirée ou supprimée), PROVIDER_NOT_FOUND, AMOUNT_BELOW_MINIMUM, ' +
          'AMOUNT_ABOVE_MAXIMUM, VALIDATION_ERROR, TOO_MANY_REQUESTS (par IP : CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR).',
        operationId: 'payFundCollection',
        security: publicSecurity,
        body: collectConfirmRequest,
        response: {
          201: success(collectPaymentData, 'Paiement initié (PENDING) ; le payeur confirme sur son téléphone', {
            message: 'Paiement initié. Confirmez-le sur votre téléphone.',
            data: {
              reference: EXAMPLE_IDS.collectionPayment,
              status: 'PENDING',
              amount: 2000,
              currency: 'XAF',
              paymentMethod: 'MTN_MOMO_CM',
              payerAccount: '237677000001',
              statusToken: 'c3RhdHVzLXRva2VuLWV4ZW1wbGU',
              statusUrl: 'https://pay.example.cm/collect/cotisation-6eac9b55/payments/FC-4A5B6C7D8E9F?token=c3RhdHVzLXRva2VuLWV4ZW1wbGU',
            },
          }),
          ...errorResponses(
            ...BODY_ERRORS,
            'COLLECTION_NOT_FOUND',
            'COLLECTION_NOT_AVAILABLE',
            'PROVIDER_NOT_FOUND',
            'AMOUNT_BELOW_MINIMUM',
            'AMOUNT_ABOVE_MAXIMUM',
            'TOO_MANY_REQUESTS',
          ),
        },
      },
    },
    async (request, reply) => {
      const started = await payFundCollection(request.services, request.body);
      const { row } = started;
      const token = collectStatusToken(secret, row.reference);
      return reply.code(201).send(
        ok(
          {
            reference: row.reference,
            status: row.status,
            amount: row.amount,
            currency: row.currency,
            paymentMethod: row.paymentMethod,
            payerAccount: row.payerAccount,
            statusToken: token,
            statusUrl: `${services.config.publicBaseUrl}${collectPaths(started.collection.slug).payment(row.reference, token)}`,
            ...(started.redirectUrl ? { redirectUrl: started.redirectUrl } : {}),
          },
          'Paiement initié. Confirmez-le sur votre téléphone.',
          now(),
        ),
      );
    },
  );

  r.get(
    '/api/v1/public/collect/payments/:reference',
    {
      config: { rateLimit: { max: 120, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: "Suivre le paiement d'une collecte",
        description: 'Avec le jeton `statusToken` reçu au paiement. 404 TRANSACTION_NOT_FOUND sinon.',
        operationId: 'getFundCollectionPayment',
        security: publicSecurity,
        params: z.object({ reference: z.string().max(64) }),
        querystring: z.object({ token: z.string().max(64).optional() }),
        response: {
          200: success(collectStatusData, 'Le statut du paiement', {
            message: 'Statut du paiement.',
            data: { reference: EXAMPLE_IDS.collectionPayment, status: 'SUCCESS', amount: 2000, currency: 'XAF', failureCode: null },
          }),
          ...errorResponses('INVALID_PARAMETER', 'TRANSACTION_NOT_FOUND', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { reference } = request.params;
      const found = isValidCollectStatusToken(secret, reference, request.query.token) ? await findCollectPayment(request.services, reference) : null;
      if (!found) throw new ApiError('TRANSACTION_NOT_FOUND');
      const row = await refreshCollectPayment(request.services, found);
      return ok(
        { reference: row.reference, status: row.status, amount: row.amount, currency: row.currency, failureCode: row.status === 'FAILED' ? row.failureCode : null },
        'Statut du paiement.',
        now(),
      );
    },
  );
}
