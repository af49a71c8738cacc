/**
 * Turns every error into the envelope (spec "Errors"): ApiError by its code; zod validation
 * failures into VALIDATION_ERROR with every failing field; body parser failures into
 * MALFORMED_JSON / PAYLOAD_TOO_LARGE / UNSUPPORTED_MEDIA_TYPE; anything else into a 500 without
 * internals (the stack goes to the log, never to the client).
 */
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

/** PostgreSQL codes for text the database cannot store (e.g. U+0000): the client's input, not our fault. */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

function databaseCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.cause?.code === 'string' ? e.cause.code : e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Installs the error and not-found handlers on `app`. */
export function installErrorHandlers(app: FastifyInstance, clock: Clock): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
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
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, clock, 'INTERNAL_SERVER_ERROR');
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, clock, 'RESOURCE_NOT_FOUND'));
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
