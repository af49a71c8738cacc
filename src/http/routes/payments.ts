/**
 * The merchant payment API (checkout, charge, status reads, transfer, refund), authenticated by
 * `X-API-KEY`. Thin adapters: parse, call one use case, wrap in the envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { validationError } from '../../domain/errors.ts';
import { createCharge, createCheckout, createTransfer, payInStatusView, payOutStatusView, readTransactionStatus } from '../../payments/index.ts';
import { refundPayment } from '../../refunds/index.ts';
import { cancelQueuedPayOut } from '../../float/index.ts';
import { refundData, refundRequest } from '../schemas/money.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { compiledJsonSerializer, ok } from '../envelope.ts';
import { API_KEY_ERRORS, BODY_ERRORS, apiKeySecurity, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_CHARGE_CREATED, EXAMPLE_IDS, EXAMPLE_PAY_IN_STATUS } from '../schemas/examples.ts';
import {
  chargeData,
  chargeRequest,
  checkoutData,
  checkoutRequest,
  payInStatusData,
  payOutStatusData,
  referenceParams,
  EXAMPLE_TRANSFER_CREATED,
  transferData,
  transferRequestWithExample,
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

const security = apiKeySecurity;
/** Codes of every payment creation: the rail and its limits, and the idempotency key. */
const CREATION_ERRORS = [
  ...BODY_ERRORS,
  ...API_KEY_ERRORS,
  'CURRENCY_MISMATCH',
  'AMOUNT_BELOW_MINIMUM',
  'AMOUNT_ABOVE_MAXIMUM',
  'PROVIDER_NOT_FOUND',
  'IDEMPOTENCY_KEY_REUSED',
] as const;
const STATUS_ERRORS = ['INVALID_PARAMETER', ...API_KEY_ERRORS, 'TRANSACTION_NOT_FOUND'] as const;

/** Registers the merchant payment endpoints: checkout, charge, pay-in status, refund, transfer, pay-out status. */
export async function paymentRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.post(
    '/api/v1/pay-in/checkout',
    {
      schema: {
        tags: ['Pay-in'],
        summary: 'Créer une session de paiement hébergée',
        description: "Rend l'adresse (paymentUrl, valable 30 minutes) de la page où le client choisit son moyen de paiement et paie ; il revient ensuite à successUrl ou cancelUrl.",
        operationId: 'createCheckout',
        security,
        body: checkoutRequest,
        response: {
          201: success(checkoutData, 'Session créée (PENDING)', {
            message: 'Session de paiement créée.',
            data: {
              reference: 'PI-80E71EA01178',
              status: 'PENDING',
              amount: 5000,
              currency: 'XAF',
              description: 'Commande 42',
              paymentUrl: 'https://pay.example.cm/checkout/cs_85920f289591b031132dc69fc1e23dc0',
            },
          }),
          ...errorResponses(...CREATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const data = await createCheckout(request.services, requireApiKey(request, ['COLLECT']), request.body, idempotencyHeader(request));
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
        description: "Le payeur confirme sur son téléphone (USSD, STK) ; un moyen à redirection (Wave) rend redirectUrl. Le statut final arrive par webhook et par GET /api/v1/pay-in/check_status/{reference}.",
        operationId: 'createCharge',
        security,
        body: chargeRequest,
        response: {
          201: success(chargeData, 'Paiement initié (PENDING)', {
            message: 'Paiement initié.',
            data: EXAMPLE_CHARGE_CREATED,
          }),
          ...errorResponses(...CREATION_ERRORS, 'RAIL_CLOSED'),
        },
      },
    },
    async (request, reply) => {
      const data = await createCharge(request.services, requireApiKey(request, ['COLLECT']), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Paiement initié.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-in/check_status/:reference',
    {
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-in'],
        summary: "Statut d'un paiement",
        operationId: 'getPayInStatus',
        security,
        params: referenceParams,
        response: {
          200: success(payInStatusData, 'Le paiement, avec ses frais et son identifiant opérateur', {
            message: 'Statut du paiement récupéré.',
            data: EXAMPLE_PAY_IN_STATUS,
          }),
          ...errorResponses(...STATUS_ERRORS),
        },
      },
    },
    async (request) => {
      const row = await readTransactionStatus(services, requireApiKey(request, ['COLLECT', 'READ']), 'PAY_IN', request.params.reference);
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
        operationId: 'refundPayment',
        security,
        body: refundRequest,
        response: {
          201: success(refundData, 'Remboursement initié (un virement PENDING vers le payeur)', {
            message: 'Remboursement initié.',
            data: {
              reference: EXAMPLE_IDS.refund,
              paymentReference: EXAMPLE_IDS.payIn,
              status: 'PENDING',
              amount: 1000,
              feeAmount: 0,
              currency: 'XAF',
              reason: 'Article retourné',
            },
          }),
          ...errorResponses(
            ...BODY_ERRORS,
            ...API_KEY_ERRORS,
            'TRANSACTION_NOT_FOUND',
            'REFUND_NOT_ALLOWED',
            'REFUND_AMOUNT_EXCEEDED',
            'PROVIDER_NOT_FOUND',
            'AMOUNT_BELOW_MINIMUM',
            'AMOUNT_ABOVE_MAXIMUM',
            'INSUFFICIENT_BALANCE',
            'IDEMPOTENCY_KEY_REUSED',
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await refundPayment(request.services, requireApiKey(request, ['REFUND']), request.body, idempotencyHeader(request));
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
        description: 'Le montant et les frais sont réservés sur le solde disponible de l’application (400 INSUFFICIENT_BALANCE sinon) jusqu’à la réponse définitive de l’opérateur.',
        operationId: 'createTransfer',
        security,
        body: transferRequestWithExample,
        response: {
          201: success(transferData, 'Virement initié (PENDING)', {
            message: 'Virement initié.',
            data: EXAMPLE_TRANSFER_CREATED,
          }),
          ...errorResponses(...CREATION_ERRORS, 'INSUFFICIENT_BALANCE'),
        },
      },
    },
    async (request, reply) => {
      const data = await createTransfer(request.services, requireApiKey(request, ['PAYOUT']), request.body, idempotencyHeader(request));
      return reply.code(201).send(ok(data, 'Virement initié.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-out/check_status/:reference',
    {
      // One round trip, as the pay-in status read.
      serializerCompiler: compiledJsonSerializer,
      schema: {
        tags: ['Pay-out'],
        summary: "Statut d'un virement",
        operationId: 'getPayOutStatus',
        security,
        params: referenceParams,
        response: {
          200: success(payOutStatusData, 'Le virement, avec ses frais et le montant encore réservé', {
            message: 'Statut du virement récupéré.',
            data: {
              ...EXAMPLE_TRANSFER_CREATED,
              status: 'SUCCESS',
              failureCode: null,
              failureReason: null,
              feeAmount: 0,
              netAmount: 10000,
              operatorTransactionId: 'SBXF9C37E83A362',
              lateSuccess: false,
              heldAmount: 0,
              queuedForFloat: false,
            },
          }),
          ...errorResponses(...STATUS_ERRORS),
        },
      },
    },
    async (request) => {
      const row = await readTransactionStatus(services, requireApiKey(request, ['PAYOUT', 'READ']), 'PAY_OUT', request.params.reference);
      return ok(payOutStatusView(row), 'Statut du virement récupéré.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/pay-out/:reference/cancel',
    {
      schema: {
        tags: ['Pay-out'],
        summary: "Annuler un virement en file d'attente",
        description:
          "Extension : annule un virement qui attend le float de l'opérateur (`queuedForFloat` true), jamais envoyé : il passe FAILED avec le code PAYOUT_CANCELLED, sa réservation est libérée et le webhook payout.failed part. Un virement déjà envoyé à l'opérateur, ou terminé, répond 409 PAYOUT_NOT_CANCELLABLE.",
        operationId: 'cancelQueuedPayOut',
        security,
        params: referenceParams,
        response: {
          200: success(payOutStatusData, 'Le virement annulé (FAILED, PAYOUT_CANCELLED)', {
            message: 'Virement annulé.',
            data: {
              ...EXAMPLE_TRANSFER_CREATED,
              status: 'FAILED',
              failureCode: 'PAYOUT_CANCELLED',
              failureReason: "Transfert annulé par le marchand pendant qu'il attendait le float de l'opérateur.",
              feeAmount: 0,
              netAmount: null,
              operatorTransactionId: null,
              lateSuccess: false,
              heldAmount: 0,
              queuedForFloat: false,
            },
          }),
          ...errorResponses(...STATUS_ERRORS, 'PAYOUT_NOT_CANCELLABLE'),
        },
      },
    },
    async (request) => {
      const auth = requireApiKey(request, ['PAYOUT']);
      const row = await cancelQueuedPayOut(request.services, auth, request.params.reference);
      return ok(payOutStatusView(row), 'Virement annulé.', services.clock.now());
    },
  );
}
