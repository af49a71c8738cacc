/**
 * `PUT` and `POST /api/v1/callbacks/{operator}/{token}`: operator callbacks (MTN uses PUT or
 * POST, Orange POST; operators.md §1.7, §2B). The answer is 200 at once, whatever the body or
 * token (an operator retrying on errors must not be taught which tokens exist); the fresh status
 * query the callback triggers runs after the answer (payments/handle-operator-callback.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { handleOperatorCallback } from '../../payments/handle-operator-callback.ts';
import { ok } from '../envelope.ts';

/** Status queries started by callbacks and not finished yet, per services object. */
const inFlightByServices = new WeakMap<Services, Set<Promise<unknown>>>();

/** Resolves once every status query already triggered by a callback has finished (tests, shutdown). */
export async function callbacksIdle(services: Services): Promise<void> {
  await Promise.allSettled([...(inFlightByServices.get(services) ?? [])]);
}

/** Registers the callback routes; in-flight status queries are awaited when the app closes. */
export async function callbackRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const inFlight = inFlightByServices.get(services) ?? new Set<Promise<unknown>>();
  inFlightByServices.set(services, inFlight);
  // Bodies are never read: accept any content type without parsing it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
  app.addHook('onClose', async () => {
    await Promise.allSettled([...inFlight]);
  });

  const handler = async (request: FastifyRequest<{ Params: { operator: string; token: string } }>, reply: FastifyReply) => {
    const { operator, token } = request.params;
    const work = handleOperatorCallback(services, operator.slice(0, 64), token.slice(0, 256)).then(
      (outcome) => services.log.info({ operator, outcome }, 'operator callback'),
      (error: unknown) => services.log.error({ err: error, operator }, 'operator callback: status query failed'),
    );
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return reply.code(200).send(ok(null, 'Notification reçue.', services.clock.now()));
  };
  const schema = { tags: ['Opérateurs'], summary: "Notification d'un opérateur (déclenche une nouvelle interrogation du statut)" };
  app.put('/api/v1/callbacks/:operator/:token', { schema }, handler);
  app.post('/api/v1/callbacks/:operator/:token', { schema }, handler);
}
