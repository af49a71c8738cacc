/**
 * `GET /actuator/health`: `{"status":"UP","version":"0.1.0"}` when the database answers, 503
 * `{"status":"DOWN","version":…}` otherwise. `status` keeps Spring Boot Actuator's meaning (what
 * load balancers and existing clients read); `version` is package.json's, so a rolling upgrade
 * can be followed instance by instance.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pingDatabase } from '../../db/queries/operations.ts';
import type { Services } from '../../services.ts';
import { version } from '../../version.ts';
import { publicSecurity } from '../schemas/openapi.ts';

const healthSchema = {
  tags: ['Santé'],
  summary: 'État du service',
  operationId: 'getHealth',
  security: publicSecurity,
  response: {
    200: z.object({ status: z.literal('UP'), version: z.string() }).meta({ description: 'La base de données répond', examples: [{ status: 'UP', version: '0.1.0' }] }),
    503: z
      .object({ status: z.literal('DOWN'), version: z.string() })
      .meta({ description: 'La base de données ne répond pas', examples: [{ status: 'DOWN', version: '0.1.0' }] }),
  },
};

/** Registers the health endpoint. */
export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/actuator/health', { schema: healthSchema }, async (request, reply) => {
    try {
      await pingDatabase(services.db);
      return { status: 'UP', version };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'DOWN', version });
    }
  });
}
