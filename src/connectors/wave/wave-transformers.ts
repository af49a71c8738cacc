/**
 * Wave transformers (operators.md §3): pure functions between our types and Wave's wire format —
 * Checkout sessions (redirect pay-in), payouts, the `client_reference` searches, the
 * `{code, message}` error envelope, the exhaustive §3.4 mapping table, and the webhook signature
 * (`Wave-Signature: t=<unix>,v1=<hex>`, HMAC-SHA256 of `t` + raw body). No I/O here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FailureCode, InitiateRequest, InitiateResult, StatusResult } from '../connector.ts';
import { stringField } from '../operator-http.ts';

/** A Wave request ready to send (the plumbing adds `Authorization`). */
export interface WaveCall {
  method: 'GET' | 'POST';
  path: string;
  /** Which API key: Checkout or Payout (separate scopes in the Business Portal). */
  api: 'checkout' | 'payout';
  headers: Record<string, string>;
  body?: string;
}

/** Wave error code → failureCode, by direction (§3.4; a code not listed is PROVIDER_ERROR). */
export const WAVE_ERROR_TABLE: Record<string, { payIn: FailureCode; payOut: FailureCode }> = {
  'insufficient-funds': { payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS' },
  'blocked-account': { payIn: 'ACCOUNT_BLOCKED', payOut: 'ACCOUNT_BLOCKED' },
  'recipient-account-blocked': { payIn: 'ACCOUNT_BLOCKED', payOut: 'ACCOUNT_BLOCKED' },
  'recipient-account-inactive': { payIn: 'ACCOUNT_INACTIVE', payOut: 'ACCOUNT_INACTIVE' },
  'recipient-limit-exceeded': { payIn: 'LIMIT_EXCEEDED', payOut: 'LIMIT_EXCEEDED' },
  'kyb-limits-exceeded': { payIn: 'LIMIT_EXCEEDED', payOut: 'LIMIT_EXCEEDED' },
  'recipient-minor': { payIn: 'PAYEE_NOT_ALLOWED', payOut: 'PAYEE_NOT_ALLOWED' },
  'customer-age-restricted': { payIn: 'PAYEE_NOT_ALLOWED', payOut: 'PAYEE_NOT_ALLOWED' },
  'cross-border-payment-not-allowed': { payIn: 'PAYEE_NOT_ALLOWED', payOut: 'PAYEE_NOT_ALLOWED' },
  'payer-mobile-mismatch': { payIn: 'REJECTED_BY_PAYER', payOut: 'REJECTED_BY_PAYER' },
  'country-mismatch': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'currency-mismatch': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'request-validation-error': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'idempotency-mismatch': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'request-not-json': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'request-parsing-error': { payIn: 'INVALID_REQUEST', payOut: 'INVALID_REQUEST' },
  'missing-auth-header': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'invalid-auth': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'api-key-not-provided': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'no-matching-api-key': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'api-key-revoked': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'invalid-wallet': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'disabled-wallet': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'unauthorized-wallet': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'authorization-error': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'invalid-aggregated-merchant-id': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'aggregated-merchant-required': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  'too-many-requests': { payIn: 'PROVIDER_UNAVAILABLE', payOut: 'PROVIDER_UNAVAILABLE' },
  'service-unavailable': { payIn: 'PROVIDER_UNAVAILABLE', payOut: 'PROVIDER_UNAVAILABLE' },
  'payment-failure': { payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR' },
  'internal-server-error': { payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR' },
};

/** A Wave error code and message → our failure. */
export function waveFailure(code: string, message: string, direction: 'PAY_IN' | 'PAY_OUT'): { kind: 'FAILED'; failureCode: FailureCode; failureReason: string } {
  const row = WAVE_ERROR_TABLE[code];
  return { kind: 'FAILED', failureCode: row ? (direction === 'PAY_IN' ? row.payIn : row.payOut) : 'PROVIDER_ERROR', failureReason: `Wave ${code}: ${message}`.trim() };
}

/** `E.164` with the plus: `221761110001` → `+221761110001`. */
export function waveMobile(msisdn: string): string {
  return `+${msisdn}`;
}

/** `POST /v1/checkout/sessions` with our reference as `client_reference`, locked to the payer's number. */
export function checkoutSessionCall(request: InitiateRequest, returnUrl: string): WaveCall {
  return {
    method: 'POST',
    path: '/v1/checkout/sessions',
    api: 'checkout',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      amount: String(request.amount),
      currency: request.currency,
      success_url: returnUrl,
      error_url: returnUrl,
      client_reference: request.reference,
      restrict_payer_mobile: waveMobile(request.msisdn),
    }),
  };
}

/** `POST /v1/payout` with `idempotency-key` and `client_reference` both our reference; `receive_amount` is net. */
export function payoutCall(request: InitiateRequest): WaveCall {
  return {
    method: 'POST',
    path: '/v1/payout',
    api: 'payout',
    headers: { 'Content-Type': 'application/json', 'idempotency-key': request.reference },
    body: JSON.stringify({
      currency: request.currency,
      receive_amount: String(request.amount),
      mobile: waveMobile(request.msisdn),
      client_reference: request.reference,
      ...(request.description ? { payment_reason: request.description.slice(0, 40) } : {}),
    }),
  };
}

/** `GET` of a session (`cos-…`) or payout by Wave's id. */
export function waveGetCall(direction: 'PAY_IN' | 'PAY_OUT', id: string): WaveCall {
  return direction === 'PAY_IN'
    ? { method: 'GET', path: `/v1/checkout/sessions/${encodeURIComponent(id)}`, api: 'checkout', headers: {} }
    : { method: 'GET', path: `/v1/payout/${encodeURIComponent(id)}`, api: 'payout', headers: {} };
}

/** The `client_reference` search for a session or payout (recovery after an ambiguous creation). */
export function waveSearchCall(direction: 'PAY_IN' | 'PAY_OUT', reference: string): WaveCall {
  const q = `client_reference=${encodeURIComponent(reference)}`;
  return direction === 'PAY_IN'
    ? { method: 'GET', path: `/v1/checkout/sessions/search?${q}`, api: 'checkout', headers: {} }
    : { method: 'GET', path: `/v1/payouts/search?${q}`, api: 'payout', headers: {} };
}

/** Wave's error envelope `{code, message}`, or null. */
export function waveError(json: unknown): { code: string; message: string } | null {
  const code = stringField(json, 'code');
  return code ? { code, message: stringField(json, 'message') ?? '' } : null;
}

/** A session object → our status (§3.4): a failed attempt alone keeps it PENDING (the customer may retry). */
export function sessionStatus(session: unknown): StatusResult {
  const payment = stringField(session, 'payment_status');
  const checkout = stringField(session, 'checkout_status');
  if (payment === 'succeeded') return { kind: 'SUCCEEDED', operatorReference: stringField(session, 'transaction_id') ?? stringField(session, 'id') ?? null };
  if (payment === 'cancelled') return { kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'Wave payment_status cancelled' };
  if (checkout === 'expired') {
    const last = (session as { last_payment_error?: unknown }).last_payment_error;
    const code = stringField(last, 'code');
    return { kind: 'FAILED', failureCode: 'TIMEOUT', failureReason: code ? `Wave expired after ${code}: ${stringField(last, 'message') ?? ''}`.trim() : 'Wave checkout session expired' };
  }
  return { kind: 'PENDING' };
}

/** A payout object → our status. `reversed` is reported as FAILED (the money came back to us). */
export function payoutStatus(payout: unknown): StatusResult {
  const status = stringField(payout, 'status');
  if (status === 'succeeded') return { kind: 'SUCCEEDED', operatorReference: stringField(payout, 'id') ?? null };
  if (status === 'failed') {
    const error = (payout as { payout_error?: unknown }).payout_error;
    return waveFailure(stringField(error, 'error_code') ?? 'payment-failure', stringField(error, 'error_message') ?? '', 'PAY_OUT');
  }
  if (status === 'reversed') return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'Wave payout reversed' };
  return { kind: 'PENDING' };
}

/** Creation answer (session or payout) → initiation result, with the session's `wave_launch_url`. */
export function waveCreateResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT'): InitiateResult {
  const error = waveError(json);
  if (status >= 200 && status < 300 && !error) {
    const id = stringField(json, 'id');
    if (!id) return { kind: 'UNREACHABLE', error: `Wave create: HTTP ${status} without an id` };
    if (direction === 'PAY_OUT') {
      const outcome = payoutStatus(json);
      if (outcome.kind === 'FAILED') return outcome;
      return { kind: 'ACCEPTED', operatorReference: id };
    }
    const launch = stringField(json, 'wave_launch_url');
    return { kind: 'ACCEPTED', operatorReference: id, ...(launch ? { redirectUrl: launch } : {}) };
  }
  // 5xx and 429: Wave may or may not have created it; the status query (search) tells.
  if (status >= 500 || status === 429 || !error) return { kind: 'UNREACHABLE', error: `Wave create: HTTP ${status}${error ? ` ${error.code}` : ''}` };
  return waveFailure(error.code, error.message, direction);
}

/** GET answer → status; a 404 (`*-not-found`) is NOT_FOUND. */
export function waveGetResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT'): StatusResult {
  if (status === 200) return direction === 'PAY_IN' ? sessionStatus(json) : payoutStatus(json);
  if (status === 404) return { kind: 'NOT_FOUND' };
  return { kind: 'UNREACHABLE', error: `Wave get: HTTP ${status}${waveError(json) ? ` ${waveError(json)!.code}` : ''}` };
}

/** Search answer (`{result: [...]}`) → the object made for our reference, or null when none. */
export function waveSearchFirst(json: unknown, reference: string): Record<string, unknown> | null {
  const list = (json as { result?: unknown } | undefined)?.result;
  if (!Array.isArray(list)) return null;
  const found = list.find((o) => stringField(o, 'client_reference') === reference);
  return (found as Record<string, unknown> | undefined) ?? null;
}

/** Largest age of a webhook signature timestamp we accept, seconds (replays are refused). */
export const WAVE_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Why a `Wave-Signature` header does not authenticate `rawBody`, or null when one `v1` matches. */
export function waveSignatureProblem(header: string | undefined, rawBody: Buffer, secret: string, nowMs: number): string | null {
  if (!header) return 'missing Wave-Signature';
  const parts = header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k, v]) => k === 'v1' && v && /^[0-9a-f]{64}$/i.test(v)).map(([, v]) => Buffer.from(v!, 'hex'));
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return 'malformed Wave-Signature';
  if (Math.abs(nowMs / 1000 - Number(t)) > WAVE_SIGNATURE_TOLERANCE_SECONDS) return 'stale Wave-Signature timestamp';
  const expected = createHmac('sha256', secret).update(t).update(rawBody).digest();
  return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected)) ? null : 'Wave-Signature does not match';
}

/** `Wave-Signature` for `rawBody` at `unixSeconds` (the simulator signs with it). */
export function waveSignature(rawBody: string | Buffer, secret: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(String(unixSeconds)).update(rawBody).digest('hex')}`;
}

/** The session or payout a webhook event names: Wave's id and our `client_reference`. */
export function waveEventSubject(event: unknown): { id: string | null; clientReference: string | null; type: string | null } {
  const data = (event as { data?: unknown } | undefined)?.data;
  return { id: stringField(data, 'id') ?? null, clientReference: stringField(data, 'client_reference') ?? null, type: stringField(event, 'type') ?? null };
}
