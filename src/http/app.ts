/**
 * Builds the Fastify application (no listening: `main.ts` does that). Zod validates requests
 * and serialises responses; the same schemas produce `/openapi.json` and `/docs`. Every
 * answer, including not-found and parser errors, uses the envelope.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Services } from '../services.ts';
import type { HttpRecorder } from '../metrics/metrics.ts';
import { requestIdFor, requestLogger } from '../request-context.ts';
import { checkoutPageRoutes } from '../checkout/checkout-page.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './error-handler.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { paymentRoutes } from './routes/payments.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { merchantReadRoutes } from './routes/merchant-reads.ts';
import { railRoutes } from './routes/rails.ts';
import { dashboardRailRoutes } from './routes/dashboard-rails.ts';
import { eventRoutes } from './routes/events.ts';
import { callbackRoutes } from './routes/callbacks.ts';
import { dashboardWebhookRoutes } from './routes/dashboard-webhooks.ts';
import { dashboardAuthRoutes, dashboardProfileRoutes } from './routes/dashboard-auth.ts';
import { dashboardAppRoutes } from './routes/dashboard-apps.ts';
import { dashboardMoneyRoutes } from './routes/dashboard-money.ts';
import { dashboardWithdrawalRoutes } from './routes/dashboard-withdrawals.ts';
import { dashboardFundCollectionRoutes } from './routes/dashboard-fund-collections.ts';
import { publicCollectRoutes } from './routes/public-collect.ts';
import { collectPageRoutes } from '../checkout/collect-page.ts';
import { dashboardAdminRoutes } from './routes/dashboard-admin.ts';
import { dashboardReconciliationRoutes } from './routes/dashboard-reconciliation.ts';
import { dashboardFloatRoutes } from './routes/dashboard-float.ts';
import { dashboardStatementRoutes } from './routes/dashboard-statements.ts';
import { registerCors } from './cors.ts';
import { dashboardTransactionRoutes } from './routes/dashboard-transactions.ts';
import { dashboardStatsRoutes } from './routes/dashboard-stats.ts';
import { dashboardHomeRoutes } from './routes/dashboard-home.ts';
import { dashboardTeamRoutes } from './routes/dashboard-team.ts';
import { dashboardTwoFactorRoutes } from './routes/dashboard-two-factor.ts';
import { webAppRoutes } from './web-app.ts';
import { dashboardBatchRoutes, merchantBatchRoutes } from './routes/batches.ts';
import { docsUiOptions, openApiOptions } from './schemas/openapi-document.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The services as the use cases serving this request receive them: `log` is the request's
     * logger (`requestId` on every line) and `requestId` its id, for the audit log. Built on first use.
     */
    readonly services: Services;
  }
}

/** Creates the application with every route registered, ready for `listen` or `inject`. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.log as unknown as FastifyBaseLogger,
    bodyLimit: services.config.bodyLimitBytes,
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true },
    connectionTimeout: 30_000,
    keepAliveTimeout: 72_000,
    requestTimeout: 60_000,
    // Each request's logger (`request.log`, and the use cases' through `request.services`) carries
    // its id (Fastify's binding `reqId`), which the logger's mixin adds to every line
    // (`requestLogger`, request-context.ts) rather than a pino child per request. A child still
    // when a route sets its level or serializers.
    childLoggerFactory: (logger, bindings, options) =>
      requestLogger(options.level || options.serializers ? logger.child({}, options) : logger, bindings.reqId as string),
    // Our own onResponse line replaces Fastify's request logs: it logs the route pattern, not
    // the raw URL, which may carry a checkout session token.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // TRUST_PROXY: `request.ip` (rate limits, login lockouts, audit log) is the X-Forwarded-For
    // address only when the peer is a trusted proxy; false: always the peer's own address.
    trustProxy: services.config.trustProxy,
    frameworkErrors: frameworkErrorHandler(services.clock),
    // X-Request-Id: the caller's when of sane form, else generated; returned on every answer.
    genReqId: (raw) => requestIdFor(raw.headers['x-request-id']),
    clientErrorHandler: clientErrorHandler(services.clock, services.log),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandlers(app, services.clock);
  // JSON routes take JSON only: Fastify's default text/plain parser would hand a string to the
  // body schema (400) where every other non-JSON type gets 415 UNSUPPORTED_MEDIA_TYPE. The pages'
  // form parser and the callbacks' catch-all are registered in their own scopes.
  app.removeContentTypeParser('text/plain');

  // Graceful stop: once closing has begun, every answer (those in flight included) closes its
  // keep-alive connection, so the listener's close does not wait for idle clients (72 s).
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
  });
  // Hooks that run on every request are callback-style: each calls `done` once.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isClosing) reply.header('connection', 'close');
    done(null, payload);
  });

  // Each request counts as API activity, which the background loops read (jobs/fair-share.ts).
  const activity = services.apiActivity;
  app.addHook('onRequest', (request, reply, done) => {
    activity.requests++;
    reply.header('x-request-id', request.id);
    done();
  });

  // `request.services`: what the use cases serving a request receive, built on first use and
  // kept in a slot declared on every request.
  const scoped = Symbol('request services');
  app.decorateRequest(scoped, null);
  app.decorateRequest('services', {
    getter(this: FastifyRequest): Services {
      const slot = this as unknown as { [scoped]: Services | null };
      return (slot[scoped] ??= { ...services, log: this.log as unknown as Logger, requestId: this.id });
    },
  });

  // CORS_ORIGINS: the dashboard API (and the merchant API with CORS_MERCHANT_API); preflights are
  // answered in this onRequest hook, before the bearer or key check (a browser never sends
  // credentials on a preflight).
  await registerCors(app, services.config.corsOrigins, { isMerchantApiAllowed: services.config.isCorsMerchantApi });

  // A POST without a body is validated as an empty object, so every missing field is reported.
  // Attached to the routes that take a body only, so that reads run no hook for it.
  const emptyBody = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  // Each route's answers are logged and counted under its pattern by an `onResponse` hook made for
  // it when it is registered, with that route's series; requests no route matched (404, malformed
  // URLs) by the application's own hook below, under `unknown`.
  app.addHook('onRoute', (route) => {
    const answered = answerHook(route.url, services.metrics.httpRecorder(route.url));
    const ownResponse = route.onResponse;
    route.onResponse = ownResponse === undefined ? [answered] : [...(Array.isArray(ownResponse) ? ownResponse : [ownResponse]), answered];
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    const own = route.preValidation;
    route.preValidation = own === undefined ? [emptyBody] : [emptyBody, ...(Array.isArray(own) ? own : [own])];
  });
  const unrouted = answerHook('unknown', services.metrics.httpRecorder('unknown'));
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unrouted(request, reply, done);
    else done();
  });

  await app.register(fastifySwagger, openApiOptions(services.config.publicBaseUrl));
  await app.register(fastifySwaggerUi, docsUiOptions);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (scope) => healthRoutes(scope, services));
  await app.register(async (scope) => metricsRoutes(scope, services));
  await app.register(async (scope) => paymentRoutes(scope, services));
  await app.register(async (scope) => merchantBatchRoutes(scope, services));
  await app.register(async (scope) => dashboardBatchRoutes(scope, services));
  await app.register(async (scope) => webhookRoutes(scope, services));
  await app.register(async (scope) => merchantReadRoutes(scope, services));
  await app.register(async (scope) => railRoutes(scope, services));
  await app.register(async (scope) => eventRoutes(scope, services));
  await app.register(async (scope) => callbackRoutes(scope, services));
  await app.register(async (scope) => dashboardWebhookRoutes(scope, services));
  await app.register(async (scope) => checkoutPageRoutes(scope, services));
  await app.register(async (scope) => dashboardAuthRoutes(scope, services));
  await app.register(async (scope) => dashboardProfileRoutes(scope, services));
  await app.register(async (scope) => dashboardAppRoutes(scope, services));
  await app.register(async (scope) => dashboardAdminRoutes(scope, services));
  await app.register(async (scope) => dashboardReconciliationRoutes(scope, services));
  await app.register(async (scope) => dashboardRailRoutes(scope, services));
  await app.register(async (scope) => dashboardFloatRoutes(scope, services));
  await app.register(async (scope) => dashboardStatementRoutes(scope, services));
  await app.register(async (scope) => dashboardMoneyRoutes(scope, services));
  await app.register(async (scope) => dashboardWithdrawalRoutes(scope, services));
  await app.register(async (scope) => dashboardFundCollectionRoutes(scope, services));
  await app.register(async (scope) => publicCollectRoutes(scope, services));
  await app.register(async (scope) => collectPageRoutes(scope, services));
  await app.register(async (scope) => dashboardTransactionRoutes(scope, services));
  await app.register(async (scope) => dashboardStatsRoutes(scope, services));
  await app.register(async (scope) => dashboardHomeRoutes(scope, services));
  await app.register(async (scope) => dashboardTeamRoutes(scope, services));
  await app.register(async (scope) => dashboardTwoFactorRoutes(scope, services));
  await app.register(async (scope) => webAppRoutes(scope, undefined, services));
  return app;
}

/**
 * The `onResponse` hook recording a request's answer under the route pattern `route`, with
 * `record` (that route's series): one log line (method, route pattern, status, milliseconds),
 * then the request counter and the duration histogram.
 */
function answerHook(route: string, record: HttpRecorder) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const elapsed = reply.elapsedTime;
    request.log.info({ method: request.method, url: route, status: reply.statusCode, ms: Math.round(elapsed) }, 'request');
    record(request.method, reply.statusCode, elapsed / 1000);
    done();
  };
}
