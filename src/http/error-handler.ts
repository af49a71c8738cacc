/**
 * Turns every error into the error envelope: ApiError by its code; zod validation failures into
 * VALIDATION_ERROR with every failing field; body parser failures into MALFORMED_JSON /
 * PAYLOAD_TOO_LARGE / UNSUPPORTED_MEDIA_TYPE; anything else into a 500 without internals (the stack
 * goes to the log, never to the client).
 */
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, ERRORS, type ErrorCode } from '../domain/errors.ts';
import type { Clock } from '../domain/clock.ts';
import { fail } from './envelope.ts';
import { fieldName, frenchMessage, type ValidationItem } from './validation-messages.ts';

const PARSER_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

/** Sends the error envelope for `code`. */
export function sendError(reply: FastifyReply, clock: Clock, code: ErrorCode, message?: string, data: Record<string, string> | null = null) {
  return reply
    .code(ERRORS[code].status)
    .type('application/json; charset=utf-8')
    .send(fail(code, message ?? ERRORS[code].message, data, clock.now()));
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or error
 * handler runs (a path that is not valid percent-encoding, a path parameter over the router's
 * length limit) get the envelope too, as INVALID_PARAMETER.
 */
export function frameworkErrorHandler(clock: Clock) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    request.log.info({ code: error.code }, 'unroutable url');
    return sendError(reply, clock, 'INVALID_PARAMETER');
  };
}

/** Reason phrases of the statuses a client error can get (the raw socket needs them). */
const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Fastify's `clientErrorHandler` option: requests Node's HTTP parser rejects before any route
 * runs (a NUL in a header, raw non-ASCII in the path, a bad Content-Length, an unknown method,
 * headers over Node's 16 KiB limit) get the envelope too, written on the raw socket, then the
 * connection is closed (the parser cannot resync): 431 REQUEST_HEADER_FIELDS_TOO_LARGE for
 * oversized headers, 408 REQUEST_TIMEOUT for a request not received in time, else 400
 * BAD_REQUEST. Errors of a connection already gone are not answered.
 */
export function clientErrorHandler(clock: Clock, log: { info(obj: object, msg: string): void }) {
  return (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'REQUEST_HEADER_FIELDS_TOO_LARGE' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST';
    const status = ERRORS[code].status;
    const body = JSON.stringify(fail(code, ERRORS[code].message, null, clock.now()));
    log.info({ code: error.code, status }, 'request rejected by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}

/** PostgreSQL codes for text the database cannot store (e.g. U+0000): the client's input, not our fault. */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** PostgreSQL's invalid_text_representation (e.g. `'----'::uuid`). */
const INVALID_TEXT_REPRESENTATION = '22P02';

function databaseCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.cause?.code === 'string' ? e.cause.code : e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Installs the error and not-found handlers on `app`. */
export function installErrorHandlers(app: FastifyInstance, clock: Clock): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => answerError(error, request, reply, clock));
  app.setNotFoundHandler((_request, reply) => sendError(reply, clock, 'RESOURCE_NOT_FOUND'));
}

/** The error envelope of `error` (see the module's comment). */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, clock: Clock) {
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return sendError(reply, clock, error.code, error.message, error.data);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = error.validationContext as 'body' | 'querystring' | 'params' | 'headers' | undefined;
    if (context === 'params' || context === 'querystring') {
      return sendError(reply, clock, 'INVALID_PARAMETER', undefined, fieldsOf(error.validation, request[contextKey(context)]));
    }
    return sendError(reply, clock, 'VALIDATION_ERROR', undefined, fieldsOf(error.validation, request.body));
  }
  const parserCode = error.code ? PARSER_ERRORS[error.code] : undefined;
  if (parserCode) return sendError(reply, clock, parserCode);
  if (error.statusCode === 429) {
    return sendError(reply, clock, 'TOO_MANY_REQUESTS');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    request.log.info({ err: error }, 'client error');
    return sendError(reply, clock, error.statusCode === 404 ? 'RESOURCE_NOT_FOUND' : 'VALIDATION_ERROR', undefined, null);
  }
  if (UNSTORABLE_TEXT_CODES.has(databaseCode(error) ?? '')) {
    // Safety net behind the schemas' own checks: never a 500 for characters a client sent.
    request.log.info({ err: error }, 'unstorable text in request');
    return sendError(reply, clock, 'VALIDATION_ERROR', undefined, { body: 'contient un caractère non autorisé' });
  }
  if (databaseCode(error) === INVALID_TEXT_REPRESENTATION) {
    // Safety net behind the strict param schemas: a value the database cannot even parse
    // (a malformed uuid, a number out of format) came from the client.
    request.log.info({ err: error }, 'value of the wrong form reached the database');
    return sendError(reply, clock, 'INVALID_PARAMETER');
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendError(reply, clock, 'INTERNAL_SERVER_ERROR');
}

function contextKey(context: 'params' | 'querystring'): 'params' | 'query' {
  return context === 'params' ? 'params' : 'query';
}

function fieldsOf(items: unknown, source: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const item of items as ValidationItem[]) {
    const name = fieldName(item);
    // The first failing rule of a field is the one reported, as Bean Validation clients expect one message.
    fields[name] ??= frenchMessage(item, source);
  }
  return fields;
}
