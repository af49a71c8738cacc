/**
 * `X-API-KEY` authentication for the merchant API: every request under `/api/v1/pay-in/`,
 * `/api/v1/pay-out/` and `/api/v1/webhook` carries the key, which is the whole credential. An
 * `onRequest` hook, so it runs before body and parameter validation: any missing, malformed,
 * unknown or revoked key gets the same 401 UNAUTHORIZED (there is no dedicated bad-key code), and
 * a refused key's 401 comes before any 400. The hook only authenticates: each route names the
 * scope it needs (`requireApiKey(request, scopes)`), checked with the key's IP allow-list before
 * the use case runs (403 API_KEY_SCOPE_DENIED / API_KEY_IP_DENIED).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApiKey, authorizeApiKey, type ApiKeyAuth, type ApiKeyScope } from '../accounts/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on merchant API routes, once the key is admitted. */
    apiKey?: ApiKeyAuth;
  }
}

/**
 * Puts the API-key check in front of every route registered in `scope` from now on, as a scope
 * `onRequest` hook (after the application's own `onRequest` hooks).
 */
export function requireApiKeys(scope: FastifyInstance, services: Services): void {
  scope.addHook('onRequest', async (request) => {
    const header = request.headers['x-api-key'];
    const rawKey = typeof header === 'string' ? header.trim() : undefined;
    const auth = await authenticateApiKey(services, rawKey);
    if (auth === null) throw new ApiError('UNAUTHORIZED');
    request.apiKey = auth;
  });
}

/**
 * The authenticated key of a request that passed the API-key hook, once the route's access check
 * passed: the client address (`request.ip`, which honours TRUST_PROXY) must be in the key's
 * allow-list (else 403 API_KEY_IP_DENIED) and the key must hold one of `anyOf` ('ALL': every
 * scope; else 403 API_KEY_SCOPE_DENIED). Throws UNAUTHORIZED without a key.
 */
export function requireApiKey(request: FastifyRequest, anyOf: readonly ApiKeyScope[] | 'ALL'): ApiKeyAuth {
  if (!request.apiKey) throw new ApiError('UNAUTHORIZED');
  authorizeApiKey(request.apiKey, anyOf, request.ip);
  return request.apiKey;
}
