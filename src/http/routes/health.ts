/** `GET /actuator/health`: `{"status":"UP"}` when the database answers, 503 `DOWN` otherwise. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pingDatabase } from '../../db/queries/operations.ts';
import type { Services } from '../../services.ts';
import { publicSecurity } from '../schemas/openapi.ts';

const healthSchema = {
  tags: ['Santé'],
  summary: 'État du service',
  operationId: 'getHealth',
  security: publicSecurity,
  response: {
    200: z.object({ status: z.literal('UP') }).meta({ description: 'La base de données répond', examples: [{ status: 'UP' }] }),
    503: z.object({ status: z.literal('DOWN') }).meta({ description: 'La base de données ne répond pas', examples: [{ status: 'DOWN' }] }),
  },
};

/** Registers the health endpoint. */
export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/actuator/health', { schema: healthSchema }, async (request, reply) => {
    try {
      await pingDatabase(services.db);
      return { status: 'UP' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}
