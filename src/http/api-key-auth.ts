/**
 * `X-API-KEY` authentication for the merchant API (spec "Authentication" 1, 7): an `onRequest`
 * hook, so it runs before body validation; any missing, malformed, unknown or revoked key gets
 * the same 401 UNAUTHORIZED.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { authenticateApiKey, authenticateApiKeyWithTransaction, type ApiKeyAuth } from '../accounts/api-keys.ts';
import type { StatusViewRow } from '../payments/transaction-view.ts';
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
 * Builds the `onRequest` hook that authenticates the API key, or fails the request with
 * UNAUTHORIZED. Callback-style rather than async: an async hook costs promises and microtasks on
 * every request, a measurable part of a status read (issue 14, docs/benchmarks.md).
 */
export function apiKeyHook(services: Services) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const header = request.headers['x-api-key'];
    const rawKey = typeof header === 'string' ? header.trim() : undefined;
    const direction = request.routeOptions.config.statusRead;
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
    if (request.routeOptions.config.railsRead) {
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
