/**
 * Wave transformers (Wave Business API, https://docs.wave.com/business: Checkout API, Payout API,
 * Webhooks): pure functions between our types and Wave's wire format — Checkout sessions (redirect
 * pay-in), payouts, the `client_reference` searches, the `{code, message}` error envelope, the
 * table of every documented refusal code, and the webhook signature
 * (`Wave-Signature: t=<unix>,v1=<hex>`, HMAC-SHA256 of `t` + raw body). No I/O here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { documentedOutcome, type BalanceResult, type DocumentedMeaning, type FailureCode, type InitiateRequest, type InitiateResult, type StatusResult } from '../connector.ts';
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

/**
 * Wave's documented refusal codes → failureCode, by direction: the 4xx answers to a creation and a
 * failed payout's `payout_error.error_code`. `internal-server-error`, `service-unavailable` and
 * `too-many-requests` are not here: they refuse nothing for certain (a 5xx may follow a creation; a
 * 429 is asked again), and a code not listed is unknown.
 */
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
  'payment-failure': { payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR' },
};

/** `WAVE_ERROR_TABLE` as the rows `documentedOutcome` reads, one table per direction. */
const WAVE_REFUSALS: Record<'PAY_IN' | 'PAY_OUT', Record<string, DocumentedMeaning>> = {
  PAY_IN: Object.fromEntries(Object.entries(WAVE_ERROR_TABLE).map(([code, row]) => [code, { kind: 'FAILED', failureCode: row.payIn }])),
  PAY_OUT: Object.fromEntries(Object.entries(WAVE_ERROR_TABLE).map(([code, row]) => [code, { kind: 'FAILED', failureCode: row.payOut }])),
};

/** A Wave error code and message → our failure; a code Wave does not document → UNREACHABLE (unknown). */
export function waveFailure(code: string, message: string, direction: 'PAY_IN' | 'PAY_OUT'): StatusResult {
  return documentedOutcome(WAVE_REFUSALS[direction], code, `Wave ${code}: ${message}`.trim());
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

/**
 * `POST /v1/payout` with `idempotency-key` and `client_reference` both our reference; `receive_amount`
 * is net. A resend after Wave refused the pay-out for want of Kolo's float (`request.resend` > 0)
 * takes the key `<reference>-R<resend>`: under the first key Wave would answer the stored refusal again.
 */
export function payoutCall(request: InitiateRequest): WaveCall {
  return {
    method: 'POST',
    path: '/v1/payout',
    api: 'payout',
    headers: { 'Content-Type': 'application/json', 'idempotency-key': request.resend ? `${request.reference}-R${request.resend}` : request.reference },
    body: JSON.stringify({
      currency: request.currency,
      receive_amount: String(request.amount),
      mobile: waveMobile(request.msisdn),
      client_reference: request.reference,
      ...(request.description ? { payment_reason: request.description.slice(0, 40) } : {}),
    }),
  };
}

/**
 * `GET /v1/balance` (Wave's Balance & Reconciliation API): the wallet's balance, read with the
 * Payout key (the wallet pay-outs are paid from; the key needs the balance permission in the
 * Business Portal).
 */
export function waveBalanceCall(): WaveCall {
  return { method: 'GET', path: '/v1/balance', api: 'payout', headers: {} };
}

/**
 * Reads Wave's balance answer `200 {"amount": "12500", "currency": "XOF"}` (amounts are decimal
 * strings; XOF has no minor unit). Anything else is UNKNOWN.
 */
export function waveBalanceResult(status: number, json: unknown): BalanceResult {
  const amount = stringField(json, 'amount');
  const currency = stringField(json, 'currency');
  if (status !== 200 || !amount || !currency || !/^-?\d+$/.test(amount)) {
    return { kind: 'UNKNOWN', error: `Wave balance: HTTP ${status}${stringField(json, 'code') ? ` ${stringField(json, 'code')}` : ''}` };
  }
  return { kind: 'BALANCE', amount: Number(amount), currency };
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

/**
 * A session object → our status (Wave Checkout API): `payment_status` `succeeded` → SUCCEEDED (the
 * session id as operator reference, its `transaction_id` as the operator's transaction id, the one
 * on the payer's receipt); `cancelled` → REJECTED_BY_PAYER; `checkout_status` `expired` without
 * success → TIMEOUT; `open`/`processing` → PENDING (a failed attempt alone keeps it open: the
 * customer may retry); a status Wave does not document → UNREACHABLE.
 */
export function sessionStatus(session: unknown): StatusResult {
  const payment = stringField(session, 'payment_status');
  const checkout = stringField(session, 'checkout_status');
  if (payment === 'succeeded') {
    return { kind: 'SUCCEEDED', operatorReference: stringField(session, 'id') ?? null, operatorTransactionId: stringField(session, 'transaction_id') ?? null };
  }
  if (payment === 'cancelled') return { kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'Wave payment_status cancelled' };
  if (payment !== 'processing') return { kind: 'UNREACHABLE', error: `undocumented Wave payment_status ${JSON.stringify(payment ?? null)}` };
  if (checkout === 'expired') {
    const last = (session as { last_payment_error?: unknown }).last_payment_error;
    const code = stringField(last, 'code');
    return { kind: 'FAILED', failureCode: 'TIMEOUT', failureReason: code ? `Wave expired after ${code}: ${stringField(last, 'message') ?? ''}`.trim() : 'Wave checkout session expired' };
  }
  if (checkout === 'open' || checkout === 'complete') return { kind: 'PENDING' };
  return { kind: 'UNREACHABLE', error: `undocumented Wave checkout_status ${JSON.stringify(checkout ?? null)}` };
}

/**
 * A payout object → our status (Wave Payout API): `succeeded` → SUCCEEDED (the payout `id`, Wave's
 * only id of it, as both operator reference and transaction id); `processing` → PENDING; `failed` →
 * its `payout_error` (Wave's verdict: an undocumented error code is PROVIDER_ERROR, text kept);
 * `reversed` → FAILED (the money came back to our wallet); any other status → UNREACHABLE.
 */
export function payoutStatus(payout: unknown): StatusResult {
  const status = stringField(payout, 'status');
  const id = stringField(payout, 'id') ?? null;
  if (status === 'succeeded') return { kind: 'SUCCEEDED', operatorReference: id, operatorTransactionId: id };
  if (status === 'processing') return { kind: 'PENDING' };
  if (status === 'failed') {
    const error = (payout as { payout_error?: unknown }).payout_error;
    const code = stringField(error, 'error_code') ?? 'payment-failure';
    const outcome = waveFailure(code, stringField(error, 'error_message') ?? '', 'PAY_OUT');
    return outcome.kind === 'FAILED' ? outcome : { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: `Wave ${code}: ${stringField(error, 'error_message') ?? ''}`.trim() };
  }
  if (status === 'reversed') return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'Wave payout reversed' };
  return { kind: 'UNREACHABLE', error: `undocumented Wave payout status ${JSON.stringify(status ?? null)}` };
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
      if (outcome.kind === 'UNREACHABLE') return outcome;
      return { kind: 'ACCEPTED', operatorReference: id };
    }
    const launch = stringField(json, 'wave_launch_url');
    return { kind: 'ACCEPTED', operatorReference: id, ...(launch ? { redirectUrl: launch } : {}) };
  }
  // 5xx and 429: Wave may or may not have created it; the status query (search) tells.
  if (status >= 500 || status === 429 || !error) return { kind: 'UNREACHABLE', error: `Wave create: HTTP ${status}${error ? ` ${error.code}` : ''}` };
  const refusal = waveFailure(error.code, error.message, direction);
  return refusal.kind === 'FAILED' ? refusal : { kind: 'UNREACHABLE', error: `Wave create: HTTP ${status} ${error.code}` };
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
