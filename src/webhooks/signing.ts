/**
 * Webhook signatures. Pure functions: given the secrets currently valid for an application, the
 * event id, the attempt time and the exact body bytes, they produce the headers of one attempt.
 *
 * Secrets are `whsec_` + 64 lowercase hex characters. Two schemes are sent together:
 *
 * - Standard Webhooks (https://www.standardwebhooks.com, "Signature scheme"):
 *   `webhook-id`, `webhook-timestamp` (Unix seconds of the attempt) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`.
 *   The HMAC key is what every Standard Webhooks library derives from a `whsec_` secret:
 *   the text after `whsec_` base64-decoded. Our 64 hex characters all belong to the base64
 *   alphabet, so they decode to 48 bytes; merchants therefore pass their secret unchanged to any
 *   Standard Webhooks verifier (`new Webhook(secret)` in the `standardwebhooks` package).
 * - Compatibility (existing receivers): `X-Sharepay-Signature: t=<unix>,v1=<hex HMAC-SHA256
 *   over the raw body only>` keyed with the whole secret string, `whsec_` included, as UTF-8;
 *   and `X-Sharepay-Event: <event>`.
 *
 * During a rotation's overlap every valid secret signs the Standard Webhooks header (several
 * space-separated signatures are part of that standard), newest first. The compatibility header
 * carries exactly ONE `v1`, computed with the current (newest) secret, as SharePay does: it
 * replaces the secret at rotation, and existing receivers keep the last `v1` they parse, so a
 * second value would make them fail for the whole overlap once configured with the new secret.
 */
import { createHmac } from 'node:crypto';

/** Pattern of a webhook secret. */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[0-9a-f]{64}$/;

/** The HMAC key of the Standard Webhooks scheme for one of our secrets (48 bytes). */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/** `v1,<base64>` signature of the Standard Webhooks scheme. */
export function standardWebhooksSignature(secret: string, eventId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${eventId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** Hex HMAC-SHA256 of the raw body keyed with the whole secret string (compatibility scheme). */
export function sharepaySignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

/** What one attempt needs to be signed. `secrets` newest first; empty = unsigned. */
export interface SigningInput {
  eventId: string;
  eventName: string;
  timestampSeconds: number;
  body: string;
  secrets: readonly string[];
}

/**
 * Headers of one attempt. Always: content type, user agent, `webhook-id`, `webhook-timestamp`,
 * `X-Sharepay-Event`. Only with at least one secret: `webhook-signature` and `X-Sharepay-Signature`
 * (without a secret, deliveries arrive unsigned).
 */
export function webhookHeaders(input: SigningInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Kolo-Webhooks/1.0',
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestampSeconds),
    'x-sharepay-event': input.eventName,
  };
  if (input.secrets.length > 0) {
    headers['webhook-signature'] = input.secrets
      .map((s) => standardWebhooksSignature(s, input.eventId, input.timestampSeconds, input.body))
      .join(' ');
    headers['x-sharepay-signature'] = `t=${input.timestampSeconds},v1=${sharepaySignature(input.secrets[0]!, input.body)}`;
  }
  return headers;
}
