/**
 * Orange Money Web Payment transformers (Orange's "OM WebPay" API, developer.orange.com;
 * reference/operators.md §2A, reference/more-operators.md): pure functions between our types and
 * Orange's wire format — the web payment's creation (`POST …/webpayment` → `pay_token`,
 * `payment_url`, `notif_token`), its status (`POST …/transactionstatus`), the notification Orange
 * posts to `notif_url` (`{status, notif_token, txnid}`, unsigned: authenticated by comparing
 * `notif_token` with the one the creation answered) and the table of documented statuses. No I/O.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { documentedOutcome, type DocumentedMeaning, type InitiateRequest, type StatusResult } from '../connector.ts';
import { stringField } from '../operator-http.ts';

/** An Orange Web Payment request ready to send (the plumbing adds the host and `Authorization`). */
export interface WebpayCall {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Orange's sandbox currency (a fictitious unit), used instead of the market's in the development environment. */
export const WEBPAY_DEV_CURRENCY = 'OUV';

/**
 * Longest `order_id` sent. Orange documents 30 characters; one integrator reports a hard limit
 * of 24 in a market (reference/operators.md §2A), so Kolo stays within 24.
 */
export const WEBPAY_ORDER_ID_MAX = 24;

/** Longest `reference` (the merchant name shown on Orange's page), characters. */
export const WEBPAY_REFERENCE_MAX = 30;

/**
 * The API's path prefix: `/orange-money-webpay/<country, lower case>/v1` in production,
 * `/orange-money-webpay/dev/v1` in the development environment (the environment is in the path).
 */
export function webpayPrefix(country: string, isDev: boolean): string {
  return `/orange-money-webpay/${isDev ? 'dev' : country.toLowerCase()}/v1`;
}

/**
 * The `order_id` sent for `reference`: the reference itself when it fits in
 * `WEBPAY_ORDER_ID_MAX` characters (`PI-` + 12 hex, a checkout attempt's `PI-…-1`), else `K` +
 * the first 23 hex digits of its SHA-256, deterministic so the status query names the same order.
 */
export function webpayOrderId(reference: string): string {
  if (reference.length <= WEBPAY_ORDER_ID_MAX) return reference;
  return `K${createHash('sha256').update(reference).digest('hex').slice(0, WEBPAY_ORDER_ID_MAX - 1)}`;
}

/** What the creation needs besides the request: the wallet's merchant key and currency, the customer's language. */
export interface WebpayMerchantCall {
  prefix: string;
  merchantKey: string;
  /** The currency sent: the market's, or `OUV` in the development environment. */
  currency: string;
  /** `fr` or `en`: the language of Orange's payment page. */
  lang: 'fr' | 'en';
}

/**
 * `POST {prefix}/webpayment`: `amount` an integer of the currency's major unit (every Web Payment
 * currency has no minor unit, so it is our base-unit amount), `order_id` our reference
 * (`webpayOrderId`), `return_url` and `cancel_url` where Orange sends the customer back (the
 * hosted checkout page), `notif_url` our per-transaction callback URL, `reference` the name shown
 * on Orange's page (the description, at most 30 characters).
 */
export function webpaymentCall(request: InitiateRequest, returnUrl: string, notifUrl: string, merchant: WebpayMerchantCall): WebpayCall {
  return {
    method: 'POST',
    path: `${merchant.prefix}/webpayment`,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      merchant_key: merchant.merchantKey,
      currency: merchant.currency,
      order_id: webpayOrderId(request.reference),
      amount: request.amount,
      return_url: returnUrl,
      cancel_url: returnUrl,
      notif_url: notifUrl,
      lang: merchant.lang,
      reference: (request.description ?? request.reference).slice(0, WEBPAY_REFERENCE_MAX),
    }),
  };
}

/** A created web payment: its `pay_token`, the page the customer pays on, and the token its notification will carry. */
export interface CreatedWebpayment {
  kind: 'CREATED';
  payToken: string;
  paymentUrl: string;
  notifToken: string;
}

/**
 * Reads the creation's answer: `201 {status: 201, message: "OK", pay_token, payment_url,
 * notif_token}` → CREATED. A documented refusal — 400 (a field refused), 401 (credentials) or 403
 * (merchant key, or an `order_id` used before) — is FAILED: no payment exists, so no page the
 * customer could pay. A 5xx, a 429, another status or a 201 missing a field is UNREACHABLE.
 */
export function webpaymentResult(
  status: number,
  json: unknown,
): CreatedWebpayment | { kind: 'FAILED'; failureCode: 'INVALID_REQUEST' | 'CONFIGURATION_ERROR'; failureReason: string } | { kind: 'UNREACHABLE'; error: string } {
  const detail = stringField(json, 'message') ?? stringField(json, 'description') ?? '';
  if (status === 201 || status === 200) {
    const payToken = stringField(json, 'pay_token');
    const paymentUrl = stringField(json, 'payment_url');
    const notifToken = stringField(json, 'notif_token');
    if (!payToken || !notifToken || !paymentUrl || !/^https?:\/\//i.test(paymentUrl)) {
      return { kind: 'UNREACHABLE', error: `Orange WebPay webpayment: HTTP ${status} without pay_token, payment_url or notif_token` };
    }
    return { kind: 'CREATED', payToken, paymentUrl, notifToken };
  }
  if (status === 400) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: `Orange WebPay HTTP 400: ${detail}`.trim() };
  if (status === 401 || status === 403) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: `Orange WebPay HTTP ${status}: ${detail}`.trim() };
  return { kind: 'UNREACHABLE', error: `Orange WebPay webpayment: HTTP ${status} ${detail}`.trim() };
}

/** `POST {prefix}/transactionstatus` `{order_id, amount, pay_token}` (the three together name the payment). */
export function webpayStatusCall(prefix: string, reference: string, amount: number, payToken: string): WebpayCall {
  return {
    method: 'POST',
    path: `${prefix}/transactionstatus`,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ order_id: webpayOrderId(reference), amount, pay_token: payToken }),
  };
}

/**
 * Orange's documented Web Payment statuses (reference/operators.md §2A and §2C): `INITIATED`
 * (waiting for the customer on the page) and `PENDING` (confirmed, Orange processing) are not
 * outcomes; `SUCCESS` is paid; `FAILED` (wrong OTP, late confirmation, other: no reason given) is
 * PROVIDER_ERROR; `EXPIRED` (the payment token's validity elapsed) is TIMEOUT. Any other status is
 * unknown.
 */
export const WEBPAY_STATUS_TABLE: Readonly<Record<string, DocumentedMeaning>> = {
  INITIATED: { kind: 'PENDING' },
  PENDING: { kind: 'PENDING' },
  SUCCESS: { kind: 'SUCCEEDED' },
  FAILED: { kind: 'FAILED', failureCode: 'PROVIDER_ERROR' },
  EXPIRED: { kind: 'FAILED', failureCode: 'TIMEOUT' },
};

/**
 * Reads the status answer, `201` (sic; 200 accepted too) `{status, order_id, txnid}`, through
 * `WEBPAY_STATUS_TABLE`: SUCCESS names the `pay_token` as operator reference and `txnid` (`MP…`,
 * the id on the customer's receipt) as the operator's transaction id. Any other HTTP status, an
 * undocumented status or an unreadable body is UNREACHABLE.
 */
export function webpayStatusResult(httpStatus: number, json: unknown, payToken: string): StatusResult {
  if (httpStatus !== 201 && httpStatus !== 200) {
    return { kind: 'UNREACHABLE', error: `Orange WebPay transactionstatus: HTTP ${httpStatus} ${stringField(json, 'message') ?? ''}`.trim() };
  }
  const status = stringField(json, 'status');
  return documentedOutcome(WEBPAY_STATUS_TABLE, status, `Orange WebPay ${status ?? ''}`.trim(), {
    operatorReference: payToken,
    operatorTransactionId: stringField(json, 'txnid') ?? null,
  });
}

/** A notification's fields (`{status: SUCCESS|FAILED, notif_token, txnid}`), or null when the body is not one. */
export function webpayNotification(body: unknown): { status: string | null; notifToken: string; txnid: string | null } | null {
  const notifToken = stringField(body, 'notif_token');
  if (!notifToken) return null;
  return { status: stringField(body, 'status') ?? null, notifToken, txnid: stringField(body, 'txnid') ?? null };
}

/**
 * Why a notification body is not Orange's for the payment whose creation answered `expected`
 * (`notif_token`), or null when its `notif_token` is that one (compared in constant time).
 * Orange signs nothing: this token is the only proof (reference/operators.md §2A).
 */
export function webpayNotificationProblem(body: unknown, expected: string | null): string | null {
  const notification = webpayNotification(body);
  if (!notification) return 'no notif_token in the notification';
  if (!expected) return 'no notif_token stored for this payment';
  const given = Buffer.from(notification.notifToken, 'utf8');
  const wanted = Buffer.from(expected, 'utf8');
  return given.length === wanted.length && timingSafeEqual(given, wanted) ? null : 'notif_token does not match';
}
