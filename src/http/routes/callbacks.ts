/**
 * `PUT` and `POST /api/v1/callbacks/{operator}/{token}`: operator callbacks (MTN's MoMo callback
 * pages name both PUT and POST; Orange's OM API and Daraja's M-Pesa Express and B2C POST). The
 * answer is 200 at once, whatever the body or token (an operator retrying on errors must not be
 * taught which tokens exist); the fresh status query the callback triggers runs after the answer
 * (payments/handle-operator-callback.ts). Bodies are parsed as JSON when they are JSON and only
 * read by connectors that need them (Daraja); any other body is ignored. Operators that sign
 * their callbacks get one URL each, from the operator registry (`connectors/operators.ts`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Services } from '../../services.ts';
import { handleOperatorCallback, handleSignedCallback } from '../../payments/index.ts';
import { receiveBalanceResult } from '../../float/index.ts';
import { operators, type OperatorKey } from '../../connectors/operators.ts';
import { fail, ok } from '../envelope.ts';
import { errorResponses, publicSecurity, success } from '../schemas/openapi.ts';
import { z } from 'zod';

/** The answer to every accepted callback. */
const received = success(z.null(), 'Notification reçue (la réponse ne dit rien du jeton ni de la transaction)', { message: 'Notification reçue.', data: null });

/** Status queries started by callbacks and not finished yet, per services object. */
const inFlightByServices = new WeakMap<Services, Set<Promise<unknown>>>();

/** Resolves once every status query already triggered by a callback has finished (tests, shutdown). */
export async function callbacksIdle(services: Services): Promise<void> {
  await Promise.allSettled([...(inFlightByServices.get(services) ?? [])]);
}

/** The body as JSON, or undefined when it is empty or not JSON. */
function jsonOf(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Registers the callback routes; in-flight status queries are awaited when the app closes. */
export async function callbackRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const inFlight = inFlightByServices.get(services) ?? new Set<Promise<unknown>>();
  inFlightByServices.set(services, inFlight);
  // Any content type is accepted; the body is kept as bytes (bounded by BODY_LIMIT_BYTES).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addHook('onClose', async () => {
    await Promise.allSettled([...inFlight]);
  });

  const handler = async (request: FastifyRequest<{ Params: { operator: string; token: string } }>, reply: FastifyReply) => {
    const { operator, token } = request.params;
    const work = handleOperatorCallback(request.services, operator.slice(0, 64), token.slice(0, 256), jsonOf(request.body)).then(
      (outcome) => request.log.info({ operator, outcome }, 'operator callback'),
      (error: unknown) => request.log.error({ err: error, operator }, 'operator callback: status query failed'),
    );
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return reply.code(200).send(ok(null, 'Notification reçue.', services.clock.now()));
  };
  /**
   * `POST /api/v1/callbacks/<path>` for each operator that signs its callbacks (Wave: the webhook
   * URL registered in its Business Portal, one per wallet, not per request). A missing, stale or
   * wrong signature is refused with 401 and logged; a valid one is answered 200 at once and only
   * triggers a status query of what it names (`SignedCallback`, in the operator's folder).
   */
  for (const operator of operators) {
    const signed = operator.signedCallback;
    if (!signed) continue;
    const signedSchema: FastifySchema = {
      tags: ['Opérateurs'],
      summary: signed.summary,
      description: signed.description,
      operationId: signed.operationId,
      security: publicSecurity,
      response: { 200: received, ...errorResponses('UNAUTHORIZED', 'PAYLOAD_TOO_LARGE') },
    };
    app.post(`/api/v1/callbacks/${signed.path}`, { schema: signedSchema }, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers[signed.signatureHeader];
      const settings = services.config[operator.key as OperatorKey];
      const problem = signed.problem(settings, typeof header === 'string' ? header : undefined, raw, services.clock.now().getTime());
      if (problem) {
        request.log.warn({ operator: signed.path, problem }, `${operator.title} webhook refused`);
        return reply.code(401).send(fail('UNAUTHORIZED', `Signature ${operator.title} absente ou invalide.`, null, services.clock.now()));
      }
      const work = handleSignedCallback(request.services, signed.railPrefix, signed.referenceOf(jsonOf(raw))).then(
        (outcome) => request.log.info({ operator: signed.path, outcome }, 'operator callback'),
        (error: unknown) => request.log.error({ err: error, operator: signed.path }, 'operator callback: status query failed'),
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
      return reply.code(200).send(ok(null, 'Notification reçue.', services.clock.now()));
    });
  }

  /**
   * `POST /api/v1/callbacks/balance/<token>`: the result of an asynchronous balance query
   * (Daraja's Account Balance), at the URL the query gave (float/balance-result.ts). Answered 200
   * at once whatever the token or body; stored after the answer when the token verifies.
   */
  app.post<{ Params: { token: string } }>(
    '/api/v1/callbacks/balance/:token',
    {
      schema: {
        tags: ['Opérateurs'],
        summary: "Résultat d'une consultation de solde d'un opérateur (float)",
        description:
          "Appelé par l'opérateur (Daraja : Account Balance) à l'adresse donnée à la consultation, pas par un marchand. Toujours 200, quel que soit le corps ou le jeton ; le solde n'est enregistré que si le jeton est valide et récent.",
        operationId: 'receiveBalanceResult',
        security: publicSecurity,
        response: { 200: received, ...errorResponses('PAYLOAD_TOO_LARGE') },
      },
    },
    async (request, reply) => {
      const work = receiveBalanceResult(request.services, request.params.token.slice(0, 512), jsonOf(request.body)).then(
        (outcome) => request.log.info({ outcome }, 'operator balance result'),
        (error: unknown) => request.log.error({ err: error }, 'operator balance result: not stored'),
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
      return reply.code(200).send(ok(null, 'Notification reçue.', services.clock.now()));
    },
  );

  const schema = (operationId: string) => ({
    tags: ['Opérateurs'],
    summary: "Notification d'un opérateur (déclenche une nouvelle interrogation du statut)",
    description: "Appelé par l'opérateur à l'adresse donnée à l'initiation, pas par un marchand. Toujours 200, quel que soit le corps ou le jeton.",
    operationId,
    security: publicSecurity,
    response: { 200: received, ...errorResponses('PAYLOAD_TOO_LARGE') },
  });
  app.put('/api/v1/callbacks/:operator/:token', { schema: schema('receiveOperatorCallbackPut') }, handler);
  app.post('/api/v1/callbacks/:operator/:token', { schema: schema('receiveOperatorCallback') }, handler);
}
