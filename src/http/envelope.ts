/**
 * The response envelope of every JSON answer:
 * `{success, code, message, data, timestamp}`, `timestamp` in server local time without zone.
 */
import fastJsonStringify from 'fast-json-stringify';
import { z } from 'zod';
import { formatLocalTimestamp } from '../domain/clock.ts';
import type { ErrorCode } from '../domain/errors.ts';

/** A success envelope around `data` with a French `message`. */
export function ok<T>(data: T, message: string, now: Date) {
  return { success: true as const, code: 'SUCCESS' as const, message, data, timestamp: formatLocalTimestamp(now) };
}

/** An error envelope; `data` is null except for VALIDATION_ERROR's field map. */
export function fail(code: ErrorCode, message: string, data: Record<string, string> | null, now: Date) {
  return { success: false as const, code, message, data, timestamp: formatLocalTimestamp(now) };
}

/** Zod schema of a success envelope around `data`, for route response schemas and OpenAPI. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.literal(true),
    code: z.literal('SUCCESS'),
    message: z.string(),
    data,
    timestamp: z.string().describe('ISO 8601, heure locale du serveur, sans fuseau'),
  });
}

/** Zod schema of an error envelope, for OpenAPI. */
export const errorEnvelope = z.object({
  success: z.literal(false),
  code: z.string(),
  message: z.string(),
  data: z.record(z.string(), z.string()).nullable(),
  timestamp: z.string(),
});

/**
 * The response serializer of the hottest merchant routes (status reads, charges and transfers), set
 * as their `serializerCompiler`. A success body (2xx) is written by fast-json-stringify (Fastify's
 * own serializer) compiled from the JSON Schema of the route's zod response schema
 * (`z.toJSONSchema`, as OpenAPI shows it): it writes each field by its declared type, in the
 * schema's order, and zod does not re-encode the body at run time. Error bodies (`fail`, rare)
 * are `JSON.stringify`'d.
 *
 * fast-json-stringify writes a `const` field as the schema's constant, whatever the value, and a
 * null in a field not declared nullable as 0 or "": so the schema it compiles (`writtenAsIs`)
 * declares each constant as a one-value `enum` and every scalar field nullable. Each value is then
 * written as it is, and a body that strays from its schema still shows it:
 * test/merchant-api/response-schemas.test.ts parses every body these routes answer, success and
 * error, with the route's zod schema.
 */
export function compiledJsonSerializer({ schema, httpStatus }: { schema: unknown; httpStatus?: string }): (data: unknown) => string {
  if (!httpStatus?.startsWith('2')) return (data) => JSON.stringify(data);
  const jsonSchema = z.toJSONSchema(schema as z.ZodType, { io: 'output', override: ({ jsonSchema: node }) => writtenAsIs(node) });
  return fastJsonStringify(jsonSchema as fastJsonStringify.AnySchema);
}

/** A JSON Schema node (of `z.toJSONSchema`) rewritten for `compiledJsonSerializer`: `const` as a one-value `enum`, a scalar type nullable. */
function writtenAsIs(node: Record<string, unknown>): void {
  if ('const' in node) {
    node.enum = [node.const];
    delete node.const;
  }
  if (node.type === 'string' || node.type === 'number' || node.type === 'integer' || node.type === 'boolean') node.type = [node.type, 'null'];
}
