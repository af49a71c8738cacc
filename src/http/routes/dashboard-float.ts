/**
 * The operator float, for staff (bearer-authenticated): every LIVE rail's float (ADMIN and
 * SUPPORT), and a reading of a rail's operator balance now (ADMIN only; 403 ACCESS_DENIED
 * otherwise). The reading also notifies a crossing and sends what the float now covers (float/).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { railFloats, readRailFloat } from '../../float/index.ts';
import type { Services } from '../../services.ts';
import { adminOnly, dashboardAuthHook, staffRead } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { STAFF_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';

const FLOAT_STATES = ['OK', 'LOW', 'CRITICAL', 'UNKNOWN'] as const;

/** One LIVE rail's float (`float/rail-float.ts` `RailFloat`); amounts in base units of `currency`. */
export const railFloatData = z.object({
  railCode: z.string(),
  operator: z.string(),
  currency: z.string(),
  hasBalanceQuery: z.boolean().describe("false : l'opérateur ne propose pas de consultation de solde (solde inconnu)"),
  operatorBalance: z.number().nullable().describe("Solde de l'opérateur à la dernière lecture réussie ; null : inconnu"),
  operatorBalanceReadAt: z.string().nullable(),
  lastReadError: z.string().nullable().describe("Erreur de la dernière lecture, quand elle a échoué"),
  ledgerFloat: z.number().describe('Float du grand livre (compte OPERATOR_FLOAT du moyen de paiement, LIVE)'),
  drift: z.number().nullable().describe('Solde opérateur − float du grand livre'),
  inFlight: z.number().describe("Virements envoyés à l'opérateur et pas encore terminés"),
  sendable: z.number().nullable().describe('Ce que de nouveaux virements peuvent encore utiliser'),
  queuedCount: z.number().int(),
  queuedAmount: z.number(),
  lowWatermark: z.number(),
  criticalWatermark: z.number(),
  state: z.enum(FLOAT_STATES),
  notifiedState: z.enum(FLOAT_STATES),
});

const EXAMPLE = {
  railCode: 'MTN_MOMO_CM',
  operator: 'MTN_MOMO',
  currency: 'XAF',
  hasBalanceQuery: true,
  operatorBalance: 1_250_000,
  operatorBalanceReadAt: '2026-11-20T10:00:00.000Z',
  lastReadError: null,
  ledgerFloat: 1_240_000,
  drift: 10_000,
  inFlight: 25_000,
  sendable: 1_225_000,
  queuedCount: 0,
  queuedAmount: 0,
  lowWatermark: 500_000,
  criticalWatermark: 100_000,
  state: 'OK' as const,
  notifiedState: 'OK' as const,
};

/** Registers /api/v1/admin/float*. */
export async function dashboardFloatRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Administration'];

  r.get(
    '/api/v1/admin/float',
    {
      schema: {
        tags,
        operationId: 'adminListFloat',
        summary: 'Float de chaque moyen de paiement LIVE',
        security,
        response: { 200: success(z.array(railFloatData), 'Le float de chaque moyen de paiement LIVE', { message: 'Float récupéré.', data: [EXAMPLE] }), ...errorResponses(...STAFF_ERRORS) },
      },
      onRequest: staffRead,
    },
    async () => ok(await railFloats(services), 'Float récupéré.', services.clock.now()),
  );

  r.post(
    '/api/v1/admin/float/:railCode/read',
    {
      schema: {
        tags,
        operationId: 'adminReadFloat',
        summary: "Lire maintenant le solde de l'opérateur",
        security,
        params: z.object({ railCode: z.string().regex(/^[A-Z0-9_]{2,40}$/) }),
        response: { 200: success(railFloatData, 'Le float après la lecture', { message: 'Solde lu.', data: EXAMPLE }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'PROVIDER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const float = await readRailFloat(services, request.params.railCode);
      if (!float) throw new ApiError('PROVIDER_NOT_FOUND');
      return ok(float, 'Solde lu.', services.clock.now());
    },
  );
}
