/**
 * The id of the HTTP request being served, carried through every await of that request with
 * AsyncLocalStorage (the pattern of @fastify/request-context), so that every log line written
 * while serving it — by the route, a use case or a connector — carries the same `requestId`
 * (logger mixin in `bootstrap.ts`), and the audit log records it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What is known of the request being served. */
export interface RequestContext {
  requestId: string;
}

/** The store; entered by the HTTP layer's first hook for the whole request. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, or undefined outside a request (background jobs). */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** An incoming `X-Request-Id` we keep: 1–128 characters of letters, digits and `._:-`. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when of sane form, else a new UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
