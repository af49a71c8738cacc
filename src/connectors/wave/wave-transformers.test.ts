/**
 * Wave transformers on the payloads Wave documents (Checkout API, Payout API, Webhooks): the
 * session object captured live, payout objects and errors, every documented refusal code, request
 * bodies (strings for amounts, E.164 numbers, our reference as client_reference and
 * idempotency-key) and the `Wave-Signature` scheme (t + raw body, several v1, constant-time, stale
 * refused).
 */
import { describe, expect, it } from 'vitest';
import type { InitiateRequest } from '../connector.ts';
import {
  checkoutSessionCall,
  payoutCall,
  payoutStatus,
  sessionStatus,
  WAVE_ERROR_TABLE,
  waveCreateResult,
  waveGetResult,
  waveSignature,
  waveSignatureProblem,
} from './wave-transformers.ts';

const session = {
  id: 'cos-1ya2rewh0139m',
  amount: '125',
  currency: 'XOF',
  checkout_status: 'complete',
  payment_status: 'succeeded',
  client_reference: null,
  business_name: '…',
  transaction_id: 'TRG7XHH6UNR2SOACI',
  last_payment_error: null,
  success_url: '…',
  error_url: '…',
  wave_launch_url: 'https://pay.wave.com/c/cos-1ya2rewh0139m?a=125&c=XOF&m=…',
  when_created: '2025-06-25T16:55:44Z',
  when_expires: '2025-06-25T17:25:44Z',
  when_completed: '2025-06-25T16:56:03Z',
};

const request: InitiateRequest = {
  direction: 'PAY_IN',
  reference: 'PI-ABC123',
  rail: { code: 'WAVE_SN', operator: 'WAVE', country: 'SN', currency: 'XOF' },
  amount: 1000,
  currency: 'XOF',
  msisdn: '221761110001',
  description: 'Commande 42',
  initiatedAt: new Date(),
  operatorReference: 'PI-ABC123',
  callbackUrl: null,
  returnUrl: 'https://kolo.example/checkout/cs_x',
};

describe('Wave wire format', () => {
  it('checkout session: amount as a string, our reference as client_reference, payer locked in E.164', () => {
    const call = checkoutSessionCall(request, request.returnUrl!);
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', api: 'checkout' });
    expect(JSON.parse(call.body!)).toEqual({
      amount: '1000',
      currency: 'XOF',
      success_url: 'https://kolo.example/checkout/cs_x',
      error_url: 'https://kolo.example/checkout/cs_x',
      client_reference: 'PI-ABC123',
      restrict_payer_mobile: '+221761110001',
    });
  });

  it('payout: idempotency-key and client_reference are our reference; receive_amount is a string', () => {
    const call = payoutCall({ ...request, direction: 'PAY_OUT', reference: 'PO-1' });
    expect(call.headers['idempotency-key']).toBe('PO-1');
    expect(JSON.parse(call.body!)).toMatchObject({ currency: 'XOF', receive_amount: '1000', mobile: '+221761110001', client_reference: 'PO-1' });
  });
});

describe('Wave statuses', () => {
  it('the documented session: succeeded → SUCCEEDED with the transaction_id; creation answer carries the launch URL', () => {
    expect(sessionStatus(session)).toEqual({ kind: 'SUCCEEDED', operatorReference: 'cos-1ya2rewh0139m', operatorTransactionId: 'TRG7XHH6UNR2SOACI' });
    const open = { ...session, checkout_status: 'open', payment_status: 'processing', transaction_id: null, when_completed: null };
    expect(waveCreateResult(200, open, 'PAY_IN')).toEqual({ kind: 'ACCEPTED', operatorReference: 'cos-1ya2rewh0139m', redirectUrl: session.wave_launch_url });
    expect(sessionStatus(open)).toEqual({ kind: 'PENDING' });
    // A failed attempt alone does not end the session.
    expect(sessionStatus({ ...open, last_payment_error: { code: 'insufficient-funds', message: 'x' } })).toEqual({ kind: 'PENDING' });
    expect(sessionStatus({ ...open, checkout_status: 'expired', last_payment_error: { code: 'insufficient-funds', message: 'x' } })).toEqual({
      kind: 'FAILED',
      failureCode: 'TIMEOUT',
      failureReason: 'Wave expired after insufficient-funds: x',
    });
    expect(sessionStatus({ ...open, payment_status: 'cancelled' })).toMatchObject({ failureCode: 'REJECTED_BY_PAYER' });
  });

  it('payouts: succeeded, processing, failed by error code, reversed', () => {
    const payout = { id: 'pt-1', currency: 'XOF', receive_amount: '5000', fee: '50', mobile: '+221761110001', client_reference: 'PO-1', status: 'succeeded', payout_error: null };
    expect(payoutStatus(payout)).toEqual({ kind: 'SUCCEEDED', operatorReference: 'pt-1', operatorTransactionId: 'pt-1' });
    expect(payoutStatus({ ...payout, status: 'processing' })).toEqual({ kind: 'PENDING' });
    expect(payoutStatus({ ...payout, status: 'failed', payout_error: { error_code: 'recipient-account-blocked', error_message: 'blocked' } })).toEqual({
      kind: 'FAILED',
      failureCode: 'ACCOUNT_BLOCKED',
      failureReason: 'Wave recipient-account-blocked: blocked',
    });
    expect(waveCreateResult(200, { ...payout, status: 'failed', payout_error: { error_code: 'insufficient-funds', error_message: 'x' } }, 'PAY_OUT')).toMatchObject({
      failureCode: 'MERCHANT_INSUFFICIENT_FUNDS',
    });
    expect(payoutStatus({ ...payout, status: 'reversed' })).toMatchObject({ kind: 'FAILED' });
    // `failed` is Wave's verdict: an error code it does not document keeps its text under PROVIDER_ERROR.
    expect(payoutStatus({ ...payout, status: 'failed', payout_error: { error_code: 'brand-new', error_message: 'new' } })).toEqual({
      kind: 'FAILED',
      failureCode: 'PROVIDER_ERROR',
      failureReason: 'Wave brand-new: new',
    });
  });

  it('an undocumented status or an unreadable object is unknown, never a failure', () => {
    const payout = { id: 'pt-1', status: 'on-hold' };
    expect(payoutStatus(payout).kind).toBe('UNREACHABLE');
    expect(payoutStatus({}).kind).toBe('UNREACHABLE');
    expect(payoutStatus('garbage').kind).toBe('UNREACHABLE');
    expect(waveCreateResult(200, payout, 'PAY_OUT').kind).toBe('UNREACHABLE');
    expect(sessionStatus({ ...session, payment_status: 'refunded' }).kind).toBe('UNREACHABLE');
    expect(sessionStatus({ ...session, payment_status: 'processing', checkout_status: 'paused' }).kind).toBe('UNREACHABLE');
    expect(sessionStatus(undefined).kind).toBe('UNREACHABLE');
    expect(waveGetResult(200, 'garbage', 'PAY_IN').kind).toBe('UNREACHABLE');
  });

  it('errors: 4xx envelopes mapped, 5xx/429 ambiguous, 404 NOT_FOUND on GET', () => {
    expect(waveCreateResult(401, { code: 'no-matching-api-key', message: 'x' }, 'PAY_IN')).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(waveCreateResult(409, { code: 'idempotency-mismatch', message: 'x' }, 'PAY_OUT')).toMatchObject({ failureCode: 'INVALID_REQUEST' });
    expect(waveCreateResult(500, { code: 'internal-server-error', message: 'x' }, 'PAY_IN')).toMatchObject({ kind: 'UNREACHABLE' });
    expect(waveCreateResult(429, { code: 'too-many-requests', message: 'x' }, 'PAY_OUT')).toMatchObject({ kind: 'UNREACHABLE' });
    expect(waveCreateResult(503, { code: 'service-unavailable', message: 'x' }, 'PAY_OUT')).toMatchObject({ kind: 'UNREACHABLE' });
    // A 4xx code Wave does not document refuses nothing for certain.
    expect(waveCreateResult(400, { code: 'brand-new-error', message: 'x' }, 'PAY_IN')).toMatchObject({ kind: 'UNREACHABLE' });
    expect(waveCreateResult(400, { code: '__proto__', message: 'x' }, 'PAY_OUT')).toMatchObject({ kind: 'UNREACHABLE' });
    expect(waveGetResult(404, { code: 'checkout-session-not-found', message: 'x' }, 'PAY_IN')).toEqual({ kind: 'NOT_FOUND' });
  });

  // Every documented refusal code, row by row: [code, pay-in, pay-out].
  const ROWS: [string, string, string][] = [
    ['insufficient-funds', 'INSUFFICIENT_FUNDS', 'MERCHANT_INSUFFICIENT_FUNDS'],
    ['blocked-account', 'ACCOUNT_BLOCKED', 'ACCOUNT_BLOCKED'],
    ['recipient-account-blocked', 'ACCOUNT_BLOCKED', 'ACCOUNT_BLOCKED'],
    ['recipient-account-inactive', 'ACCOUNT_INACTIVE', 'ACCOUNT_INACTIVE'],
    ['recipient-limit-exceeded', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'],
    ['kyb-limits-exceeded', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'],
    ['recipient-minor', 'PAYEE_NOT_ALLOWED', 'PAYEE_NOT_ALLOWED'],
    ['customer-age-restricted', 'PAYEE_NOT_ALLOWED', 'PAYEE_NOT_ALLOWED'],
    ['cross-border-payment-not-allowed', 'PAYEE_NOT_ALLOWED', 'PAYEE_NOT_ALLOWED'],
    ['payer-mobile-mismatch', 'REJECTED_BY_PAYER', 'REJECTED_BY_PAYER'],
    ['country-mismatch', 'INVALID_REQUEST', 'INVALID_REQUEST'],
    ['currency-mismatch', 'INVALID_REQUEST', 'INVALID_REQUEST'],
    ['request-validation-error', 'INVALID_REQUEST', 'INVALID_REQUEST'],
    ['idempotency-mismatch', 'INVALID_REQUEST', 'INVALID_REQUEST'],
    ['no-matching-api-key', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['disabled-wallet', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['unauthorized-wallet', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['payment-failure', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
  ];
  it.each(ROWS)('a 4xx %s refuses: %s (pay-in) / %s (pay-out), Wave text kept', (code, payIn, payOut) => {
    expect(waveCreateResult(400, { code, message: 'm' }, 'PAY_IN')).toEqual({ kind: 'FAILED', failureCode: payIn, failureReason: `Wave ${code}: m` });
    expect(waveCreateResult(400, { code, message: 'm' }, 'PAY_OUT')).toEqual({ kind: 'FAILED', failureCode: payOut, failureReason: `Wave ${code}: m` });
  });

  it('the mapping table covers every documented refusal code, and no code that refuses nothing for certain', () => {
    const documented = [
      'insufficient-funds', 'blocked-account', 'recipient-account-blocked', 'recipient-account-inactive', 'recipient-limit-exceeded',
      'kyb-limits-exceeded', 'recipient-minor', 'customer-age-restricted', 'cross-border-payment-not-allowed', 'payer-mobile-mismatch',
      'country-mismatch', 'currency-mismatch', 'request-validation-error', 'idempotency-mismatch', 'missing-auth-header', 'invalid-auth',
      'api-key-not-provided', 'no-matching-api-key', 'api-key-revoked', 'invalid-wallet', 'disabled-wallet', 'unauthorized-wallet',
      'payment-failure',
    ];
    for (const code of documented) expect(WAVE_ERROR_TABLE[code], code).toBeDefined();
    expect(WAVE_ERROR_TABLE['insufficient-funds']).toEqual({ payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS' });
    expect(WAVE_ERROR_TABLE['recipient-minor']!.payOut).toBe('PAYEE_NOT_ALLOWED');
    for (const code of ['too-many-requests', 'service-unavailable', 'internal-server-error']) expect(WAVE_ERROR_TABLE[code], code).toBeUndefined();
  });
});

describe('Wave-Signature', () => {
  const secret = 'wave_sn_WHS_xyz';
  const body = Buffer.from('{"id":"AE_1","type":"checkout.session.completed","data":{}}');
  const now = 1_750_000_000_000;
  it('accepts t + raw body signed with the secret, among several v1', () => {
    const header = waveSignature(body, secret, now / 1000);
    expect(waveSignatureProblem(header, body, secret, now)).toBeNull();
    expect(waveSignatureProblem(`${header.split(',')[0]},v1=${'a'.repeat(64)},${header.split(',')[1]}`, body, secret, now)).toBeNull();
  });
  it('refuses missing, malformed, stale, tampered or wrongly keyed signatures', () => {
    expect(waveSignatureProblem(undefined, body, secret, now)).toBe('missing Wave-Signature');
    expect(waveSignatureProblem('v1=abc', body, secret, now)).toBe('malformed Wave-Signature');
    expect(waveSignatureProblem(waveSignature(body, secret, now / 1000 - 3600), body, secret, now)).toBe('stale Wave-Signature timestamp');
    expect(waveSignatureProblem(waveSignature(body, secret, now / 1000), Buffer.from(`${body} `), secret, now)).toBe('Wave-Signature does not match');
    expect(waveSignatureProblem(waveSignature(body, 'other', now / 1000), body, secret, now)).toBe('Wave-Signature does not match');
  });
});
