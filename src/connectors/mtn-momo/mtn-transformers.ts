/**
 * MTN MoMo Open API transformers: pure functions between our types and MTN's wire format
 * (operators.md §1.4–§1.11, https://momodeveloper.mtn.com/api-documentation). No I/O here:
 * the plumbing (`mtn-momo-connector.ts`) adds the bearer token and sends what these build.
 */
import type { FailureCode, InitiateRequest, InitiateResult, StatusResult } from '../connector.ts';
import { stringField } from '../operator-http.ts';

/** The two MTN products Kolo uses, each with its own credentials and token. */
export type MtnProduct = 'collection' | 'disbursement';

/** Every MTN reason code of operators.md §1.9 (swagger `ErrorReason` plus later additions). */
export const MTN_REASONS = [
  'PAYEE_NOT_FOUND',
  'PAYER_NOT_FOUND',
  'NOT_ALLOWED',
  'NOT_ALLOWED_TARGET_ENVIRONMENT',
  'INVALID_CALLBACK_URL_HOST',
  'INVALID_CURRENCY',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_PROCESSING_ERROR',
  'NOT_ENOUGH_FUNDS',
  'PAYER_LIMIT_REACHED',
  'PAYEE_NOT_ALLOWED_TO_RECEIVE',
  'PAYMENT_NOT_APPROVED',
  'RESOURCE_NOT_FOUND',
  'APPROVAL_REJECTED',
  'EXPIRED',
  'TRANSACTION_CANCELED',
  'RESOURCE_ALREADY_EXIST',
  'COULD_NOT_PERFORM_TRANSACTION',
  'SENDER_ACCOUNT_NOT_ACTIVE',
  'ONGOING',
  'PAYER_DELAYED',
  'PAYEE_DELAYED',
] as const;
/** An MTN reason code. */
export type MtnReason = (typeof MTN_REASONS)[number];

/** What a reason means: a failure code per direction, or "not a failure, still pending". */
type ReasonOutcome = { payIn: FailureCode; payOut: FailureCode } | 'PENDING';

const both = (code: FailureCode): ReasonOutcome => ({ payIn: code, payOut: code });

/**
 * Exhaustive reason → failureCode table (operators.md §1.11). The `Record` over `MtnReason`
 * makes a missing reason a compile error; an unknown reason is `PROVIDER_ERROR` (see below).
 */
export const MTN_REASON_TABLE: Record<MtnReason, ReasonOutcome> = {
  // Collection: the payer's wallet; disbursement: our account (or the receiver's limit).
  NOT_ENOUGH_FUNDS: { payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS' },
  PAYER_NOT_FOUND: both('PAYER_NOT_FOUND'),
  PAYEE_NOT_FOUND: both('PAYEE_NOT_FOUND'),
  PAYER_LIMIT_REACHED: both('LIMIT_EXCEEDED'),
  PAYEE_NOT_ALLOWED_TO_RECEIVE: both('PAYEE_NOT_ALLOWED'),
  SENDER_ACCOUNT_NOT_ACTIVE: both('ACCOUNT_BLOCKED'),
  APPROVAL_REJECTED: both('REJECTED_BY_PAYER'),
  PAYMENT_NOT_APPROVED: both('REJECTED_BY_PAYER'),
  TRANSACTION_CANCELED: both('REJECTED_BY_PAYER'),
  EXPIRED: both('TIMEOUT'),
  // MTN: "the customer did not approve within the 5-minute window".
  COULD_NOT_PERFORM_TRANSACTION: both('TIMEOUT'),
  NOT_ALLOWED: both('CONFIGURATION_ERROR'),
  NOT_ALLOWED_TARGET_ENVIRONMENT: both('CONFIGURATION_ERROR'),
  INVALID_CALLBACK_URL_HOST: both('CONFIGURATION_ERROR'),
  INVALID_CURRENCY: both('CONFIGURATION_ERROR'),
  SERVICE_UNAVAILABLE: both('PROVIDER_UNAVAILABLE'),
  // MTN's generic fallback ("predominantly" insufficient funds, but not only): keep it generic.
  INTERNAL_PROCESSING_ERROR: both('PROVIDER_ERROR'),
  RESOURCE_NOT_FOUND: both('NOT_FOUND_AT_PROVIDER'),
  RESOURCE_ALREADY_EXIST: both('PROVIDER_ERROR'),
  ONGOING: 'PENDING',
  PAYER_DELAYED: 'PENDING',
  PAYEE_DELAYED: 'PENDING',
};

/** True when `code` is one of MTN's documented reasons. */
export function isMtnReason(code: string): code is MtnReason {
  return (MTN_REASONS as readonly string[]).includes(code);
}

/** `reason` as MTN sends it: a plain string (current platform) or `{code, message}` (swagger). */
export function parseMtnReason(reason: unknown): { code: string; message: string | null } | null {
  if (typeof reason === 'string' && reason !== '') return { code: reason, message: null };
  const code = stringField(reason, 'code');
  if (code) return { code, message: stringField(reason, 'message') ?? null };
  return null;
}

/** The failure (or PENDING) a reason means for `direction`; unknown → PROVIDER_ERROR, text kept. */
export function mtnReasonOutcome(
  reason: { code: string; message: string | null },
  direction: 'PAY_IN' | 'PAY_OUT',
): { kind: 'PENDING' } | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string } {
  const failureReason = `MTN ${reason.code}${reason.message ? `: ${reason.message}` : ''}`;
  if (!isMtnReason(reason.code)) return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason };
  const outcome = MTN_REASON_TABLE[reason.code];
  if (outcome === 'PENDING') return { kind: 'PENDING' };
  return { kind: 'FAILED', failureCode: direction === 'PAY_IN' ? outcome.payIn : outcome.payOut, failureReason };
}

/** ISO 4217 currencies without a minor unit (amount in base units = major units). */
const ZERO_DECIMAL = new Set(['XAF', 'XOF', 'UGX', 'RWF', 'GNF', 'KMF', 'BIF', 'DJF', 'JPY', 'KRW', 'VND', 'PYG', 'CLP']);

/** Our integer base-unit amount as MTN's string: `5000` XAF → `"5000"`, `1250` GHS (pesewas) → `"12.50"`. */
export function mtnAmount(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`amount must be a non-negative integer, got ${amount}`);
  if (ZERO_DECIMAL.has(currency)) return String(amount);
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')}`;
}

/**
 * A payer message / payee note MTN accepts: at most 160 characters, and none of the special
 * characters (an apostrophe, for one) that MTN answers with 400. Accented letters are kept.
 */
export function mtnNote(text: string | null, fallback: string): string {
  const cleaned = (text ?? '').replace(/[^\p{L}\p{N} .,:_-]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return (cleaned === '' ? fallback : cleaned).slice(0, 160);
}

/** An MTN business call built from our request, minus the bearer token the plumbing adds. */
export interface MtnCall {
  product: MtnProduct;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** The product that serves a direction: collection for pay-ins, disbursement for pay-outs. */
export function mtnProductOf(direction: 'PAY_IN' | 'PAY_OUT'): MtnProduct {
  return direction === 'PAY_IN' ? 'collection' : 'disbursement';
}

/**
 * `POST /collection/v1_0/requesttopay` (pay-in) or `POST /disbursement/v1_0/transfer` (pay-out),
 * operators.md §1.4 / §1.6: `X-Reference-Id` is the prepared UUIDv4, `X-Callback-Url` only when
 * we have one (MTN refuses an empty header), `amount` a string, MSISDN digits without `+`.
 */
export function mtnInitiateCall(request: InitiateRequest, targetEnvironment: string): MtnCall {
  const isPayIn = request.direction === 'PAY_IN';
  const party = { partyIdType: 'MSISDN', partyId: request.msisdn };
  const note = mtnNote(request.description, request.reference);
  const body = {
    amount: mtnAmount(request.amount, request.currency),
    currency: request.currency,
    externalId: request.reference,
    ...(isPayIn ? { payer: party } : { payee: party }),
    payerMessage: note,
    payeeNote: note,
  };
  return {
    product: mtnProductOf(request.direction),
    method: 'POST',
    path: isPayIn ? '/collection/v1_0/requesttopay' : '/disbursement/v1_0/transfer',
    headers: {
      'X-Reference-Id': request.operatorReference,
      'X-Target-Environment': targetEnvironment,
      ...(request.callbackUrl ? { 'X-Callback-Url': request.callbackUrl } : {}),
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(body),
  };
}

/** `GET /collection/v1_0/requesttopay/{ref}` or `GET /disbursement/v1_0/transfer/{ref}` (§1.5, §1.6). */
export function mtnStatusCall(direction: 'PAY_IN' | 'PAY_OUT', referenceId: string, targetEnvironment: string): MtnCall {
  return {
    product: mtnProductOf(direction),
    method: 'GET',
    path: direction === 'PAY_IN' ? `/collection/v1_0/requesttopay/${encodeURIComponent(referenceId)}` : `/disbursement/v1_0/transfer/${encodeURIComponent(referenceId)}`,
    headers: { 'X-Target-Environment': targetEnvironment },
  };
}

/** `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active` (§1.8), before a pay-out. */
export function mtnAccountHolderCall(msisdn: string, targetEnvironment: string): MtnCall {
  return {
    product: 'disbursement',
    method: 'GET',
    path: `/disbursement/v1_0/accountholder/msisdn/${encodeURIComponent(msisdn)}/active`,
    headers: { 'X-Target-Environment': targetEnvironment },
  };
}

function errorText(status: number, json: unknown): string {
  const code = stringField(json, 'code');
  const message = stringField(json, 'message');
  return `MTN HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}

/**
 * MTN's answer to an initiation (§1.4, §1.11): `202` and `409 RESOURCE_ALREADY_EXIST` both mean
 * "created"; `400` is our payload (INVALID_REQUEST); `401`/`403` our credentials or IP
 * (CONFIGURATION_ERROR); a 5xx naming a documented decline is that decline; any other 5xx or
 * 429 is ambiguous (UNREACHABLE: the status query decides).
 */
export function mtnInitiateResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT', referenceId: string): InitiateResult {
  // 409 is only ever RESOURCE_ALREADY_EXIST: our X-Reference-Id was already created (a repeat).
  if ((status >= 200 && status < 300) || status === 409) return { kind: 'ACCEPTED', operatorReference: referenceId };
  if (status === 400) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
  if (status === 401 || status === 403 || status === 404) {
    return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: errorText(status, json) };
  }
  const code = stringField(json, 'code');
  if (status >= 500 && code) {
    const outcome = mtnReasonOutcome({ code, message: stringField(json, 'message') ?? null }, direction);
    const isDecline =
      outcome.kind === 'FAILED' && !['PROVIDER_ERROR', 'PROVIDER_UNAVAILABLE', 'NOT_FOUND_AT_PROVIDER'].includes(outcome.failureCode);
    if (isDecline) return outcome;
  }
  if (status >= 500 || status === 429) return { kind: 'UNREACHABLE', error: errorText(status, json) };
  return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
}

/**
 * MTN's answer to a status query (§1.5, §1.11): `SUCCESSFUL` → SUCCEEDED; `FAILED` → the mapped
 * reason (ONGOING / *_DELAYED stay PENDING); `PENDING`, `CREATED` or anything else → PENDING;
 * `404` → NOT_FOUND (the initiation never landed) when its outcome was unknown, but PENDING when
 * MTN had acknowledged it (202/409: MTN holds it; the rail's deadline bounds the wait);
 * any other answer → UNREACHABLE.
 */
export function mtnStatusResult(
  status: number,
  json: unknown,
  direction: 'PAY_IN' | 'PAY_OUT',
  referenceId: string,
  initiation: 'ACCEPTED' | 'UNKNOWN' = 'UNKNOWN',
): StatusResult {
  if (status === 404) return initiation === 'ACCEPTED' ? { kind: 'PENDING' } : { kind: 'NOT_FOUND' };
  if (status !== 200) return { kind: 'UNREACHABLE', error: errorText(status, json) };
  const state = stringField(json, 'status');
  if (state === 'SUCCESSFUL') return { kind: 'SUCCEEDED', operatorReference: referenceId };
  if (state === 'FAILED') {
    const reason = parseMtnReason((json as Record<string, unknown>).reason) ?? { code: 'FAILED', message: 'no reason given' };
    return mtnReasonOutcome(reason, direction);
  }
  return { kind: 'PENDING' };
}

/** The account-holder check before a pay-out (§1.8): ACTIVE, a definite refusal, or UNKNOWN (go on). */
export function mtnAccountHolderResult(
  status: number,
  json: unknown,
): { kind: 'ACTIVE' } | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string } | { kind: 'UNKNOWN'; error: string } {
  if (status === 200) {
    const result = (json as { result?: unknown } | undefined)?.result;
    if (result === true) return { kind: 'ACTIVE' };
    if (result === false) {
      return { kind: 'FAILED', failureCode: 'ACCOUNT_INACTIVE', failureReason: "MTN accountholder active: false (compte mobile money inactif ou non enregistré)" };
    }
  }
  if (status === 404) return { kind: 'FAILED', failureCode: 'PAYEE_NOT_FOUND', failureReason: errorText(status, json) };
  return { kind: 'UNKNOWN', error: errorText(status, json) };
}
