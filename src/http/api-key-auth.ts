/**
 * `X-API-KEY` authentication for the merchant API (spec "Authentication" 1, 7): an `onRequest`
 * hook, so it runs before body validation; any missing, malformed, unknown or revoked key gets
 * the same 401 UNAUTHORIZED.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey, type ApiKeyAuth } from '../accounts/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on merchant API routes. */
    apiKey?: ApiKeyAuth;
  }
}

/** Builds the `onRequest` hook that authenticates the API key or throws UNAUTHORIZED. */
export function apiKeyHook(services: Services) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers['x-api-key'];
    const auth = await authenticateApiKey(services, typeof header === 'string' ? header.trim() : undefined);
    if (!auth) throw new ApiError('UNAUTHORIZED');
    request.apiKey = auth;
  };
}

/** The authenticated key of a request that passed `apiKeyHook`. */
export function requireApiKey(request: FastifyRequest): ApiKeyAuth {
  if (!request.apiKey) throw new ApiError('UNAUTHORIZED');
  return request.apiKey;
}
