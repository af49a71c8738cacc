/**
 * Orange Money Web Payment transformers on the payloads Orange documents (reference/operators.md
 * §2A): the `webpayment` body (integer amount, our reference as `order_id` within 24 characters,
 * return/cancel/notif URLs, the path's environment), the creation's 201 answer and its refusals,
 * every documented status of `transactionstatus`, and the notification's `notif_token` check.
 */
import { describe, expect, it } from 'vitest';
import type { InitiateRequest } from '../connector.ts';
import {
  WEBPAY_ORDER_ID_MAX,
  webpayNotificationProblem,
  webpaymentCall,
  webpaymentResult,
  webpayOrderId,
  webpayPrefix,
  webpayStatusCall,
  webpayStatusResult,
} from './orange-webpay-transformers.ts';

const request: InitiateRequest = {
  direction: 'PAY_IN',
  reference: 'PI-0a1b2c3d4e5f-1',
  rail: { code: 'ORANGE_WEBPAY_CI', operator: 'ORANGE_MONEY', country: 'CI', currency: 'XOF' },
  amount: 5000,
  currency: 'XOF',
  msisdn: '2250700000001',
  description: 'Boutique Abidjan — commande 42 du 28 novembre',
  initiatedAt: new Date('2026-11-28T10:00:00Z'),
  operatorReference: 'PI-0a1b2c3d4e5f-1',
  callbackUrl: 'https://kolo.example/api/v1/callbacks/orange-money/ab12',
  returnUrl: 'https://kolo.example/checkout/cs_x',
};

const created = {
  status: 201,
  message: 'OK',
  pay_token: 'v1c2b0d6e4f9a8b7c6d5e4f3a2b1c0d9e8',
  payment_url: 'https://webpayment-qualif.orange-money.com/payment/pay_token/v1c2b0d6e4f9a8b7c6d5e4f3a2b1c0d9e8',
  notif_token: '7a2f5c1d9e8b4a3c6d0e1f2a3b4c5d6e',
};

describe('Orange Web Payment wire format', () => {
  it('webpayment: the market path, integer amount, our reference as order_id, return and cancel to the checkout, notif_url ours', () => {
    const call = webpaymentCall(request, request.returnUrl!, request.callbackUrl!, { prefix: webpayPrefix('CI', false), merchantKey: 'mk-ci', currency: 'XOF', lang: 'fr' });
    expect(call).toMatchObject({ method: 'POST', path: '/orange-money-webpay/ci/v1/webpayment' });
    expect(call.headers).toMatchObject({ 'Content-Type': 'application/json', Accept: 'application/json' });
    expect(JSON.parse(call.body)).toEqual({
      merchant_key: 'mk-ci',
      currency: 'XOF',
      order_id: 'PI-0a1b2c3d4e5f-1',
      amount: 5000,
      return_url: 'https://kolo.example/checkout/cs_x',
      cancel_url: 'https://kolo.example/checkout/cs_x',
      notif_url: 'https://kolo.example/api/v1/callbacks/orange-money/ab12',
      lang: 'fr',
      reference: 'Boutique Abidjan — commande 42',
    });
  });

  it('the development environment is in the path', () => {
    expect(webpayPrefix('SN', true)).toBe('/orange-money-webpay/dev/v1');
    expect(webpayPrefix('SN', false)).toBe('/orange-money-webpay/sn/v1');
  });

  it('order_id: the reference when it fits, else a stable digest within the limit', () => {
    expect(webpayOrderId('PI-0a1b2c3d4e5f-1')).toBe('PI-0a1b2c3d4e5f-1');
    const long = 'FC-0123456789abcdef0123456789abcdef';
    expect(webpayOrderId(long)).toHaveLength(WEBPAY_ORDER_ID_MAX);
    expect(webpayOrderId(long)).toBe(webpayOrderId(long));
    expect(webpayOrderId(long)).not.toBe(webpayOrderId(`${long}x`));
  });

  it('transactionstatus names the payment by order_id, amount and pay_token', () => {
    const call = webpayStatusCall('/orange-money-webpay/ci/v1', request.reference, 5000, created.pay_token);
    expect(call.path).toBe('/orange-money-webpay/ci/v1/transactionstatus');
    expect(JSON.parse(call.body)).toEqual({ order_id: 'PI-0a1b2c3d4e5f-1', amount: 5000, pay_token: created.pay_token });
  });
});

describe('Orange Web Payment answers', () => {
  it('201 creation → the pay_token, the page and the notif_token', () => {
    expect(webpaymentResult(201, created)).toEqual({ kind: 'CREATED', payToken: created.pay_token, paymentUrl: created.payment_url, notifToken: created.notif_token });
  });

  it('a 201 missing a field, a 5xx or a 429 is unknown; 400, 401 and 403 are refusals', () => {
    expect(webpaymentResult(201, { ...created, notif_token: undefined }).kind).toBe('UNREACHABLE');
    expect(webpaymentResult(201, { ...created, payment_url: 'javascript:alert(1)' }).kind).toBe('UNREACHABLE');
    expect(webpaymentResult(500, { message: 'Internal Server Error' }).kind).toBe('UNREACHABLE');
    expect(webpaymentResult(503, undefined).kind).toBe('UNREACHABLE');
    expect(webpaymentResult(429, undefined).kind).toBe('UNREACHABLE');
    expect(webpaymentResult(400, { code: 400, message: 'Bad Request', description: 'Invalid body field(s): amount' })).toEqual({
      kind: 'FAILED',
      failureCode: 'INVALID_REQUEST',
      failureReason: 'Orange WebPay HTTP 400: Bad Request',
    });
    expect(webpaymentResult(401, { code: 42, message: 'Expired credentials' })).toMatchObject({ kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });
    expect(webpaymentResult(403, { code: 403, message: 'Forbidden' })).toMatchObject({ kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });
  });

  it('every documented status: INITIATED and PENDING wait, SUCCESS pays with txnid, FAILED and EXPIRED fail', () => {
    const tok = created.pay_token;
    expect(webpayStatusResult(201, { status: 'INITIATED', order_id: 'PI-1', txnid: null }, tok)).toEqual({ kind: 'PENDING' });
    expect(webpayStatusResult(201, { status: 'PENDING', order_id: 'PI-1' }, tok)).toEqual({ kind: 'PENDING' });
    expect(webpayStatusResult(201, { status: 'SUCCESS', order_id: 'PI-1', txnid: 'MP261128.1010.A12345' }, tok)).toEqual({
      kind: 'SUCCEEDED',
      operatorReference: tok,
      operatorTransactionId: 'MP261128.1010.A12345',
    });
    expect(webpayStatusResult(200, { status: 'FAILED', order_id: 'PI-1' }, tok)).toEqual({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'Orange WebPay FAILED' });
    expect(webpayStatusResult(201, { status: 'EXPIRED', order_id: 'PI-1' }, tok)).toEqual({ kind: 'FAILED', failureCode: 'TIMEOUT', failureReason: 'Orange WebPay EXPIRED' });
  });

  it('an undocumented status, an unreadable body or a non-2xx answer is unknown, never a failure', () => {
    const tok = created.pay_token;
    expect(webpayStatusResult(201, { status: 'CANCELLED' }, tok).kind).toBe('UNREACHABLE');
    expect(webpayStatusResult(201, { status: 'SUCCESSFULL' }, tok).kind).toBe('UNREACHABLE');
    expect(webpayStatusResult(201, undefined, tok).kind).toBe('UNREACHABLE');
    expect(webpayStatusResult(400, { message: 'Missing body field OrderId' }, tok).kind).toBe('UNREACHABLE');
    expect(webpayStatusResult(500, { status: 'FAILED' }, tok).kind).toBe('UNREACHABLE');
  });
});

describe('Orange Web Payment notification', () => {
  const notification = { status: 'SUCCESS', notif_token: created.notif_token, txnid: 'MP261128.1010.A12345' };

  it('accepted only with the notif_token the creation answered', () => {
    expect(webpayNotificationProblem(notification, created.notif_token)).toBeNull();
    expect(webpayNotificationProblem({ ...notification, notif_token: 'f'.repeat(32) }, created.notif_token)).toBe('notif_token does not match');
    expect(webpayNotificationProblem({ ...notification, notif_token: 'short' }, created.notif_token)).toBe('notif_token does not match');
  });

  it('a body without notif_token, or a payment with none stored, is refused', () => {
    expect(webpayNotificationProblem({ status: 'SUCCESS', txnid: 'MP1' }, created.notif_token)).toBe('no notif_token in the notification');
    expect(webpayNotificationProblem(undefined, created.notif_token)).toBe('no notif_token in the notification');
    expect(webpayNotificationProblem(notification, null)).toBe('no notif_token stored for this payment');
  });
});
