/** `GET /actuator/health`: `{"status":"UP"}` when the database answers, 503 `DOWN` otherwise. */
import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../db/queries/operations.ts';
import type { Services } from '../../services.ts';

/** Registers the health endpoint. */
export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/actuator/health', { schema: { tags: ['Santé'], summary: 'État du service' } }, async (request, reply) => {
    try {
      await pingDatabase(services.db);
      return { status: 'UP' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}
