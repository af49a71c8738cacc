/** `GET /actuator/health`: `{"status":"UP"}` when the database answers, 503 `DOWN` otherwise. */
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Services } from '../../services.ts';

/** Registers the health endpoint. */
export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/actuator/health', { schema: { tags: ['Santé'], summary: 'État du service' } }, async (request, reply) => {
    try {
      await services.db.execute(sql`select 1`);
      return { status: 'UP' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}
