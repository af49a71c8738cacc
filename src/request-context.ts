/**
 * The id of an HTTP request: returned in `X-Request-Id`, carried by the request's logger
 * (`request.log`, so on every line written while serving it, by the route or by a use case through
 * `request.services.log`) and recorded in the audit log (`request.services.requestId`). Handed down
 * explicitly, through `request.services`, rather than through AsyncLocalStorage.
 */
import { randomUUID } from 'node:crypto';

/** A logger serving one request: its lines carry `requestId` (the mixin of `createLogger`). */
export type RequestLogger<L extends object> = L & { readonly requestId: string };

/**
 * `logger` for the request `requestId`: an object whose prototype is `logger`, so it logs exactly
 * as `logger` does (and its pino children inherit the id), and whose own `requestId` the mixin of
 * `createLogger` (bootstrap.ts) adds to every line — pino hands the mixin the logger that writes.
 * No pino child is made: the id is one own property.
 */
export function requestLogger<L extends object>(logger: L, requestId: string): RequestLogger<L> {
  const scoped = Object.create(logger) as { requestId: string };
  scoped.requestId = requestId;
  return scoped as RequestLogger<L>;
}

/** The `requestId` a logger carries (`requestLogger`), or undefined outside a request. */
export function requestIdOf(logger: object): string | undefined {
  return (logger as { requestId?: unknown }).requestId as string | undefined;
}

/** An incoming `X-Request-Id` we keep: 1–128 characters of letters, digits and `._:-`. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when of sane form, else a new random (version 4) UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
