/**
 * The merchant API's rail reads with an API key: number resolution and the application's
 * configuration. Thin adapters: parse, call one use case, wrap in the envelope.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { applicationConfiguration, resolveNumber } from '../../rails/index.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { ok } from '../envelope.ts';
import { API_KEY_ERRORS, apiKeySecurity, BODY_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { configurationData, numberResolutionData, resolveNumberBody } from '../schemas/rails.ts';

/** Example answer of `POST /api/v1/numbers/resolve` (checked against its schema by test/merchant-api/rails.test.ts). */
export const NUMBER_RESOLUTION_EXAMPLE = {
  message: 'Numéro résolu.',
  data: {
    input: '6 77 00 01 00',
    isValid: true,
    e164: '+237677000100',
    msisdn: '237677000100',
    country: 'CM',
    nationalNumber: '677000100',
    operator: 'MTN_MOMO',
    rails: [{ code: 'MTN_MOMO_CM', name: 'MTN Mobile Money Cameroun', operator: 'MTN_MOMO', currency: 'XAF', isUsable: true }],
    problem: null,
    message: null,
    suggestedE164: null,
  },
};

/** Example answer of `GET /api/v1/configuration` (checked against its schema by test/merchant-api/configuration.test.ts). */
export const CONFIGURATION_EXAMPLE = {
  message: 'Configuration récupérée.',
  data: {
    applicationId: '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f',
    environment: 'LIVE' as const,
    currency: 'XAF',
    rails: [
      {
        code: 'MTN_MOMO_CM',
        name: 'MTN Mobile Money Cameroun',
        operator: 'MTN_MOMO',
        country: 'CM',
        currency: 'XAF',
        decimals: 0,
        authorization: 'PIN_PROMPT',
        instructions: { fr: 'Composez *126# pour valider le paiement', en: 'Dial *126# to approve the payment' },
        payIn: { minAmount: 100, maxAmount: 1_000_000, availability: 'OPERATIONAL' },
        payOut: { minAmount: 100, maxAmount: 1_000_000, availability: 'DELAYED' },
      },
    ],
  },
};

/** Registers `POST /api/v1/numbers/resolve` and `GET /api/v1/configuration`. */
export async function railRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.post(
    '/api/v1/numbers/resolve',
    {
      schema: {
        tags: ['Moyens de paiement'],
        summary: 'Résoudre un numéro de téléphone',
        description:
          "Lit un numéro sous toute forme courante (+, 00, espaces, ou national avec country) et rend sa forme E.164, son pays, son opérateur et les moyens de paiement auxquels il appartient, chacun disant si l'application de la clé peut l'utiliser ; ou pourquoi il est inutilisable (problem, message en français), avec le numéro à utiliser quand il est connu (anciens numéros béninois à 8 chiffres). Un numéro invalide est une réponse 200 (isValid false), pas une erreur. POST pour que le numéro, donnée personnelle, reste hors des URL et des journaux d'accès.",
        operationId: 'resolveNumber',
        security: apiKeySecurity,
        body: resolveNumberBody.meta({ examples: [{ number: '6 77 00 01 00', country: 'CM' }] }),
        response: { 200: success(numberResolutionData, 'La résolution du numéro', NUMBER_RESOLUTION_EXAMPLE), ...errorResponses(...BODY_ERRORS, ...API_KEY_ERRORS) },
      },
    },
    async (request) => {
      const data = await resolveNumber(request.services, requireApiKey(request, ['READ', 'COLLECT', 'PAYOUT']), request.body);
      return ok(data, 'Numéro résolu.', services.clock.now());
    },
  );

  r.get(
    '/api/v1/configuration',
    {
      schema: {
        tags: ['Moyens de paiement'],
        summary: "Moyens de paiement de l'application et leur disponibilité",
        description:
          "Les moyens de paiement actifs que l'application de la clé peut utiliser dans l'environnement de la clé (sa devise ; en LIVE, ceux dont le connecteur est configuré) : devise et décimales, montants minimal et maximal par opération, comment le client valide (PIN_PROMPT, REDIRECT, OTP), les instructions au client en français et en anglais, et la disponibilité de chaque opération (OPERATIONAL, DELAYED, CLOSED), calculée du trafic des 15 dernières minutes ou fixée par le personnel.",
        operationId: 'getConfiguration',
        security: apiKeySecurity,
        response: { 200: success(configurationData, 'La configuration', CONFIGURATION_EXAMPLE), ...errorResponses(...API_KEY_ERRORS) },
      },
    },
    async (request) => {
      const data = await applicationConfiguration(request.services, requireApiKey(request, ['READ', 'COLLECT', 'PAYOUT']));
      return ok(data, 'Configuration récupérée.', services.clock.now());
    },
  );
}
