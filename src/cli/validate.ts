/**
 * Parsers of the `kolo` command's arguments, given to commander (`.argParser`): each returns the
 * value in its stored form (upper-cased codes, integers) or throws commander's
 * `InvalidArgumentError` with a message naming what is expected, which the command prints with
 * the option and exits 2. The limits are the dashboard API's for the same fields, so a value the
 * CLI accepts is one the API would accept. Only light modules here: they load on every call.
 */
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { z } from 'zod';
import { REFERENCE_PATTERN, UUID_PATTERN } from '../domain/ids.ts';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../domain/transaction-state.ts';

const emailSchema = z.email().max(255);

/** Rejects text with U+0000 (PostgreSQL text cannot hold it) and blank text; trims. */
function text(value: string, min: number, max: number, what: string): string {
  const trimmed = value.trim();
  if (trimmed.includes('\u0000')) throw new InvalidArgumentError(`${what} must not contain U+0000.`);
  if (trimmed.length < min || trimmed.length > max) throw new InvalidArgumentError(`${what} must be ${min} to ${max} characters.`);
  return trimmed;
}

/** A merchant's or staff member's full name: 1 to 255 characters. */
export function personName(value: string): string {
  return text(value, 1, 255, 'a name');
}

/** An application's name: 1 to 100 characters. */
export function applicationName(value: string): string {
  return text(value, 1, 100, 'an application name');
}

/** An API key's name: 2 to 100 characters (as the dashboard's). */
export function keyName(value: string): string {
  return text(value, 2, 100, 'a key name');
}

/** An e-mail address (at most 255 characters). */
export function email(value: string): string {
  const trimmed = value.trim();
  if (!emailSchema.safeParse(trimmed).success) throw new InvalidArgumentError('expected an e-mail address such as awa@example.cm.');
  return trimmed;
}

/** A phone number as the dashboard takes it: digits and spaces, 6 to 20, an optional leading `+`. */
export function phone(value: string): string {
  const trimmed = value.trim();
  if (!/^\+?[0-9 ]{6,20}$/.test(trimmed)) throw new InvalidArgumentError('expected a phone number such as +237677000001.');
  return trimmed;
}

/** An ISO 3166-1 alpha-2 country code, upper-cased (`cm` → `CM`). */
export function country(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) throw new InvalidArgumentError('expected an ISO 3166 alpha-2 country code such as CM.');
  return code;
}

/**
 * An ISO 4217 currency code, upper-cased (`xaf` → `XAF`): one the runtime's ICU data knows
 * (`Intl.supportedValuesOf('currency')`, the ISO 4217 list), so a typo such as `XFA` is refused.
 */
export function currency(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code) || !Intl.supportedValuesOf('currency').includes(code)) {
    throw new InvalidArgumentError('expected an ISO 4217 currency code such as XAF, XOF or KES.');
  }
  return code;
}

/** A row id: a canonical UUID (8-4-4-4-12 hexadecimal). */
export function uuid(value: string): string {
  const trimmed = value.trim();
  if (!UUID_PATTERN.test(trimmed)) throw new InvalidArgumentError('expected an id (a UUID such as 0b6f…-…-…-…-…, 36 characters).');
  return trimmed.toLowerCase();
}

/** A merchant: its id (UUID) or its e-mail address. */
export function merchantRef(value: string): string {
  const trimmed = value.trim();
  if (UUID_PATTERN.test(trimmed)) return trimmed.toLowerCase();
  if (emailSchema.safeParse(trimmed).success) return trimmed;
  throw new InvalidArgumentError("expected the merchant's id (a UUID) or e-mail address.");
}

/** A transaction: its reference (`PI-`, `PO-` or `FC-` + 12 hex, any case) or its id (UUID). */
export function transactionRef(value: string): string {
  const trimmed = value.trim();
  if (UUID_PATTERN.test(trimmed)) return trimmed.toLowerCase();
  if (REFERENCE_PATTERN.test(trimmed.toUpperCase())) return trimmed.toUpperCase();
  throw new InvalidArgumentError('expected a transaction reference (PI-…, PO-… or FC-… and 12 hexadecimal digits) or id (UUID).');
}

/** `TEST` or `LIVE`, in any case. */
export function environment(value: string): 'TEST' | 'LIVE' {
  const upper = value.trim().toUpperCase();
  if (upper !== 'TEST' && upper !== 'LIVE') throw new InvalidArgumentError('expected TEST or LIVE.');
  return upper;
}

/** A staff role: `ADMIN` or `SUPPORT`, in any case. */
export function staffRole(value: string): 'ADMIN' | 'SUPPORT' {
  const upper = value.trim().toUpperCase();
  if (upper !== 'ADMIN' && upper !== 'SUPPORT') throw new InvalidArgumentError('expected ADMIN or SUPPORT.');
  return upper;
}

/** A transaction status (PENDING, SUCCESS, FAILED, CANCELLED, REFUNDED), in any case. */
export function transactionStatus(value: string): TransactionStatus {
  const upper = value.trim().toUpperCase();
  if (!(TRANSACTION_STATUSES as readonly string[]).includes(upper)) throw new InvalidArgumentError(`expected one of ${TRANSACTION_STATUSES.join(', ')}.`);
  return upper as TransactionStatus;
}

/** A parser of an integer from `min` to `max` inclusive (decimal digits only: no `1e3`, no `0x10`). */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const trimmed = value.trim();
    const n = Number(trimmed);
    if (!/^-?[0-9]+$/.test(trimmed) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** A TCP port: 0 (any free port) to 65535. */
export const port = integer(0, 65_535);

/** An amount in the currency's base unit: a positive integer (at most 2^53 − 1). */
export function amount(value: string): number {
  const trimmed = value.trim();
  const n = Number(trimmed);
  if (!/^[0-9]+$/.test(trimmed) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive integer in the currency base unit (e.g. 5000 for 5 000 XAF).');
  }
  return n;
}

/** An absolute http(s) URL of at most 500 characters (as the dashboard's URL fields). */
export function httpUrl(value: string): string {
  const trimmed = value.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(trimmed);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || trimmed.length > 500 || /\s/.test(trimmed)) {
    throw new InvalidArgumentError('expected an absolute http(s) URL of at most 500 characters.');
  }
  return trimmed;
}

/** A rail code as the registry names it (`WAVE_SN`, `MTN_MOMO_CM`): capitals, digits, underscores. */
export function railCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z][A-Z0-9_]{1,39}$/.test(code)) throw new InvalidArgumentError('expected a rail code such as WAVE_SN or MTN_MOMO_CM.');
  return code;
}

/** An ISO 8601 instant with its offset (`2026-11-19T00:00:00Z`), as a Date. */
export function instant(value: string): Date {
  if (!z.iso.datetime({ offset: true }).safeParse(value.trim()).success) throw new InvalidArgumentError('expected an ISO 8601 date and time with its offset, e.g. 2026-11-19T00:00:00Z.');
  return new Date(value.trim());
}

/** A file path: not empty. */
export function filePath(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a file path.');
  return value;
}

/** A host name or IP address to listen on: letters, digits, dots, dashes, colons (IPv6). */
export function host(value: string): string {
  const trimmed = value.trim();
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(trimmed)) throw new InvalidArgumentError('expected a host name or IP address such as 127.0.0.1.');
  return trimmed;
}

/** An API key: `sk_test_` or `sk_live_` and 128 lowercase hexadecimal digits. */
export function apiKey(value: string): string {
  const trimmed = value.trim();
  if (!/^sk_(test|live)_[0-9a-f]{128}$/.test(trimmed)) throw new InvalidArgumentError('expected an API key: sk_test_ or sk_live_ and 128 hexadecimal digits.');
  return trimmed;
}

/** A webhook signing secret: `whsec_` and 64 lowercase hexadecimal digits (as Kolo's). */
export function webhookSecret(value: string): string {
  const trimmed = value.trim();
  if (!/^whsec_[0-9a-f]{64}$/.test(trimmed)) throw new InvalidArgumentError('expected a signing secret: whsec_ and 64 hexadecimal digits.');
  return trimmed;
}
