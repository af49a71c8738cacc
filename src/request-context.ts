/**
 * The id of an HTTP request: returned in `X-Request-Id`, carried by the request's logger
 * (`request.log`, so on every line written while serving it, by the route or by a use case through
 * `request.services.log`) and recorded in the audit log (`request.services.requestId`). Handed down
 * explicitly rather than through AsyncLocalStorage, whose hooks cost every promise of the process
 * on Node 20.
 */
import { randomFillSync } from 'node:crypto';

/** A logger serving one request: its lines carry `requestId` (the mixin of `createLogger`). */
export type RequestLogger<L extends object> = L & { readonly requestId: string };

/**
 * `logger` for the request `requestId`: an object whose prototype is `logger`, so it logs exactly
 * as `logger` does (and its pino children inherit the id), and whose own `requestId` the mixin of
 * `createLogger` (bootstrap.ts) adds to every line — pino hands the mixin the logger that writes.
 * Far cheaper than `logger.child({ requestId })`, whose bindings pass through the redaction.
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

/** The request's id: the caller's `X-Request-Id` when of sane form, else a new UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : newRequestId();
}

// Random bytes for 256 ids at a time, and the 36 characters of the id being written.
const ID_BATCH = 256;
const randomPool = Buffer.alloc(16 * ID_BATCH);
let nextInPool = ID_BATCH;
const idText = Buffer.alloc(36);
/** ASCII codes of the 16 hexadecimal digits. */
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random UUID (version 4, RFC 9562 section 5.4: 122 random bits from `crypto.randomFillSync`, the
 * version and variant bits set), as `crypto.randomUUID()` gives, but as one flat string.
 * `randomUUID()` returns a string built by concatenation, which V8 keeps as a tree of pieces; the
 * first thing Node's HTTP layer does with a header value is a regular expression test
 * (`checkInvalidHeaderChar`), and on such a string V8 leaves its compiled expression for the
 * runtime, which flattens the string first: about 1.5 % of a status read's CPU. These characters
 * are written into a buffer and read back as one string.
 */
export function newRequestId(): string {
  if (nextInPool === ID_BATCH) {
    randomFillSync(randomPool);
    nextInPool = 0;
  }
  const at = 16 * nextInPool++;
  randomPool[at + 6] = (randomPool[at + 6]! & 0x0f) | 0x40;
  randomPool[at + 8] = (randomPool[at + 8]! & 0x3f) | 0x80;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) idText[out++] = 0x2d; // '-'
    const byte = randomPool[at + i]!;
    idText[out++] = HEX_DIGITS[byte >> 4]!;
    idText[out++] = HEX_DIGITS[byte & 0x0f]!;
  }
  return idText.toString('latin1');
}
