/**
 * Staff's view of the rails' availability under /api/v1/admin/rails: the LIVE availability of
 * every active rail and direction, with the traffic it was computed from (ADMIN and SUPPORT), and
 * the override that replaces it (ADMIN only, audited). Thin adapters over `rails/`.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { liveRailAvailabilities } from '../../rails/index.ts';
import { clearAvailabilityOverride, setAvailabilityOverride } from '../../dashboard/rail-availability-overrides.ts';
import type { Services } from '../../services.ts';
import { adminOnly, auditActor, dashboardAuthHook, staffRead } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { ts } from '../schemas/dashboard.ts';
import { EXAMPLE_TIME } from '../schemas/examples.ts';
import { BODY_ERRORS, STAFF_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { availabilityOverrideBody, availabilityOverrideParams, railAvailabilityData } from '../schemas/rails.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';

const EXAMPLE = {
  providerCode: 'MTN_MOMO_CM',
  direction: 'PAY_OUT' as const,
  status: 'DELAYED',
  source: 'OVERRIDE' as const,
  observedStatus: 'OPERATIONAL',
  traffic: { sampleSize: 42, errorCount: 1, slowCount: 3 },
  override: { status: 'DELAYED', reason: 'Maintenance MTN annoncée de 02:00 à 04:00', setBy: '6d1f8a2b-3c4e-4f5a-8b6c-7d8e9f0a1b2c', setAt: EXAMPLE_TIME },
};

/** Registers /api/v1/admin/rails/availability and the overrides. */
export async function dashboardRailRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const now = () => services.clock.now();
  const tags = ['Administration'];

  r.get(
    '/api/v1/admin/rails/availability',
    {
      schema: {
        tags,
        operationId: 'adminListRailAvailability',
        summary: 'Disponibilité des moyens de paiement (LIVE)',
        description:
          "Pour chaque moyen de paiement actif et chaque sens, la disponibilité en LIVE : celle que donne le trafic des 15 dernières minutes (part d'erreurs et de délais, lenteur jusqu'au statut final), ou celle fixée par le personnel, qui la remplace jusqu'à son retrait.",
        security,
        response: { 200: success(z.array(railAvailabilityData), 'La disponibilité de chaque moyen de paiement et sens', { message: 'Disponibilités récupérées.', data: [EXAMPLE] }), ...errorResponses(...STAFF_ERRORS) },
      },
      onRequest: staffRead,
    },
    async () => {
      const list = await liveRailAvailabilities(services);
      return ok(list.map((a) => ({ ...a, override: a.override ? { ...a.override, setAt: ts(a.override.setAt) } : null })), 'Disponibilités récupérées.', now());
    },
  );

  r.put(
    '/api/v1/admin/rails/:code/availability/:direction',
    {
      schema: {
        tags,
        operationId: 'adminSetRailAvailability',
        summary: "Fixer la disponibilité d'un moyen de paiement pour un sens (204)",
        description: 'Remplace la disponibilité calculée en LIVE jusqu’au retrait (DELETE). Journalisé.',
        security,
        params: availabilityOverrideParams,
        body: availabilityOverrideBody.meta({ examples: [{ status: 'CLOSED', reason: 'Panne MTN en cours' }] }),
        response: { 204: noContent, ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'PROVIDER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      await setAvailabilityOverride(request.services, auditActor(request), { providerCode: request.params.code, direction: request.params.direction, ...request.body });
      return reply.code(204).send(undefined);
    },
  );

  r.delete(
    '/api/v1/admin/rails/:code/availability/:direction',
    {
      schema: {
        tags,
        operationId: 'adminClearRailAvailability',
        summary: "Retirer la disponibilité fixée (le trafic décide de nouveau) (204)",
        security,
        params: availabilityOverrideParams,
        response: { 204: noContent, ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'RESOURCE_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      await clearAvailabilityOverride(request.services, auditActor(request), request.params.code, request.params.direction);
      return reply.code(204).send(undefined);
    },
  );
}
