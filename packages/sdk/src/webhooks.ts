/**
 * Verification of the webhooks Kolo sends, and a helper that signs test deliveries.
 *
 * Kolo signs every delivery twice, with the application's webhook secret (`whsec_…`):
 *
 * - Standard Webhooks (https://www.standardwebhooks.com, "Signature scheme"): `webhook-id`,
 *   `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 *   `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` where the key is the text after
 *   `whsec_` base64-decoded. During a secret rotation the list holds one signature per valid
 *   secret. The timestamp is signed, so a tolerance on it stops replays of old deliveries.
 * - `X-Sharepay-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, body)>`, keyed with the whole
 *   secret string (`whsec_` included) as UTF-8: the scheme of SharePay, kept for existing
 *   receivers. Only the body is signed: `t` is not covered by the signature, so this scheme
 *   cannot tell a replay from a delivery; deduplicate on the event's `id`.
 *
 * `verifyWebhook` uses Standard Webhooks when the `webhook-signature` header is present, else the
 * SharePay header (a SharePay server sends only that one).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KoloSignatureError } from './errors.ts';
import type { KoloEvent } from './types.ts';

/** Default tolerance between a delivery's timestamp and the receiver's clock: five minutes (the Standard Webhooks default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Headers as a `Headers` object or a plain record (Node's `req.headers`, any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Which scheme to check: `auto` (default) picks Standard Webhooks when its header is present. */
export type WebhookScheme = 'auto' | 'standard' | 'sharepay';

/** Input of `verifyWebhook`. */
export interface VerifyWebhookInput {
  /** The raw request body, exactly as received (not a re-serialised object). */
  payload: string | Uint8Array;
  headers: WebhookHeaders;
  /** The webhook secret; or several during a rotation (any one may match). */
  secret: string | readonly string[];
  /** Largest accepted gap between the delivery's timestamp and `now`, either way; default 300 s. */
  toleranceSeconds?: number;
  /** The receiver's clock; default now. */
  now?: Date | number;
  scheme?: WebhookScheme;
}

/**
 * Verifies a delivery and returns its parsed event. Throws `KoloSignatureError` when the headers
 * are missing or malformed, no signature matches any secret, the timestamp is outside the
 * tolerance, or the body is not a JSON object.
 */
export function verifyWebhook(input: VerifyWebhookInput): KoloEvent {
  const body = toBuffer(input.payload);
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new KoloSignatureError('No webhook secret given: pass the application\'s secret (whsec_…), shown once when it is created.');
  }
  const headers = lowerCased(input.headers);
  const nowSeconds = Math.floor((input.now === undefined ? Date.now() : Number(input.now)) / 1000);
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const scheme = input.scheme ?? 'auto';
  const useStandard = scheme === 'standard' || (scheme === 'auto' && headers.has('webhook-signature'));
  if (useStandard) verifyStandard(body, headers, secrets, nowSeconds, toleranceSeconds);
  else verifySharepay(body, headers, secrets, nowSeconds, toleranceSeconds);
  return parseEvent(body);
}

function verifyStandard(body: Buffer, headers: Map<string, string>, secrets: string[], nowSeconds: number, toleranceSeconds: number): void {
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signatures = headers.get('webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new KoloSignatureError('Missing webhook-id, webhook-timestamp or webhook-signature header: is this request from Kolo, and does your framework pass headers through?');
  }
  const seconds = timestampSeconds(timestamp);
  checkTolerance(seconds, nowSeconds, toleranceSeconds);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const expected = secrets.map((secret) => createHmac('sha256', standardWebhooksKey(secret)).update(signed).digest());
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    if (expected.some((mac) => mac.length === given.length && timingSafeEqual(mac, given))) return;
  }
  throw new KoloSignatureError(
    'No webhook-signature matches: check the secret (the whole whsec_… string of this application and environment) and pass the raw body, not a parsed and re-serialised one.',
  );
}

function verifySharepay(body: Buffer, headers: Map<string, string>, secrets: string[], nowSeconds: number, toleranceSeconds: number): void {
  const header = headers.get('x-sharepay-signature');
  if (!header) throw new KoloSignatureError('Missing webhook-signature and X-Sharepay-Signature headers: is this request from Kolo?');
  let t: string | undefined;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') t = value;
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) given.push(Buffer.from(value, 'hex'));
  }
  if (t === undefined || given.length === 0) throw new KoloSignatureError(`Malformed X-Sharepay-Signature header (expected t=<unix>,v1=<hex>).`);
  checkTolerance(timestampSeconds(t), nowSeconds, toleranceSeconds);
  const expected = secrets.map((secret) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest());
  for (const mac of given) if (expected.some((e) => timingSafeEqual(e, mac))) return;
  throw new KoloSignatureError(
    'X-Sharepay-Signature does not match: check the secret (the whole whsec_… string) and pass the raw body, not a parsed and re-serialised one.',
  );
}

/** The Standard Webhooks HMAC key of a secret: the text after `whsec_`, base64-decoded. */
function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function timestampSeconds(value: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new KoloSignatureError(`Malformed webhook timestamp ${JSON.stringify(value.slice(0, 20))} (expected Unix seconds).`);
  return Number(value);
}

function checkTolerance(seconds: number, nowSeconds: number, toleranceSeconds: number): void {
  if (Math.abs(nowSeconds - seconds) > toleranceSeconds) {
    throw new KoloSignatureError(
      `Webhook timestamp ${seconds} is more than ${toleranceSeconds} s away from now (${nowSeconds}): an old delivery replayed, or this server's clock is wrong (check NTP).`,
    );
  }
}

function parseEvent(body: Buffer): KoloEvent {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new KoloSignatureError('The signed webhook body is not JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new KoloSignatureError('The signed webhook body is not a JSON object.');
  return value as KoloEvent;
}

function toBuffer(payload: string | Uint8Array): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new KoloSignatureError('payload must be the raw body (a string or bytes), not a parsed object: read the body raw before any JSON parser runs.');
}

/** Header name (lower case) → value; several values of one header joined as Node joins them. */
function lowerCased(headers: WebhookHeaders): Map<string, string> {
  const map = new Map<string, string>();
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    (headers as Headers).forEach((value, name) => map.set(name.toLowerCase(), value));
    return map;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value === undefined) continue;
    map.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/** Input of `generateTestHeaders`. */
export interface TestHeadersInput {
  /** The exact body you will send. */
  payload: string;
  secret: string;
  /** `webhook-id`; default `evt_` + 32 random hex characters. */
  id?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
}

/**
 * The headers Kolo would send with `payload` (both schemes, signed with `secret`), for testing your
 * webhook endpoint without a Kolo server (as stripe-node's `generateTestHeaderString`).
 */
export function generateTestHeaders(input: TestHeadersInput): Record<string, string> {
  const id = input.id ?? `evt_${randomBytes(16).toString('hex')}`;
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const standard = createHmac('sha256', standardWebhooksKey(input.secret)).update(`${id}.${timestamp}.${input.payload}`, 'utf8').digest('base64');
  const sharepay = createHmac('sha256', Buffer.from(input.secret, 'utf8')).update(input.payload, 'utf8').digest('hex');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${standard}`,
    'x-sharepay-signature': `t=${timestamp},v1=${sharepay}`,
  };
}
