/**
 * `X-API-KEY` authentication for the merchant API: every request under `/api/v1/pay-in/`,
 * `/api/v1/pay-out/` and `/api/v1/webhook` carries the key, which is the whole credential. An
 * `onRequest` hook, so it runs before body validation; any missing, malformed, unknown or revoked
 * key gets the same 401 UNAUTHORIZED (there is no dedicated bad-key code).
 */
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { authenticateApiKey, beginApiKeyAuthentication, hasKeyForm, type ApiKeyAuth, type ApiKeyAuthentication } from '../accounts/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on merchant API routes, once the key is admitted. */
    apiKey?: ApiKeyAuth;
    /** Routes marked `readsWithKey`: the key being authenticated, whose verdict the use case gives. */
    apiKeyAuthentication?: ApiKeyAuthentication;
  }
  interface FastifyContextConfig {
    /**
     * The route's use case reads with the key (`ApiKeyAuthentication`) and gives its verdict
     * before answering: the hook refuses a missing or malformed key, starts the lookup of any
     * other and lets the request go on, so that the use case's read, asked in the same
     * event-loop turn, joins the key's statement (a status read: one round trip).
     */
    readsWithKey?: boolean;
  }
}

/**
 * Puts the API-key check in front of every route registered in `scope` from now on: an
 * `onRequest` hook made for each route when it is registered (Fastify's `onRoute`), from what its
 * `config` asks (`readsWithKey`), so no request reads the route's options. Runs after the
 * application's own `onRequest` hooks, as a scope hook would.
 */
export function requireApiKeys(scope: FastifyInstance, services: Services): void {
  scope.addHook('onRoute', (route) => {
    const own = route.onRequest;
    const hook = apiKeyHook(services, route.config ?? {});
    route.onRequest = own === undefined ? [hook] : [hook, ...(Array.isArray(own) ? own : [own])];
  });
}

/**
 * The `onRequest` hook of one route that authenticates the API key, or fails the request with
 * UNAUTHORIZED. Callback-style: it calls `done` once, with the error or without.
 */
function apiKeyHook(services: Services, config: FastifyContextConfig) {
  const readsWithKey = config.readsWithKey === true;
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const header = request.headers['x-api-key'];
    const rawKey = typeof header === 'string' ? header.trim() : undefined;
    // The lookup needs only these three; the request's logger carries the request id.
    const lookupServices = { db: services.db, clock: services.clock, log: request.log as unknown as Logger };
    if (readsWithKey) {
      if (!rawKey || !hasKeyForm(rawKey)) return done(new ApiError('UNAUTHORIZED'));
      request.apiKeyAuthentication = beginApiKeyAuthentication(lookupServices, rawKey);
      return done();
    }
    authenticateApiKey(lookupServices, rawKey).then((auth) => {
      if (auth === null) return done(new ApiError('UNAUTHORIZED'));
      request.apiKey = auth;
      done();
    }, done);
  };
}

/** The authenticated key of a request that passed `apiKeyHook` on a route whose hook waits for the verdict. */
export function requireApiKey(request: FastifyRequest): ApiKeyAuth {
  if (!request.apiKey) throw new ApiError('UNAUTHORIZED');
  return request.apiKey;
}

/** The key being authenticated on a route marked `readsWithKey` (its use case gives the verdict). */
export function requireApiKeyAuthentication(request: FastifyRequest): ApiKeyAuthentication {
  if (!request.apiKeyAuthentication) throw new ApiError('UNAUTHORIZED');
  return request.apiKeyAuthentication;
}
