/**
 * Asynchronous balance queries (Daraja's Account Balance): the operator accepts the query and
 * later POSTs the balance to a result URL, `<CALLBACK_BASE_URL>/api/v1/callbacks/balance/<token>`.
 * Operators sign nothing, so the token is the secret: it names the rail and the query's time,
 * with a random nonce, all authenticated by an HMAC-SHA256 under the dashboard's signing secret
 * (`JWT_SECRET`, domain-separated), and is accepted for `BALANCE_RESULT_MAX_AGE_MS` after the
 * query. It is all hex: Safaricom refuses callback URLs containing words such as "mpesa" or
 * "query". What a result does: `balance-result.ts`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { jwtSecret } from '../dashboard/jwt-secret.ts';
import type { Services } from '../services.ts';

/** How long after its query a balance result is accepted: 1 hour (Daraja's results come in seconds to minutes). */
export const BALANCE_RESULT_MAX_AGE_MS = 60 * 60 * 1000;

/** Bytes of randomness in a balance-result token. */
const NONCE_BYTES = 8;

/** Hex characters of the HMAC kept in a token (128 bits): the whole token must fit the router's 100-character path parameter. */
const MAC_HEX_CHARS = 32;

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

function macOf(services: Pick<Services, 'config'>, railCode: string, issuedAtMs: number, nonce: string): string {
  return createHmac('sha256', jwtSecret(services.config)).update(`kolo-balance-result|${railCode}|${issuedAtMs}|${nonce}`).digest('hex').slice(0, MAC_HEX_CHARS);
}

/**
 * The result URL of a balance query of `railCode` sent now:
 * `<CALLBACK_BASE_URL>/api/v1/callbacks/balance/<rail hex>.<time hex>.<nonce>.<mac>`.
 */
export function balanceResultUrl(services: Pick<Services, 'config' | 'clock' | 'ids'>, railCode: string): string {
  const issuedAtMs = services.clock.now().getTime();
  const nonce = services.ids.hex(NONCE_BYTES);
  const token = [hex(railCode), issuedAtMs.toString(16), nonce, macOf(services, railCode, issuedAtMs, nonce)].join('.');
  return `${services.config.callbackBaseUrl}/api/v1/callbacks/balance/${token}`;
}

/** The rail and query time `token` names, or null when it is malformed, forged or older than `BALANCE_RESULT_MAX_AGE_MS`. */
export function readBalanceToken(services: Pick<Services, 'config' | 'clock'>, token: string): { railCode: string; issuedAt: Date } | null {
  const parts = token.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9a-f]+$/.test(p))) return null;
  const [railHex, timeHex, nonce, mac] = parts as [string, string, string, string];
  const railCode = Buffer.from(railHex, 'hex').toString('utf8');
  const issuedAtMs = Number.parseInt(timeHex, 16);
  if (!Number.isSafeInteger(issuedAtMs)) return null;
  const expected = Buffer.from(macOf(services, railCode, issuedAtMs, nonce));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const age = services.clock.now().getTime() - issuedAtMs;
  if (age < 0 || age > BALANCE_RESULT_MAX_AGE_MS) return null;
  return { railCode, issuedAt: new Date(issuedAtMs) };
}

