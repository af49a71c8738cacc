/**
 * `X-API-KEY` authentication for the merchant API (spec "Authentication" 1, 7): an `onRequest`
 * hook, so it runs before body validation; any missing, malformed, unknown or revoked key gets
 * the same 401 UNAUTHORIZED.
 */
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { authenticateApiKey, authenticateApiKeyWithTransaction, type ApiKeyAuth } from '../accounts/api-keys.ts';
import type { StatusViewRow } from '../db/queries/status-view.ts';
import { ApiError } from '../domain/errors.ts';
import { readAllRails, type RailsByCode } from '../payments/rails.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on merchant API routes. */
    apiKey?: ApiKeyAuth;
    /** Status-read routes: the transaction read with the key (null: none of that reference). */
    statusTransaction?: StatusViewRow | null;
    /** Routes marked `railsRead`: every rail, read in parallel with the key. */
    railsRead?: Promise<RailsByCode>;
  }
  interface FastifyContextConfig {
    /** Marks a status-read route: the hook reads the key and the `:reference` transaction of this direction together. */
    statusRead?: 'PAY_IN' | 'PAY_OUT';
    /** Marks a route that resolves a rail (charge, transfer): the hook starts reading the rails with the key. */
    railsRead?: boolean;
  }
}

/**
 * Puts the API-key check in front of every route registered in `scope` from now on: an
 * `onRequest` hook made for each route when it is registered (Fastify's `onRoute`), from what its
 * `config` asks (`statusRead`, `railsRead`), rather than one hook that reads the route's options
 * on every request: Fastify builds that options object anew on each read (issue 14: a few per cent
 * of a status read's CPU). Runs after the application's own `onRequest` hooks, as a scope hook
 * would.
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
 * UNAUTHORIZED. Callback-style rather than async: an async hook costs promises and microtasks on
 * every request, a measurable part of a status read (issue 14, docs/benchmarks.md).
 */
function apiKeyHook(services: Services, config: FastifyContextConfig) {
  const direction = config.statusRead;
  const railsRead = config.railsRead === true;
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const header = request.headers['x-api-key'];
    const rawKey = typeof header === 'string' ? header.trim() : undefined;
    // The request's logger (its lines carry the request id), not the whole `request.services`,
    // whose copy is a measurable part of a status read (issue 14).
    const lookupServices = { db: services.db, clock: services.clock, log: request.log as unknown as Logger };
    if (direction) {
      const reference = (request.params as { reference?: unknown }).reference;
      const lookup = authenticateApiKeyWithTransaction(lookupServices, rawKey, { reference: typeof reference === 'string' ? reference : '', direction });
      continueWith(lookup, done, (found) => {
        request.apiKey = found.auth;
        request.statusTransaction = found.transaction;
      });
      return;
    }
    if (railsRead) {
      // Started before the key lookup resolves, so both statements are sent in the same turn;
      // a refused key leaves this read unused (its failure, if any, is nobody's error).
      const read = readAllRails(services.db);
      read.catch(() => undefined);
      request.railsRead = read;
    }
    continueWith(authenticateApiKey(lookupServices, rawKey), done, (auth) => {
      request.apiKey = auth;
    });
  };
}

/**
 * Ends the hook once `lookup` settles: UNAUTHORIZED when it found nothing (null), its error when
 * it failed, else after `accept` has recorded what it found on the request.
 */
function continueWith<T>(lookup: Promise<T | null>, done: (error?: Error) => void, accept: (found: T) => void): void {
  lookup.then((found) => {
    if (found === null) return done(new ApiError('UNAUTHORIZED'));
    accept(found);
    done();
  }, done);
}

/** The authenticated key of a request that passed `apiKeyHook`. */
export function requireApiKey(request: FastifyRequest): ApiKeyAuth {
  if (!request.apiKey) throw new ApiError('UNAUTHORIZED');
  return request.apiKey;
}

/** The transaction of a status-read route (read with the key); throws TRANSACTION_NOT_FOUND when there is none. */
export function requireStatusTransaction(request: FastifyRequest): StatusViewRow {
  if (!request.statusTransaction) throw new ApiError('TRANSACTION_NOT_FOUND');
  return request.statusTransaction;
}
