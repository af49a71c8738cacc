/**
 * Building blocks of request schemas. Optional fields accept an explicit `null` as "absent"
 * (existing integrations send `null` for optional fields). `fr(message)` attaches a French message
 * to a custom rule; the error handler shows it as is.
 */
import { z } from 'zod';
import { UUID_PATTERN } from '../../domain/ids.ts';

const customMessages = new Set<string>();

/** A zod `error` option carrying a French message that the error handler shows verbatim. */
export function fr(message: string) {
  customMessages.add(message);
  return { error: message };
}

/** True when `message` was registered through `fr`. */
export function isCustomMessage(message: string): boolean {
  return customMessages.has(message);
}

/**
 * PostgreSQL text cannot hold U+0000, so a string carrying it would fail at insert time (a 500);
 * every text field refuses it up front as a validation error instead.
 */
const NO_NUL = /^[^\u0000]*$/;
const NO_NUL_MESSAGE = fr('ne doit pas contenir le caractère nul (U+0000)');

/** An optional string of at most `max` characters; null means absent. */
export function optionalText(max: number) {
  return z
    .string()
    .max(max)
    .regex(NO_NUL, NO_NUL_MESSAGE)
    .nullish()
    .transform((v) => v ?? undefined);
}

/** A required, non-blank string of at most `max` characters. */
export function requiredText(max: number) {
  return z.string().trim().min(1).max(max).regex(NO_NUL, NO_NUL_MESSAGE);
}

/** A row id in a path (`{id}`, `{appId}`…): a canonical UUID, else 400 INVALID_PARAMETER. */
export const uuidParam = z
  .string()
  .regex(UUID_PATTERN, fr('doit être un identifiant UUID (8-4-4-4-12 caractères hexadécimaux)'))
  .describe('Identifiant UUID');

/** An integer amount in the currency's base unit, at least 1. */
export const amountSchema = z.number().int().min(1).describe('Entier, en unité de base de la devise, minimum 1');

/** An ISO 4217 currency code. */
export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, fr('doit être un code de devise ISO 4217 en majuscules (ex. XAF)'))
  .describe('Code ISO 4217');

/**
 * A payer's e-mail as SharePay takes it: any string of at most 255 characters, not checked for
 * e-mail form (existing clients send placeholders); null or the empty string `""` mean absent.
 */
export const lenientEmail = z
  .string()
  .max(255)
  .regex(NO_NUL, NO_NUL_MESSAGE)
  .nullish()
  .transform((v) => (v === '' || v === null || v === undefined ? undefined : v));

/** An optional e-mail of at most 255 characters; null or `""` mean absent. */
export const optionalEmail = z
  .string()
  .max(255)
  .regex(NO_NUL, NO_NUL_MESSAGE)
  .email()
  .or(z.literal(''))
  .nullish()
  .transform((v) => (v === '' || v === null || v === undefined ? undefined : v));

/** An optional absolute http(s) URL of at most `max` characters; null means absent. */
export function optionalHttpUrl(max: number) {
  return z
    .string()
    .max(max)
    .regex(NO_NUL, NO_NUL_MESSAGE)
    .regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue'))
    .nullish()
    .transform((v) => v ?? undefined);
}
