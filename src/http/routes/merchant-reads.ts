/**
 * The merchant API's reads with an API key: the application's balance and its transactions, in
 * the key's environment. Thin adapters: parse, call one use case, wrap in the envelope.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listTransactions, readApplicationBalance } from '../../payments/index.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { envelopeOf, ok } from '../envelope.ts';
import { API_KEY_ERRORS, apiKeySecurity, errorResponses } from '../schemas/openapi.ts';
import { ts } from '../schemas/dashboard.ts';
import { EXAMPLE_PAY_IN_STATUS } from '../schemas/examples.ts';
import { balanceData, transactionsData, transactionsQuery } from '../schemas/merchant-reads.ts';

const security = apiKeySecurity;
const EXAMPLE_TIMESTAMP = '2026-11-20T11:00:00.000';

/** Example of `GET /api/v1/balance` (checked against its schema by test/merchant-api/reads.test.ts). */
export const BALANCE_EXAMPLE = {
  success: true,
  code: 'SUCCESS',
  message: 'Solde récupéré.',
  data: {
    applicationId: '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f',
    environment: 'LIVE',
    currency: 'XAF',
    availableAmount: 1_250_000,
    pendingAmount: 15_000,
    reservedAmount: 5_100,
  },
  timestamp: EXAMPLE_TIMESTAMP,
};

/** Example of `GET /api/v1/transactions`: a charge and a transfer (checked against its schema by the tests). */
export const TRANSACTIONS_EXAMPLE = {
  success: true,
  code: 'SUCCESS',
  message: 'Transactions récupérées.',
  data: {
    items: [
      {
        reference: 'PO-7C1E2D3F4A5B',
        status: 'FAILED',
        amount: 5000,
        currency: 'XAF',
        description: null,
        paymentMethod: 'MTN_MOMO_CM',
        beneficiaryAccount: '237677000002',
        beneficiaryName: 'Awa Ngono',
        beneficiaryEmail: null,
        failureCode: 'INVALID_ACCOUNT',
        failureReason: 'Compte du bénéficiaire introuvable',
        feeAmount: 100,
        netAmount: 5100,
        operatorTransactionId: null,
        lateSuccess: false,
        heldAmount: 0,
        queuedForFloat: false,
        direction: 'PAY_OUT',
        merchantReference: 'VIR-7',
        createdAt: '2026-11-20T10:42:05.120',
        updatedAt: '2026-11-20T10:42:09.877',
      },
      {
        ...EXAMPLE_PAY_IN_STATUS,
        direction: 'PAY_IN',
        merchantReference: 'CMD-42',
        createdAt: '2026-11-20T10:41:00.031',
        updatedAt: '2026-11-20T10:41:07.402',
      },
    ],
    nextCursor: 'MTc2MzYzNTI2MDAzMTAwMDo5YjFkZWI0ZC0zYjdkLTRiYWQtOWJkZC0yYjBkN2I1ZWFkNmY',
  },
  timestamp: EXAMPLE_TIMESTAMP,
};

/** Registers `GET /api/v1/balance` and `GET /api/v1/transactions`. */
export async function merchantReadRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.get(
    '/api/v1/balance',
    {
      schema: {
        tags: ['Solde et transactions'],
        summary: "Solde de l'application de la clé",
        description:
          "Le solde de l'application de la clé API, dans l'environnement de la clé (une clé de test lit le solde de test ; une application de test qui n'a encore rien fait montre son solde de test initial). Montants entiers en unités de base de la devise, lus dans le grand livre.",
        operationId: 'getBalance',
        security,
        response: { 200: envelopeOf(balanceData).meta({ description: 'Le solde', example: BALANCE_EXAMPLE }), ...errorResponses(...API_KEY_ERRORS) },
      },
    },
    async (request) => {
      const data = await readApplicationBalance(request.services, requireApiKey(request, ['READ']));
      return ok(data, 'Solde récupéré.', services.clock.now());
    },
  );

  r.get(
    '/api/v1/transactions',
    {
      schema: {
        tags: ['Solde et transactions'],
        summary: "Transactions de l'application de la clé, les plus récentes d'abord",
        description:
          "Les paiements et virements de l'application de la clé, dans l'environnement de la clé, les plus récents d'abord, par pages (cursor : le nextCursor de la page précédente ; stable même si des transactions sont créées entre deux pages). Chaque élément est la vue du statut (GET …/check_status) avec direction, merchantReference, createdAt et updatedAt. Filtres : status, type, from, to (dates sans fuseau : heure locale du serveur).",
        operationId: 'listTransactions',
        security,
        querystring: transactionsQuery,
        response: {
          200: envelopeOf(transactionsData).meta({ description: 'Une page de transactions', example: TRANSACTIONS_EXAMPLE }),
          ...errorResponses('INVALID_PARAMETER', ...API_KEY_ERRORS),
        },
      },
    },
    async (request) => {
      const page = await listTransactions(request.services, requireApiKey(request, ['READ']), request.query);
      const data = { ...page, items: page.items.map((item) => ({ ...item, createdAt: ts(item.createdAt), updatedAt: ts(item.updatedAt) })) };
      return ok(data, 'Transactions récupérées.', services.clock.now());
    },
  );
}
