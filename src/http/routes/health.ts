/**
 * `GET /actuator/health`: `{"status":"UP","version":"0.1.0"}` when the database answers, 503
 * `{"status":"DOWN","version":…}` otherwise. `status` keeps Spring Boot Actuator's meaning (what
 * load balancers and existing clients read); `version` is package.json's, so a rolling upgrade
 * can be followed instance by instance.
 */
import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../db/queries/operations.ts';
import type { Services } from '../../services.ts';
import { version } from '../../version.ts';

/** Registers the health endpoint. */
export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/actuator/health', { schema: { tags: ['Santé'], summary: 'État du service' } }, async (request, reply) => {
    try {
      await pingDatabase(services.db);
      return { status: 'UP', version };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'DOWN', version });
    }
  });
}
