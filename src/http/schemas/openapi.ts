/**
 * OpenAPI building blocks of the route schemas: the security requirements, success responses
 * with their description and example, and error responses listing the codes a route can answer
 * (by status, from the closed list of domain/errors.ts). The metadata only feeds `/openapi.json`
 * and `/docs`: what a route accepts and answers at run time is the zod schema under it.
 */
import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../../domain/errors.ts';
import { envelopeOf } from '../envelope.ts';

/** The merchant API's credential: the application's key in `X-API-KEY`. */
export const apiKeySecurity = [{ apiKey: [] }];
/** The dashboard's credential: `Authorization: Bearer <access token>` from the login. */
export const bearerSecurity = [{ bearerAuth: [] }];
/** A route anyone may call (health, operator callbacks, sign-up and login, public collection). */
export const publicSecurity: Array<Record<string, string[]>> = [];

/** The `timestamp` of every example envelope (server local time, no zone, as the API writes it). */
export const EXAMPLE_TIMESTAMP = '2026-11-20T10:00:00.000';

/** Codes of any route that takes a JSON body: a bad field, a body that is not JSON, too large, or not JSON at all. */
export const BODY_ERRORS = ['VALIDATION_ERROR', 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const satisfies readonly ErrorCode[];
/** Codes of the `X-API-KEY` check: one generic 401 for a missing, unknown, revoked or suspended key; 403 for a key used outside its allow-list or scopes. */
export const API_KEY_ERRORS = ['UNAUTHORIZED', 'API_KEY_IP_DENIED', 'API_KEY_SCOPE_DENIED'] as const satisfies readonly ErrorCode[];
/** Codes of the bearer check (http/dashboard-auth.ts, dashboard/tokens.ts). */
export const BEARER_ERRORS = ['UNAUTHORIZED', 'INVALID_TOKEN', 'INVALID_TOKEN_TYPE', 'TOKEN_EXPIRED', 'ACCOUNT_NOT_ACTIVE'] as const satisfies readonly ErrorCode[];

/** The errors of a staff route: the bearer's, and 403 ACCESS_DENIED to an account without the role. */
export const STAFF_ERRORS = [...BEARER_ERRORS, 'ACCESS_DENIED'] as const satisfies readonly ErrorCode[];

/**
 * A success response: the envelope around `data`, with the response's `description` and one
 * example (`message` as the route writes it, `data` of the schema's output type; a Date is
 * written as its ISO 8601 string, as the serializer writes it).
 */
export function success<T extends z.ZodType>(data: T, description: string, example: { message: string; data: z.output<T> }) {
  return envelopeOf(data).meta({
    description,
    examples: [{ success: true, code: 'SUCCESS', message: example.message, data: example.data, timestamp: EXAMPLE_TIMESTAMP }],
  });
}

/** A 204 answer: no body at all. */
export const noContent = z.undefined().meta({ description: 'Fait ; aucun contenu (204, sans corps).' });

/** A field of VALIDATION_ERROR's example `data`, per the French messages of validation-messages.ts. */
const VALIDATION_EXAMPLE = { amount: 'doit être supérieur ou égal à 1' };

/** `errorResponses`'s answers by their codes, space-separated in the order given. */
const errorResponsesByCodes = new Map<string, Record<number, z.ZodType>>();

/**
 * The error responses of a route that can answer `codes` (plus INTERNAL_SERVER_ERROR, which any
 * route can): one response per HTTP status, whose description lists each code with its French
 * message and whose schema is the error envelope with `code` documented as the enum of that
 * status's codes. At run time `code` stays a plain string: an answer is never refused for its code.
 */
export function errorResponses(...codes: ErrorCode[]) {
  // One set of schemas per list of codes, shared by the routes that answer the same codes: they
  // are never changed once built.
  const key = codes.join(' ');
  const known = errorResponsesByCodes.get(key);
  if (known) return known;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...codes, 'INTERNAL_SERVER_ERROR'])) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const first = list[0]!;
    responses[status] = z
      .object({
        success: z.literal(false),
        code: z.string().meta({ enum: list }),
        message: z.string().describe('En français ; le texte par défaut du code, ou un texte plus précis'),
        data: z.record(z.string(), z.string()).nullable().describe('null, sauf VALIDATION_ERROR et INVALID_PARAMETER : champ → message'),
        timestamp: z.string(),
      })
      .meta({
        description: list.map((code) => `\`${code}\` : ${ERRORS[code].message}`).join('\n\n'),
        examples: [
          {
            success: false,
            code: first,
            message: ERRORS[first].message,
            data: first === 'VALIDATION_ERROR' ? VALIDATION_EXAMPLE : null,
            timestamp: EXAMPLE_TIMESTAMP,
          },
        ],
      });
  }
  errorResponsesByCodes.set(key, responses);
  return responses;
}

/**
 * A response field holding one of `values`, documented as that enum. At run time it is checked as
 * a string only: the value comes from a database column typed text, which zod must not turn into a
 * 500 if a later version adds a value.
 */
export function documentedEnum(values: readonly string[]) {
  return z.string().meta({ enum: [...values] });
}
