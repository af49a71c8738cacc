/**
 * MTN MoMo Open API transformers: pure functions between our types and MTN's wire format
 * (Collection and Disbursement products, https://momodeveloper.mtn.com/api-documentation). No I/O
 * here: the plumbing (`mtn-momo-connector.ts`) adds the bearer token and sends what these build.
 */
import {
  documentedOutcome,
  type DocumentedMeaning,
  type FailureCode,
  type InitiateRequest,
  type InitiateResult,
  type InitiationState,
  type StatusResult,
  type BalanceResult,
} from '../connector.ts';
import { stringField } from '../operator-http.ts';
import { baseUnitDigits } from '../../domain/currency.ts';

/** The two MTN products Kolo uses, each with its own credentials and token. */
export type MtnProduct = 'collection' | 'disbursement';

/** Every MTN reason code: the Open API swagger's `ErrorReason` enum plus those MTN added since. */
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

const failed = (failureCode: FailureCode): DocumentedMeaning => ({ kind: 'FAILED', failureCode });
const PENDING: DocumentedMeaning = { kind: 'PENDING' };

/**
 * What each reason of a `FAILED` status means for a pay-in (MTN's `ErrorReason` enum and its 2023
 * "reason enrichment" table, momodevelopercommunity.mtn.com). Exhaustive over `MtnReason` (a
 * missing one is a compile error); read through `documentedOutcome`, so a reason MTN never
 * documented is unknown, not a failure: MTN's reasons are a closed vocabulary in which some
 * (`ONGOING`, `*_DELAYED`) mean "still in progress", so an unlisted one cannot be read as a
 * refusal.
 */
export const MTN_PAY_IN_REASONS: Record<MtnReason, DocumentedMeaning> = {
  NOT_ENOUGH_FUNDS: failed('INSUFFICIENT_FUNDS'),
  PAYER_NOT_FOUND: failed('PAYER_NOT_FOUND'),
  PAYEE_NOT_FOUND: failed('PAYEE_NOT_FOUND'),
  PAYER_LIMIT_REACHED: failed('LIMIT_EXCEEDED'),
  PAYEE_NOT_ALLOWED_TO_RECEIVE: failed('PAYEE_NOT_ALLOWED'),
  SENDER_ACCOUNT_NOT_ACTIVE: failed('ACCOUNT_BLOCKED'),
  APPROVAL_REJECTED: failed('REJECTED_BY_PAYER'),
  PAYMENT_NOT_APPROVED: failed('REJECTED_BY_PAYER'),
  TRANSACTION_CANCELED: failed('REJECTED_BY_PAYER'),
  EXPIRED: failed('TIMEOUT'),
  // MTN: "the customer did not approve within the 5-minute window".
  COULD_NOT_PERFORM_TRANSACTION: failed('TIMEOUT'),
  NOT_ALLOWED: failed('CONFIGURATION_ERROR'),
  NOT_ALLOWED_TARGET_ENVIRONMENT: failed('CONFIGURATION_ERROR'),
  INVALID_CALLBACK_URL_HOST: failed('CONFIGURATION_ERROR'),
  INVALID_CURRENCY: failed('CONFIGURATION_ERROR'),
  SERVICE_UNAVAILABLE: failed('PROVIDER_UNAVAILABLE'),
  // On a FAILED status MTN has decided; its generic reason ("predominantly" insufficient funds,
  // not only) stays generic.
  INTERNAL_PROCESSING_ERROR: failed('PROVIDER_ERROR'),
  RESOURCE_NOT_FOUND: failed('NOT_FOUND_AT_PROVIDER'),
  RESOURCE_ALREADY_EXIST: failed('PROVIDER_ERROR'),
  ONGOING: PENDING,
  PAYER_DELAYED: PENDING,
  PAYEE_DELAYED: PENDING,
};

/** The pay-out column: as the pay-in's, but `NOT_ENOUGH_FUNDS` is our disbursement account (or the receiver's limit). */
export const MTN_PAY_OUT_REASONS: Record<MtnReason, DocumentedMeaning> = {
  ...MTN_PAY_IN_REASONS,
  NOT_ENOUGH_FUNDS: failed('MERCHANT_INSUFFICIENT_FUNDS'),
};

/**
 * Reasons MTN documents as synchronous refusals of `requesttopay` / `transfer` (HTTP 500 with
 * `{code, message}`: MTN's Request to Pay and Transfer pages say production may reject
 * synchronously): the request was refused before it was created, nothing moved. Only these are
 * definite at initiation: `INTERNAL_PROCESSING_ERROR` (MTN's generic fallback),
 * `SERVICE_UNAVAILABLE` and any other code on a 5xx may follow a request MTN created and will
 * process, so they are unknown and the status query decides.
 */
export const MTN_INITIATION_REFUSALS: Record<'PAY_IN' | 'PAY_OUT', Readonly<Record<string, DocumentedMeaning>>> = {
  PAY_IN: {
    NOT_ALLOWED: failed('CONFIGURATION_ERROR'),
    NOT_ALLOWED_TARGET_ENVIRONMENT: failed('CONFIGURATION_ERROR'),
    INVALID_CALLBACK_URL_HOST: failed('CONFIGURATION_ERROR'),
    INVALID_CURRENCY: failed('CONFIGURATION_ERROR'),
    PAYER_NOT_FOUND: failed('PAYER_NOT_FOUND'),
    PAYEE_NOT_ALLOWED_TO_RECEIVE: failed('PAYEE_NOT_ALLOWED'),
  },
  PAY_OUT: {
    NOT_ALLOWED: failed('CONFIGURATION_ERROR'),
    NOT_ALLOWED_TARGET_ENVIRONMENT: failed('CONFIGURATION_ERROR'),
    INVALID_CALLBACK_URL_HOST: failed('CONFIGURATION_ERROR'),
    INVALID_CURRENCY: failed('CONFIGURATION_ERROR'),
    NOT_ENOUGH_FUNDS: failed('MERCHANT_INSUFFICIENT_FUNDS'),
    PAYER_LIMIT_REACHED: failed('LIMIT_EXCEEDED'),
    PAYEE_NOT_FOUND: failed('PAYEE_NOT_FOUND'),
  },
};

/**
 * The `status` of MTN's status GET (Request to Pay Transaction Status): `SUCCESSFUL`, `FAILED`
 * (refined by its reason), `PENDING`, and `CREATED` (observed in the sandbox before `PENDING`).
 * Anything else is unknown.
 */
export const MTN_STATUSES: Readonly<Record<string, DocumentedMeaning | 'BY_REASON'>> = {
  SUCCESSFUL: { kind: 'SUCCEEDED' },
  PENDING: PENDING,
  CREATED: PENDING,
  FAILED: 'BY_REASON',
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

/** What a `FAILED` status's reason means for `direction` (its table); an undocumented reason is UNREACHABLE. */
export function mtnReasonOutcome(reason: { code: string; message: string | null }, direction: 'PAY_IN' | 'PAY_OUT'): StatusResult {
  const failureReason = `MTN ${reason.code}${reason.message ? `: ${reason.message}` : ''}`;
  return documentedOutcome(direction === 'PAY_IN' ? MTN_PAY_IN_REASONS : MTN_PAY_OUT_REASONS, reason.code, failureReason);
}

/**
 * Our integer base-unit amount as MTN's string, in major units with the base unit's decimals
 * (`baseUnitDigits`): `5000` XAF → `"5000"`, `1250` GHS (pesewas) → `"12.50"`.
 */
export function mtnAmount(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`amount must be a non-negative integer, got ${amount}`);
  const digits = baseUnitDigits(currency);
  if (digits === 0) return String(amount);
  const text = String(amount).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
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
 * (MTN's Request to Pay and Transfer): `X-Reference-Id` is the prepared UUIDv4, `X-Callback-Url`
 * only when we have one (MTN refuses an empty header), `amount` a string, MSISDN digits without
 * `+`.
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

/** `GET /collection/v1_0/requesttopay/{ref}` or `GET /disbursement/v1_0/transfer/{ref}`. */
export function mtnStatusCall(direction: 'PAY_IN' | 'PAY_OUT', referenceId: string, targetEnvironment: string): MtnCall {
  return {
    product: mtnProductOf(direction),
    method: 'GET',
    path: direction === 'PAY_IN' ? `/collection/v1_0/requesttopay/${encodeURIComponent(referenceId)}` : `/disbursement/v1_0/transfer/${encodeURIComponent(referenceId)}`,
    headers: { 'X-Target-Environment': targetEnvironment },
  };
}

/**
 * `GET /{product}/v1_0/account/balance` (MTN's "Get Account Balance"): the balance of the
 * product's own account; the disbursement account is the one pay-outs are paid from.
 */
export function mtnBalanceCall(product: MtnProduct, targetEnvironment: string): MtnCall {
  return { product, method: 'GET', path: `/${product}/v1_0/account/balance`, headers: { 'X-Target-Environment': targetEnvironment } };
}

/**
 * Reads MTN's balance answer, `200 {"availableBalance": "1000", "currency": "EUR"}` (a string of
 * major units, as every MTN amount), converted to base units.
 * Anything else is UNKNOWN.
 */
export function mtnBalanceResult(status: number, json: unknown): BalanceResult {
  const available = stringField(json, 'availableBalance');
  const currency = stringField(json, 'currency');
  if (status !== 200 || !available || !currency || !/^-?\d+(\.\d{1,2})?$/.test(available)) {
    return { kind: 'UNKNOWN', error: errorText(status, json) };
  }
  return { kind: 'BALANCE', amount: Math.round(Number(available) * 10 ** baseUnitDigits(currency)), currency };
}

/**
 * `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active` (MTN's Validate Account Holder
 * Status), before a pay-out.
 */
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
 * MTN's answer to an initiation: `202` and `409 RESOURCE_ALREADY_EXIST` both mean "created"; `400`
 * is our payload (INVALID_REQUEST); `401`/`403`/`404` our credentials, IP or path
 * (CONFIGURATION_ERROR): 4xx answers are refusals of a request MTN did not process. A 5xx is a
 * definite refusal only with a code of `MTN_INITIATION_REFUSALS`; any other 5xx, a 429 or an
 * unexpected status is unknown (UNREACHABLE: the status query decides).
 */
export function mtnInitiateResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT', referenceId: string): InitiateResult {
  // 409 is only ever RESOURCE_ALREADY_EXIST: our X-Reference-Id was already created (a repeat).
  if ((status >= 200 && status < 300) || status === 409) return { kind: 'ACCEPTED', operatorReference: referenceId };
  if (status === 400) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
  if (status === 401 || status === 403 || status === 404) {
    return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: errorText(status, json) };
  }
  if (status >= 500) {
    const code = stringField(json, 'code');
    const message = stringField(json, 'message');
    const refusal = documentedOutcome(MTN_INITIATION_REFUSALS[direction], code, `MTN ${code}${message ? `: ${message}` : ''}`);
    if (refusal.kind === 'FAILED') return refusal;
    return { kind: 'UNREACHABLE', error: errorText(status, json) };
  }
  if (status >= 400 && status !== 429) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
  return { kind: 'UNREACHABLE', error: errorText(status, json) };
}

/**
 * MTN's answer to a status query, through `MTN_STATUSES`: `SUCCESSFUL` → SUCCEEDED with
 * `financialTransactionId` (the id on MTN's statements and the payer's SMS); `FAILED` → its
 * reason's meaning (no reason at all: PROVIDER_ERROR, MTN has decided); `PENDING`/`CREATED` →
 * PENDING; an unknown status → UNREACHABLE. `404` → NOT_FOUND (never landed) only when the
 * initiation is `UNKNOWN` (nothing of it can still arrive); PENDING when MTN had acknowledged it
 * (202/409: MTN holds it) or while it may still be on its way (`IN_FLIGHT`); any other HTTP status
 * or an unreadable body → UNREACHABLE.
 */
export function mtnStatusResult(
  status: number,
  json: unknown,
  direction: 'PAY_IN' | 'PAY_OUT',
  referenceId: string,
  initiation: InitiationState = 'UNKNOWN',
): StatusResult {
  if (status === 404) return initiation === 'UNKNOWN' ? { kind: 'NOT_FOUND' } : { kind: 'PENDING' };
  if (status !== 200) return { kind: 'UNREACHABLE', error: errorText(status, json) };
  const state = stringField(json, 'status');
  const meaning = state !== undefined && Object.hasOwn(MTN_STATUSES, state) ? MTN_STATUSES[state] : undefined;
  if (meaning === 'BY_REASON') {
    const reason = parseMtnReason((json as Record<string, unknown>).reason);
    if (!reason) return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'MTN FAILED (no reason given)' };
    return mtnReasonOutcome(reason, direction);
  }
  // FAILED was read above: the rows left are DocumentedMeaning.
  return documentedOutcome(MTN_STATUSES as Record<string, DocumentedMeaning>, state, `MTN status ${JSON.stringify(state ?? null)}`, {
    operatorReference: referenceId,
    operatorTransactionId: stringField(json, 'financialTransactionId') ?? null,
  });
}

/** The account-holder check before a pay-out: ACTIVE, a definite refusal, or UNKNOWN (go on). */
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
