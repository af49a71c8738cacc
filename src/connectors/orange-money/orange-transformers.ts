/**
 * Orange Money Cameroon "OM API" transformers: pure functions between our types and the wire format
 * of `omcoreapis/1.0.2` (documented to Orange Cameroon's partners; as Y-Note's walkthrough,
 * https://www.y-note.cm/integration-de-lapi-local-orange-money/, and the public clients
 * NdoleStudio/orangemoney-go and spreeloop/core-ts show it) — USSD-push merchant payment (`mp/…`,
 * pay-in) and cash-in (`cashin/…`, pay-out). No I/O here; `orange-money-connector.ts` sends.
 */
import { createHash } from 'node:crypto';
import {
  documentedOutcome,
  type DocumentedMeaning,
  type FailureCode,
  type InitiateRequest,
  type InitiateResult,
  type InitiationState,
  type StatusResult,
} from '../connector.ts';
import { stringField } from '../operator-http.ts';

/** Path prefix of the OM API. */
export const ORANGE_API_PREFIX = '/omcoreapis/1.0.2';

/** `mp` (merchant payment, pay-in) or `cashin` (pay-out). */
export type OrangeFlow = 'mp' | 'cashin';

/** The flow that serves a direction. */
export function orangeFlowOf(direction: 'PAY_IN' | 'PAY_OUT'): OrangeFlow {
  return direction === 'PAY_IN' ? 'mp' : 'cashin';
}

/** Every transaction status the OM API returns, including its `SUCCESSFULL` spelling. */
export const ORANGE_STATUSES = ['INITIATED', 'PENDING', 'SUCCESSFULL', 'SUCCESS', 'FAILED', 'EXPIRED', 'CANCELLED'] as const;
/** An Orange transaction status. */
export type OrangeStatus = (typeof ORANGE_STATUSES)[number];

/**
 * What each status means, read through `documentedOutcome`: a status missing here is unknown
 * (UNREACHABLE), never a failure. `FAILED` is Orange's documented terminal refusal; its message
 * only names the reason (`ORANGE_MESSAGE_TABLE`, PROVIDER_ERROR when none matches: Orange publishes
 * no reason codes).
 */
export const ORANGE_STATUS_TABLE: Record<OrangeStatus, DocumentedMeaning | 'FAILED_BY_MESSAGE'> = {
  INITIATED: { kind: 'PENDING' },
  PENDING: { kind: 'PENDING' },
  SUCCESSFULL: { kind: 'SUCCEEDED' },
  SUCCESS: { kind: 'SUCCEEDED' },
  FAILED: 'FAILED_BY_MESSAGE',
  EXPIRED: { kind: 'FAILED', failureCode: 'TIMEOUT' },
  CANCELLED: { kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER' },
};

/**
 * Message → failureCode, matched on the message without accents, case-insensitively, or on Orange's
 * numeric status (`60019`). First match wins; no match is PROVIDER_ERROR, text kept.
 */
export const ORANGE_MESSAGE_TABLE: { name: string; matches: (message: string, code: string | undefined) => boolean; payIn: FailureCode; payOut: FailureCode }[] = [
  {
    name: 'insufficient balance (60019)',
    matches: (m, c) => c === '60019' || /solde .*insuffisant/.test(m),
    payIn: 'INSUFFICIENT_FUNDS',
    // Cash-in debits our channel account: its balance is ours.
    payOut: 'MERCHANT_INSUFFICIENT_FUNDS',
  },
  // A 417 decline for a wrong PIN (spreeloop/core-ts). On `mp/pay` it is the payer's PIN; on
  // `cashin/pay` the PIN is our channel's own, sent by Kolo: a configuration error.
  { name: 'wrong PIN', matches: (m) => /\bpin\b/.test(m), payIn: 'WRONG_PIN', payOut: 'CONFIGURATION_ERROR' },
  { name: 'unknown beneficiary', matches: (m) => m.includes('beneficiaire introuvable'), payIn: 'PAYER_NOT_FOUND', payOut: 'PAYEE_NOT_FOUND' },
  { name: 'blocked user', matches: (m) => m.includes('utilisateur bloque'), payIn: 'ACCOUNT_BLOCKED', payOut: 'ACCOUNT_BLOCKED' },
  {
    name: 'above the maximum amount',
    matches: (m) => m.includes('montant superieur au montant maximum'),
    payIn: 'LIMIT_EXCEEDED',
    payOut: 'LIMIT_EXCEEDED',
  },
];

/** Lowercase, accents removed: `"Bénéficiaire"` → `"beneficiaire"`. */
export function foldMessage(message: string): string {
  return message
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The failure a FAILED transaction's message (and numeric status) means for `direction`. */
export function orangeFailure(message: string, code: string | undefined, direction: 'PAY_IN' | 'PAY_OUT'): { failureCode: FailureCode; failureReason: string } {
  const folded = foldMessage(message);
  const row = ORANGE_MESSAGE_TABLE.find((r) => r.matches(folded, code));
  const failureReason = `Orange Money${code ? ` ${code}` : ''}: ${message || 'FAILED'}`;
  if (!row) return { failureCode: 'PROVIDER_ERROR', failureReason };
  return { failureCode: direction === 'PAY_IN' ? row.payIn : row.payOut, failureReason };
}

/** Orange wants the 9-digit national number (`6XXXXXXXX`), without `237`. */
export function orangeMsisdn(msisdn: string): string {
  return msisdn.startsWith('237') && msisdn.length === 12 ? msisdn.slice(3) : msisdn;
}

/** An OM API call, minus the `Authorization` and `X-AUTH-TOKEN` headers the plumbing adds. */
export interface OrangeCall {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** `POST …/mp/init` or `POST …/cashin/init`: obtains a `payToken` (no body; nothing is pushed yet). */
export function orangeInitCall(direction: 'PAY_IN' | 'PAY_OUT'): OrangeCall {
  return { method: 'POST', path: `${ORANGE_API_PREFIX}/${orangeFlowOf(direction)}/init`, headers: {} };
}

/** The channel (merchant) account that pays-out or receives, from configuration; secret PIN included. */
export interface OrangeChannel {
  channelMsisdn: string;
  pin: string;
}

/** Longest `orderId` `mp/pay` and `cashin/pay` accept (spreeloop/core-ts's request schema). */
export const ORANGE_ORDER_ID_MAX = 20;

/**
 * The `orderId` sent for `reference`: the reference itself when it fits in 20 characters (`PI-`
 * + 12 hex, a checkout attempt's `PI-…-1`), else `K` + the first 19 characters of the base32
 * SHA-256 of the reference, deterministic so a repeat names the same order. Only
 * reconciliation reads it: Kolo queries and correlates by `payToken`.
 */
export function orangeOrderId(reference: string): string {
  if (reference.length <= ORANGE_ORDER_ID_MAX) return reference;
  const digest = createHash('sha256').update(reference).digest();
  let bits = '';
  for (const byte of digest.subarray(0, 12)) bits += byte.toString(2).padStart(8, '0');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let id = 'K';
  for (let i = 0; id.length < ORANGE_ORDER_ID_MAX; i += 5) id += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return id;
}

/**
 * `POST …/mp/pay` (USSD push to the payer) or `POST …/cashin/pay` (credit of the payee): `amount`
 * is a string of whole francs, `orderId` our reference (`orangeOrderId`: at most 20 characters),
 * `notifUrl` our callback URL.
 */
export function orangePayCall(request: InitiateRequest, channel: OrangeChannel): OrangeCall {
  const body = {
    notifUrl: request.callbackUrl ?? '',
    channelUserMsisdn: channel.channelMsisdn,
    amount: String(request.amount),
    subscriberMsisdn: orangeMsisdn(request.msisdn),
    pin: channel.pin,
    orderId: orangeOrderId(request.reference),
    description: (request.description ?? request.reference).slice(0, 125),
    payToken: request.operatorReference,
  };
  return {
    method: 'POST',
    path: `${ORANGE_API_PREFIX}/${orangeFlowOf(request.direction)}/pay`,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/** `GET …/mp/paymentstatus/{payToken}` or `GET …/cashin/paymentstatus/{payToken}`. */
export function orangeStatusCall(direction: 'PAY_IN' | 'PAY_OUT', payToken: string): OrangeCall {
  return { method: 'GET', path: `${ORANGE_API_PREFIX}/${orangeFlowOf(direction)}/paymentstatus/${encodeURIComponent(payToken)}`, headers: {} };
}

function errorText(status: number, json: unknown): string {
  const fault = (json as { fault?: unknown } | undefined)?.fault;
  const message = stringField(fault, 'message') ?? stringField(json, 'message');
  const description = stringField(fault, 'description');
  return `Orange Money HTTP ${status}${message ? `: ${message}` : ''}${description ? ` (${description})` : ''}`;
}

/** The `payToken` of an `init` answer, or the failure. 5xx / unexpected → UNREACHABLE (retry later). */
export function orangeInitResult(
  status: number,
  json: unknown,
): { kind: 'PREPARED'; operatorReference: string } | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string } | { kind: 'UNREACHABLE'; error: string } {
  const payToken = stringField((json as { data?: unknown } | undefined)?.data, 'payToken');
  if (status >= 200 && status < 300 && payToken) return { kind: 'PREPARED', operatorReference: payToken };
  if (status === 401 || status === 403) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: errorText(status, json) };
  if (status >= 400 && status < 500) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
  return { kind: 'UNREACHABLE', error: errorText(status, json) };
}

/** A transaction object (`data`) of a pay or status answer, read through the tables above; `txnid` on success. */
export function orangeTransactionOutcome(data: unknown, direction: 'PAY_IN' | 'PAY_OUT', payToken: string | null = null): StatusResult {
  const status = stringField(data, 'status');
  if (status === 'FAILED') {
    const message = stringField(data, 'confirmtxnmessage') ?? stringField(data, 'inittxnmessage') ?? '';
    const code = stringField(data, 'confirmtxnstatus') ?? stringField(data, 'inittxnstatus');
    return { kind: 'FAILED', ...orangeFailure(message, code === '200' ? undefined : code, direction) };
  }
  // FAILED was read above: the rows left are DocumentedMeaning.
  return documentedOutcome(ORANGE_STATUS_TABLE as Record<string, DocumentedMeaning>, status, `Orange Money ${status ?? 'no status'}`, {
    operatorReference: payToken,
    operatorTransactionId: stringField(data, 'txnid') ?? null,
  });
}

/**
 * Orange's answer to `pay`: a transaction PENDING (prompt sent) is ACCEPTED, one FAILED at once is
 * its failure; HTTP 417 is a business decline (wrong PIN, insufficient funds…) whose body names the
 * reason, definite; 401/403 or a gateway `fault` is CONFIGURATION_ERROR; 400 our payload; 5xx, a
 * status Orange does not document or anything unreadable is unknown (UNREACHABLE: query the
 * payToken, never pay again).
 */
export function orangePayResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT', payToken: string): InitiateResult {
  if (status === 401 || status === 403) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: errorText(status, json) };
  if (status === 400) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: errorText(status, json) };
  const data = (json as { data?: unknown } | undefined)?.data;
  if (status === 417) return orangeDecline(json, data, direction);
  if (status >= 200 && status < 300 && data) {
    const outcome = orangeTransactionOutcome(data, direction, payToken);
    if (outcome.kind === 'FAILED') return outcome;
    if (outcome.kind === 'PENDING') return { kind: 'ACCEPTED', operatorReference: payToken };
    // SUCCEEDED at once is possible on cash-in; the status query reports it with its txnid.
    if (outcome.kind === 'SUCCEEDED') return { kind: 'ACCEPTED', operatorReference: payToken };
    return { kind: 'UNREACHABLE', error: outcome.kind === 'UNREACHABLE' ? outcome.error : errorText(status, json) };
  }
  return { kind: 'UNREACHABLE', error: errorText(status, json) };
}

/**
 * An HTTP 417 answer to `pay`: Orange's business decline (as spreeloop/core-ts
 * `orange_money/initialize_om_payment.ts` reads it). The reason is the transaction's
 * `inittxnmessage` (and its numeric `inittxnstatus`) when `data` is one, else the envelope's
 * `message`, read through `ORANGE_MESSAGE_TABLE`; a reason it does not list is PROVIDER_ERROR with
 * Orange's text.
 */
export function orangeDecline(json: unknown, data: unknown, direction: 'PAY_IN' | 'PAY_OUT'): { kind: 'FAILED'; failureCode: FailureCode; failureReason: string } {
  const message =
    stringField(data, 'confirmtxnmessage') ?? stringField(data, 'inittxnmessage') ?? stringField(json, 'message') ?? stringField((json as { fault?: unknown } | undefined)?.fault, 'message') ?? 'HTTP 417';
  const code = stringField(data, 'confirmtxnstatus') ?? stringField(data, 'inittxnstatus');
  return { kind: 'FAILED', ...orangeFailure(message, code === '200' || code === undefined ? undefined : code, direction) };
}

/**
 * Orange's answer to a status query: the transaction's outcome (`txnid` kept on success); 404 →
 * NOT_FOUND only when the `pay` outcome is `UNKNOWN` (nothing of it can still arrive), PENDING when
 * Orange had acknowledged it or while it may still be on its way (`IN_FLIGHT`); any other HTTP
 * status or a body without a transaction → UNREACHABLE.
 */
export function orangeStatusResult(
  status: number,
  json: unknown,
  direction: 'PAY_IN' | 'PAY_OUT',
  payToken: string,
  initiation: InitiationState = 'UNKNOWN',
): StatusResult {
  if (status === 404) return initiation === 'UNKNOWN' ? { kind: 'NOT_FOUND' } : { kind: 'PENDING' };
  const data = (json as { data?: unknown } | undefined)?.data;
  if (status !== 200 || !data) return { kind: 'UNREACHABLE', error: errorText(status, json) };
  return orangeTransactionOutcome(data, direction, payToken);
}
