/**
 * Airtel Money wire format (https://developers.airtel.africa/documentation; SDKs
 * `mtvbrianking/laravel-airtel-money`, `osenco/airtelts`), pure: request bodies, the enquiry's
 * statuses mapped to ours, the PIN's encryption and the callback's hash.
 *
 * Statuses of `GET /standard/v1/payments/{id}` and `…/disbursements/{id}` (`data.transaction.status`):
 * `TS` success, `TF` failed, `TE` expired, `TIP` in progress, `TA` ambiguous. `TIP` and `TA` are not
 * outcomes: the money waits, and Kolo asks again until the rail's deadline.
 */
import { createHmac, constants, publicEncrypt, timingSafeEqual } from 'node:crypto';
import type { BalanceResult, DocumentedMeaning, InitiateResult, StatusResult } from '../connector.ts';
import { documentedOutcome } from '../connector.ts';
import { baseUnitDigits } from '../../domain/currency.ts';

/** A call to Airtel, before auth headers. */
export interface AirtelCall {
  method: 'GET' | 'POST';
  path: string;
  country: string;
  currency: string;
  body?: string;
}

const failed = (failureCode: Extract<DocumentedMeaning, { kind: 'FAILED' }>['failureCode']): DocumentedMeaning => ({ kind: 'FAILED', failureCode });

/** Airtel's transaction statuses, as its enquiry documents them. */
export const AIRTEL_STATUSES: Readonly<Record<string, DocumentedMeaning>> = {
  TS: { kind: 'SUCCEEDED' },
  TF: failed('REJECTED_BY_PAYER'),
  TE: failed('TIMEOUT'),
  TIP: { kind: 'PENDING' },
  TA: { kind: 'PENDING' },
};

/** Airtel's pay-out statuses: a failed disbursement is the payee's or the wallet's, not a payer's refusal. */
export const AIRTEL_PAY_OUT_STATUSES: Readonly<Record<string, DocumentedMeaning>> = {
  ...AIRTEL_STATUSES,
  TF: failed('PROVIDER_ERROR'),
};

/** `POST /merchant/v1/payments/`: the USSD push asking `msisdn` to pay `amount` (XAF: whole units). */
export function airtelCollectionCall(input: { id: string; reference: string; msisdn: string; amount: number; country: string; currency: string }): AirtelCall {
  return {
    method: 'POST',
    path: '/merchant/v1/payments/',
    country: input.country,
    currency: input.currency,
    body: JSON.stringify({
      reference: input.reference,
      subscriber: { country: input.country, currency: input.currency, msisdn: input.msisdn },
      transaction: { amount: input.amount, country: input.country, currency: input.currency, id: input.id },
    }),
  };
}

/**
 * Airtel's disbursement response code for "not enough balance": the disbursement wallet (Kolo's
 * float at Airtel) cannot pay the transfer. Airtel's disbursement codes are the `DP009000010xx`
 * series, whose `…1007` mirrors the collection series' documented `DP00800001007` "not enough
 * balance" (shared/reference/operators.md §5.1). Nothing moved: a pay-out answered so is
 * `MERCHANT_INSUFFICIENT_FUNDS`, which Kolo queues for float instead of failing.
 */
export const AIRTEL_WALLET_SHORT_CODE = 'DP00900001007';

/** `status.response_code` of Airtel's envelope, or null. */
function responseCodeOf(json: unknown): string | null {
  const code = (json as { status?: { response_code?: unknown } } | undefined)?.status?.response_code;
  return typeof code === 'string' ? code : null;
}

/** `POST /standard/v1/disbursements/`: pays `amount` to `msisdn`, the wallet's PIN encrypted. */
export function airtelDisbursementCall(input: { id: string; reference: string; msisdn: string; amount: number; country: string; currency: string; encryptedPin: string }): AirtelCall {
  return {
    method: 'POST',
    path: '/standard/v1/disbursements/',
    country: input.country,
    currency: input.currency,
    body: JSON.stringify({ payee: { msisdn: input.msisdn }, reference: input.reference, pin: input.encryptedPin, transaction: { amount: input.amount, id: input.id } }),
  };
}

/** The enquiry of transaction `id` in `direction`. */
export function airtelEnquiryCall(direction: 'PAY_IN' | 'PAY_OUT', id: string, country: string, currency: string): AirtelCall {
  const path = direction === 'PAY_IN' ? `/standard/v1/payments/${encodeURIComponent(id)}` : `/standard/v1/disbursements/${encodeURIComponent(id)}`;
  return { method: 'GET', path, country, currency };
}

/**
 * The PIN encrypted with Airtel's RSA public key (PKCS#1 v1.5, as Airtel's SDKs do), base64.
 * `publicKey`: base64 DER (as the portal shows it) or PEM.
 */
export function encryptAirtelPin(pin: string, publicKey: string): string {
  const key = publicKey.includes('BEGIN') ? publicKey : `-----BEGIN PUBLIC KEY-----\n${publicKey.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n')}\n-----END PUBLIC KEY-----\n`;
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(pin, 'utf8')).toString('base64');
}

/** `status.success` of Airtel's envelope, or undefined. */
function isSuccess(json: unknown): boolean | undefined {
  const status = (json as { status?: { success?: unknown } } | undefined)?.status;
  return typeof status?.success === 'boolean' ? status.success : undefined;
}

/**
 * The answer to a collection or disbursement: 2xx with `status.success` true is ACCEPTED (the
 * push or the transfer is under way); anything else is unknown (the enquiry decides), since
 * Airtel documents no synchronous refusal that proves nothing was created — except the
 * disbursement wallet's "not enough balance" (`AIRTEL_WALLET_SHORT_CODE`), FAILED
 * `MERCHANT_INSUFFICIENT_FUNDS`: no money moved, and the pay-out waits for float.
 */
export function airtelInitiateResult(status: number, json: unknown, id: string): InitiateResult {
  if (responseCodeOf(json) === AIRTEL_WALLET_SHORT_CODE) {
    const message = (json as { status?: { message?: unknown } }).status?.message;
    return { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: typeof message === 'string' ? message : 'Airtel: not enough balance in the disbursement wallet' };
  }
  if (status >= 200 && status < 300 && isSuccess(json) === true) return { kind: 'ACCEPTED', operatorReference: id };
  return { kind: 'UNREACHABLE', error: `Airtel initiation: HTTP ${status} ${JSON.stringify(json ?? null).slice(0, 200)}` };
}

/**
 * The enquiry's answer read through `AIRTEL_STATUSES` (pay-ins) or `AIRTEL_PAY_OUT_STATUSES`;
 * `airtel_money_id` is Airtel's id of the money movement. A 404 is "no record", which the
 * caller's `isUnknownInitiation` alone may take as NOT_FOUND. A pay-out's `TF` whose envelope
 * carries `AIRTEL_WALLET_SHORT_CODE` is the wallet short: `MERCHANT_INSUFFICIENT_FUNDS`.
 */
export function airtelStatusResult(status: number, json: unknown, direction: 'PAY_IN' | 'PAY_OUT', isUnknownInitiation: boolean): StatusResult {
  if (status === 404) return isUnknownInitiation ? { kind: 'NOT_FOUND' } : { kind: 'PENDING' };
  if (status !== 200) return { kind: 'UNREACHABLE', error: `Airtel enquiry: HTTP ${status}` };
  const transaction = (json as { data?: { transaction?: { status?: unknown; message?: unknown; airtel_money_id?: unknown } } } | undefined)?.data?.transaction;
  const code = typeof transaction?.status === 'string' ? transaction.status : null;
  const reason = typeof transaction?.message === 'string' ? transaction.message : `Airtel status ${code ?? 'absent'}`;
  const moneyId = typeof transaction?.airtel_money_id === 'string' ? transaction.airtel_money_id : null;
  if (direction === 'PAY_OUT' && code === 'TF' && responseCodeOf(json) === AIRTEL_WALLET_SHORT_CODE) {
    return { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: reason };
  }
  return documentedOutcome(direction === 'PAY_IN' ? AIRTEL_STATUSES : AIRTEL_PAY_OUT_STATUSES, code, reason, { operatorReference: null, operatorTransactionId: moneyId });
}

/**
 * `POST /standard/v1/payments/refund`: refunds, in full, the collection Airtel knows as
 * `airtelMoneyId` (its `airtel_money_id`, as the enquiry and the callback gave it). The body
 * names nothing of ours: the payment's id is the only key, and Airtel refunds a payment once.
 */
export function airtelRefundCall(airtelMoneyId: string, country: string, currency: string): AirtelCall {
  return { method: 'POST', path: '/standard/v1/payments/refund', country, currency, body: JSON.stringify({ transaction: { airtel_money_id: airtelMoneyId } }) };
}

/**
 * Reads the refund's answer `200 {"data": {"transaction": {"airtel_money_id": "…", "status":
 * "SUCCESS"}}, "status": {"code": "200", "result_code": "ESB000010", "success": true}}` (the
 * answer Airtel's documentation shows): SUCCEEDED, with the answer's `airtel_money_id` as the
 * refund's own id when it is not `paymentMoneyId` (the refunded payment's, echoed back). Airtel
 * documents no refusal of a refund, so anything else — another HTTP status, `success` false, a
 * status other than SUCCESS, no body — is unknown (UNREACHABLE): the money stays where it is and
 * Kolo asks again.
 */
export function airtelRefundResult(status: number, json: unknown, paymentMoneyId: string): StatusResult {
  const transaction = (json as { data?: { transaction?: { status?: unknown; airtel_money_id?: unknown } } } | undefined)?.data?.transaction;
  if (status === 200 && isSuccess(json) === true && typeof transaction?.status === 'string' && transaction.status.toUpperCase() === 'SUCCESS') {
    // The refund's own id when Airtel gives one; the payment's echoed back names no new movement.
    const moneyId = typeof transaction.airtel_money_id === 'string' && transaction.airtel_money_id !== paymentMoneyId ? transaction.airtel_money_id : null;
    return { kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: moneyId };
  }
  return { kind: 'UNREACHABLE', error: `Airtel refund: HTTP ${status} ${JSON.stringify(json ?? null).slice(0, 200)}` };
}

/** `GET /standard/v1/users/balance`: the balance of the application's wallet in `country`. */
export function airtelBalanceCall(country: string, currency: string): AirtelCall {
  return { method: 'GET', path: '/standard/v1/users/balance', country, currency };
}

/**
 * Reads the balance answer `200 {"data": {"balance": "5000.00", "currency": "XAF",
 * "account_status": "Active"}, "status": {…, "success": true}}` (fields also accepted at the top
 * level, as the reference lists them): `balance` in major units (string or number), converted to
 * base units of `currency`. Anything else — another HTTP status, `success` false, an unparseable
 * amount — is UNKNOWN with why.
 */
export function airtelBalanceResult(status: number, json: unknown): BalanceResult {
  const record = json as { data?: Record<string, unknown> } & Record<string, unknown> | undefined;
  const fields = (record?.data && typeof record.data === 'object' ? record.data : record) ?? {};
  const raw = fields.balance;
  const balance = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : null;
  const currency = typeof fields.currency === 'string' ? fields.currency : null;
  if (status !== 200 || isSuccess(json) === false || balance === null || currency === null || !/^-?\d+(\.\d{1,2})?$/.test(balance)) {
    return { kind: 'UNKNOWN', error: `Airtel balance: HTTP ${status} ${JSON.stringify(json ?? null).slice(0, 200)}` };
  }
  return { kind: 'BALANCE', amount: Math.round(Number(balance) * 10 ** baseUnitDigits(currency)), currency };
}

/**
 * Airtel's callback hash: HMAC-SHA256, base64, of the callback's `transaction` object as JSON,
 * with the application's callback key ("callback authentication" of the Airtel portal).
 */
export function airtelCallbackHash(transaction: unknown, key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(transaction)).digest('base64');
}

/** True when `body.hash` is the hash of `body.transaction` under `key` (constant time). */
export function isAirtelCallbackAuthentic(body: unknown, key: string): boolean {
  const b = body as { transaction?: unknown; hash?: unknown } | undefined;
  if (!b || typeof b.hash !== 'string' || b.transaction === undefined) return false;
  const expected = Buffer.from(airtelCallbackHash(b.transaction, key));
  const given = Buffer.from(b.hash);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Why a callback body is refused (null: accepted): not JSON naming a transaction, or — when
 * callback authentication is on (`key` set) — a `hash` that does not verify. An accepted callback
 * only triggers an enquiry.
 */
export function airtelCallbackProblem(raw: Buffer, key: string | null): string | null {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (airtelCallbackReference(body) === null) return 'body names no transaction';
  if (key !== null && !isAirtelCallbackAuthentic(body, key)) return 'hash does not verify';
  return null;
}

/** Our reference a callback names (`transaction.id`), or null. */
export function airtelCallbackReference(body: unknown): string | null {
  const id = (body as { transaction?: { id?: unknown } } | undefined)?.transaction?.id;
  return typeof id === 'string' && id.length > 0 ? id : null;
}
