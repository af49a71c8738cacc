/**
 * The events API (`GET /api/v1/events`): the events of the key's application and environment —
 * those the webhooks carry, with the same bodies — for a merchant who reconciles by reading
 * rather than (or as well as) by receiving webhooks. A thin adapter over payments/list-events.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { listEvents } from '../../payments/index.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { envelopeOf, ok } from '../envelope.ts';
import { API_KEY_ERRORS, apiKeySecurity, errorResponses } from '../schemas/openapi.ts';
import { ts } from '../schemas/dashboard.ts';
import { EXAMPLE_PAY_IN_STATUS } from '../schemas/examples.ts';
import { eventsData, eventsQuery } from '../schemas/events.ts';

const security = apiKeySecurity;

/** Example of `GET /api/v1/events` (checked against its schema by test/merchant-api/events.test.ts). */
export const EVENTS_EXAMPLE = {
  success: true,
  code: 'SUCCESS',
  message: 'Événements récupérés.',
  data: {
    events: [
      {
        cursor: 'ODk3NDE6MTIwNA',
        id: 'evt_5f0c2b7e9a1d4c3b8e6f7a2d1c0b9e8f',
        event: 'payment.success',
        createdAt: '2026-11-20T10:41:07.402',
        payload: {
          event: 'payment.success',
          timestamp: 1763635267,
          applicationId: '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f',
          data: { ...EXAMPLE_PAY_IN_STATUS, merchantReference: 'CMD-43' },
          id: 'evt_5f0c2b7e9a1d4c3b8e6f7a2d1c0b9e8f',
        },
      },
    ],
    nextCursor: 'ODk3NDE6MTIwNA',
    hasMore: false,
  },
  timestamp: '2026-11-20T11:00:00.000',
};

/** Registers `GET /api/v1/events`. */
export async function eventRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.get(
    '/api/v1/events',
    {
      schema: {
        tags: ['Événements'],
        summary: 'Événements (les mêmes que les webhooks), dans leur ordre',
        description:
          "Les événements de l'application de la clé, dans l'environnement de la clé (webhook.test : avec une clé de test), écrits pour chaque changement de statut annoncé, qu'une URL de webhook soit configurée ou non ; payload est le corps du webhook tel qu'il est (ou serait) livré. Ordre : celui du flux, stable ; un événement n'apparaît qu'une fois terminées toutes les transactions de la base de Kolo qui pourraient en écrire un placé avant lui, donc un lecteur qui suit nextCursor n'en manque aucun. Conservés aussi longtemps que les livraisons de webhooks (RETENTION_WEBHOOK_DAYS).",
        operationId: 'listEvents',
        security,
        querystring: eventsQuery,
        response: {
          200: envelopeOf(eventsData).meta({ description: 'Une page du flux', example: EVENTS_EXAMPLE }),
          ...errorResponses('INVALID_PARAMETER', ...API_KEY_ERRORS),
        },
      },
    },
    async (request) => {
      const page = await listEvents(request.services, requireApiKey(request, ['READ']), request.query);
      const data = { ...page, events: page.events.map((e) => ({ ...e, createdAt: ts(e.createdAt) })) };
      return ok(data, 'Événements récupérés.', services.clock.now());
    },
  );
}
