/**
 * CSRF protection of the checkout page's form posts: a signed double-submit token (OWASP CSRF
 * cheat sheet). The browser holds a random nonce in a `SameSite=Strict`, `HttpOnly` cookie; each
 * form carries HMAC-SHA256(secret, session token + nonce) in a hidden field. A post is accepted
 * only when the field matches the cookie it came with, for this session: another site can
 * neither read the cookie nor compute the field.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { localSecretHex } from '../local-secret.ts';

const secrets = new WeakMap<Config, string>();

/**
 * The HMAC key of the form tokens: `CHECKOUT_CSRF_SECRET`, else generated once into
 * `<DATA_DIR>/checkout-csrf-secret` (random per process with `memory://`); one per configuration.
 */
export function checkoutCsrfSecret(config: Config): string {
  let secret = secrets.get(config);
  if (secret === undefined) {
    secret = config.checkoutCsrfSecret ?? localSecretHex(config.dataDir, 'checkout-csrf-secret', 32);
    secrets.set(config, secret);
  }
  return secret;
}

/** Name of the cookie holding the browser's nonce. */
export const CSRF_COOKIE = 'kolo_checkout';
/** Name of the hidden form field holding the signed token. */
export const CSRF_FIELD = '_csrf';

const NONCE_PATTERN = /^[0-9a-f]{32}$/;

/** A fresh browser nonce (128 random bits, hex). */
export function newCsrfNonce(): string {
  return randomBytes(16).toString('hex');
}

/** True when `value` looks like a nonce we issued (anything else is replaced). */
export function isCsrfNonce(value: string | undefined): value is string {
  return value !== undefined && NONCE_PATTERN.test(value);
}

/** The form token binding `sessionToken` (the checkout's `cs_…`) to the browser's `nonce`. */
export function csrfToken(secret: string, sessionToken: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${sessionToken}.${nonce}`).digest('base64url');
}

/** Constant-time check of a posted form token against the cookie's nonce. */
export function isValidCsrfToken(secret: string, sessionToken: string, nonce: string | undefined, posted: unknown): boolean {
  if (!isCsrfNonce(nonce) || typeof posted !== 'string' || posted.length > 100) return false;
  const expected = Buffer.from(csrfToken(secret, sessionToken, nonce));
  const given = Buffer.from(posted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
