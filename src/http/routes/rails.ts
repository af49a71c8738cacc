/**
 * The merchant API's rail reads with an API key: number resolution. Thin adapters: parse, call one
 * use case, wrap in the envelope.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { resolveNumber } from '../../rails/index.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { ok } from '../envelope.ts';
import { API_KEY_ERRORS, apiKeySecurity, BODY_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { numberResolutionData, resolveNumberBody } from '../schemas/rails.ts';

/** Example answer of `POST /api/v1/numbers/resolve` (checked against its schema by test/merchant-api/rails.test.ts). */
export const NUMBER_RESOLUTION_EXAMPLE = {
  message: 'Numéro résolu.',
  data: {
    input: '06 77 00 01 00',
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

/** Registers `POST /api/v1/numbers/resolve`. */
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
        body: resolveNumberBody,
        response: { 200: success(numberResolutionData, 'La résolution du numéro', NUMBER_RESOLUTION_EXAMPLE), ...errorResponses(...BODY_ERRORS, ...API_KEY_ERRORS) },
      },
    },
    async (request) => {
      const data = await resolveNumber(request.services, requireApiKey(request), request.body);
      return ok(data, 'Numéro résolu.', services.clock.now());
    },
  );
}
