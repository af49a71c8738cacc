/**
 * The merchant payment API (spec 4.1 to 4.5), authenticated by `X-API-KEY`. Thin adapters:
 * parse, call one use case, wrap in the envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { validationError } from '../../domain/errors.ts';
import { createCharge } from '../../payments/create-charge.ts';
import { createCheckout } from '../../payments/create-checkout.ts';
import { createTransfer } from '../../payments/create-transfer.ts';
import { readTransactionStatus } from '../../payments/get-transaction.ts';
import { payInStatusView, payOutStatusView } from '../../payments/transaction-view.ts';
import { refundPayment } from '../../payments/refund-payment.ts';
import { refundData, refundRequest } from '../schemas/money.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeyAuthentication, requireApiKeys } from '../api-key-auth.ts';
import { compiledJsonSerializer, envelopeOf, errorEnvelope, ok } from '../envelope.ts';
import {
  chargeData,
  chargeRequest,
  checkoutData,
  checkoutRequest,
  payInStatusData,
  payOutStatusData,
  referenceParams,
  transferData,
  transferRequest,
} from '../schemas/payments.ts';

const IDEMPOTENCY_HEADER_MAX = 100;

/** The optional `Idempotency-Key` header (≤ 100 characters), or undefined; 400 VALIDATION_ERROR when empty or longer. */
export function idempotencyHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value[0] : value;
  if (!key || key.trim().length === 0 || key.length > IDEMPOTENCY_HEADER_MAX) {
    throw validationError({ 'Idempotency-Key': `la taille doit être comprise entre 1 et ${IDEMPOTENCY_HEADER_MAX}` });
  }
  return key;
}

const errors = { 400: errorEnvelope, 401: errorEnvelope, 404: errorEnvelope, 409: errorEnvelope };
const security = [{ apiKey: [] }];

/** Registers the merchant payment endpoints (spec 4.1–4.5, and the refund of issue 11). */
export async function paymentRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.post(
    '/api/v1/pay-in/checkout',
    {
      schema: {
        tags: ['Pay-in'],
        summary: 'Créer une session de paiement hébergée',
        security,
        body: checkoutRequest,
        response: { 201: envelopeOf(checkoutData), ...errors },
      },
    },
    async (request, reply) => {
      const data = await createCheckout(request.services, requireApiKey(request), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Session de paiement créée.', services.clock.now()));
    },
  );

  r.post(
    '/api/v1/pay-in/charge',
    {
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-in'],
        summary: 'Débiter directement un compte mobile money',
        security,
        body: chargeRequest,
        response: { 201: envelopeOf(chargeData), ...errors },
      },
    },
    async (request, reply) => {
      const data = await createCharge(request.services, requireApiKey(request), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Paiement initié.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-in/check_status/:reference',
    {
      // One round trip: the use case's read joins the key's lookup (`readsWithKey`).
      config: { readsWithKey: true },
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-in'],
        summary: "Statut d'un paiement",
        security,
        params: referenceParams,
        response: { 200: envelopeOf(payInStatusData), ...errors },
      },
    },
    async (request) => {
      const row = await readTransactionStatus(services, requireApiKeyAuthentication(request), 'PAY_IN', request.params.reference);
      return ok(payInStatusView(row, services.config.publicBaseUrl), 'Statut du paiement récupéré.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/pay-in/refund',
    {
      schema: {
        tags: ['Pay-in'],
        summary: 'Rembourser un paiement réussi, en tout ou en partie',
        description:
          "Crée un virement de remboursement vers le compte du payeur, financé par le solde disponible (montant + frais de virement du moyen de paiement). Σ des remboursements ≤ montant du paiement ; remboursé en totalité, le paiement passe à REFUNDED. En-tête Idempotency-Key pris en compte.",
        security,
        body: refundRequest,
        response: { 201: envelopeOf(refundData), ...errors },
      },
    },
    async (request, reply) => {
      const data = await refundPayment(request.services, requireApiKey(request), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Remboursement initié.', services.clock.now()));
    },
  );

  r.post(
    '/api/v1/pay-out/transfer',
    {
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-out'],
        summary: 'Envoyer de l’argent vers un compte mobile money',
        security,
        body: transferRequest,
        response: { 201: envelopeOf(transferData), ...errors },
      },
    },
    async (request, reply) => {
      const data = await createTransfer(request.services, requireApiKey(request), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Virement initié.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-out/check_status/:reference',
    {
      // One round trip, as the pay-in status read.
      config: { readsWithKey: true },
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-out'],
        summary: "Statut d'un virement",
        security,
        params: referenceParams,
        response: { 200: envelopeOf(payOutStatusData), ...errors },
      },
    },
    async (request) => {
      const row = await readTransactionStatus(services, requireApiKeyAuthentication(request), 'PAY_OUT', request.params.reference);
      return ok(payOutStatusView(row), 'Statut du virement récupéré.', services.clock.now());
    },
  );
}
