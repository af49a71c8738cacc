/**
 * MTN transformers fed with the request/response examples of MTN's Open API documentation; asserts
 * the exact wire format we send (paths, headers, bodies) and how each documented answer reads.
 */
import { describe, expect, it } from 'vitest';
import type { InitiateRequest } from '../connector.ts';
import {
  MTN_INITIATION_REFUSALS,
  MTN_PAY_IN_REASONS,
  MTN_PAY_OUT_REASONS,
  MTN_REASONS,
  mtnAccountHolderCall,
  mtnAccountHolderResult,
  mtnAmount,
  mtnInitiateCall,
  mtnInitiateResult,
  mtnNote,
  mtnReasonOutcome,
  mtnStatusCall,
  mtnStatusResult,
  parseMtnReason,
} from './mtn-transformers.ts';

const REF = '2f0b0e8e-6a4c-4d8e-9a51-0d2b8a6f9c11';

const request = (overrides: Partial<InitiateRequest> = {}): InitiateRequest => ({
  direction: 'PAY_IN',
  reference: 'PI-0123456789AB',
  rail: { code: 'MTN_MOMO_CM', operator: 'MTN_MOMO', country: 'CM', currency: 'XAF' },
  amount: 100,
  currency: 'XAF',
  msisdn: '237677123450',
  description: 'Commande 42',
  initiatedAt: new Date('2026-11-20T10:00:00Z'),
  operatorReference: REF,
  callbackUrl: 'https://pay.example.cm/api/v1/callbacks/mtn-momo/abcdef0123456789',
  ...overrides,
});

describe('wire format of what we send', () => {
  it('requesttopay: path, headers and body (amount a string, MSISDN without +)', () => {
    const call = mtnInitiateCall(request(), 'mtncameroon');
    expect(call).toEqual({
      product: 'collection',
      method: 'POST',
      path: '/collection/v1_0/requesttopay',
      headers: {
        'X-Reference-Id': REF,
        'X-Target-Environment': 'mtncameroon',
        'X-Callback-Url': 'https://pay.example.cm/api/v1/callbacks/mtn-momo/abcdef0123456789',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        amount: '100',
        currency: 'XAF',
        externalId: 'PI-0123456789AB',
        payer: { partyIdType: 'MSISDN', partyId: '237677123450' },
        payerMessage: 'Commande 42',
        payeeNote: 'Commande 42',
      }),
    });
  });

  it('transfer: the same with payee, on the disbursement product', () => {
    const call = mtnInitiateCall(request({ direction: 'PAY_OUT', reference: 'PO-0123456789AB', amount: 5000 }), 'mtncameroon');
    expect(call.product).toBe('disbursement');
    expect(call.path).toBe('/disbursement/v1_0/transfer');
    expect(JSON.parse(call.body!)).toEqual({
      amount: '5000',
      currency: 'XAF',
      externalId: 'PO-0123456789AB',
      payee: { partyIdType: 'MSISDN', partyId: '237677123450' },
      payerMessage: 'Commande 42',
      payeeNote: 'Commande 42',
    });
  });

  it('never sends an empty X-Callback-Url (MTN refuses it): no header without a URL', () => {
    expect(mtnInitiateCall(request({ callbackUrl: null }), 'sandbox').headers).not.toHaveProperty('X-Callback-Url');
  });

  it('status and account-holder paths', () => {
    expect(mtnStatusCall('PAY_IN', REF, 'mtncameroon')).toEqual({
      product: 'collection',
      method: 'GET',
      path: `/collection/v1_0/requesttopay/${REF}`,
      headers: { 'X-Target-Environment': 'mtncameroon' },
    });
    expect(mtnStatusCall('PAY_OUT', REF, 'mtncameroon').path).toBe(`/disbursement/v1_0/transfer/${REF}`);
    expect(mtnAccountHolderCall('237677123450', 'mtncameroon').path).toBe('/disbursement/v1_0/accountholder/msisdn/237677123450/active');
  });

  it('amounts as MTN wants them: whole francs for XAF, two decimals for currencies with a minor unit', () => {
    expect(mtnAmount(5000, 'XAF')).toBe('5000');
    expect(mtnAmount(1250, 'GHS')).toBe('12.50');
    expect(mtnAmount(5, 'EUR')).toBe('0.05');
    expect(mtnAmount(2_000_000, 'GHS')).toBe('20000.00');
    expect(mtnAmount(0, 'GHS')).toBe('0.00');
    expect(mtnAmount(150_000, 'UGX')).toBe('150000');
    expect(mtnAmount(12_345, 'RWF')).toBe('12345');
    expect(() => mtnAmount(1.5, 'XAF')).toThrow();
  });

  it('notes: at most 160 characters, no apostrophe (MTN answers 400), accents kept, reference when empty', () => {
    expect(mtnNote("Commande d'Awa <42>", 'PI-1')).toBe('Commande d Awa 42');
    expect(mtnNote('Café é', 'PI-1')).toBe('Café é');
    expect(mtnNote('x'.repeat(200), 'PI-1')).toHaveLength(160);
    expect(mtnNote(null, 'PI-1')).toBe('PI-1');
    expect(mtnNote("'''", 'PI-1')).toBe('PI-1');
  });
});

describe('reading MTN answers', () => {
  it('202 and 409 RESOURCE_ALREADY_EXIST both mean created', () => {
    expect(mtnInitiateResult(202, undefined, 'PAY_IN', REF)).toEqual({ kind: 'ACCEPTED', operatorReference: REF });
    const duplicate = { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' };
    expect(mtnInitiateResult(409, duplicate, 'PAY_IN', REF)).toEqual({ kind: 'ACCEPTED', operatorReference: REF });
  });

  it('400 is INVALID_REQUEST, 401/403 CONFIGURATION_ERROR, documented 500 declines are declines, other 5xx ambiguous', () => {
    expect(mtnInitiateResult(400, undefined, 'PAY_IN', REF)).toMatchObject({ kind: 'FAILED', failureCode: 'INVALID_REQUEST' });
    expect(mtnInitiateResult(401, { statusCode: 401, message: 'Access denied' }, 'PAY_IN', REF)).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(mtnInitiateResult(403, { code: 'FORBIDDEN IP' }, 'PAY_OUT', REF)).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(mtnInitiateResult(500, { code: 'PAYER_NOT_FOUND', message: 'Payer not found' }, 'PAY_IN', REF)).toEqual({
      kind: 'FAILED',
      failureCode: 'PAYER_NOT_FOUND',
      failureReason: 'MTN PAYER_NOT_FOUND: Payer not found',
    });
    expect(mtnInitiateResult(500, { code: 'NOT_ENOUGH_FUNDS' }, 'PAY_OUT', REF)).toMatchObject({ failureCode: 'MERCHANT_INSUFFICIENT_FUNDS' });
    expect(mtnInitiateResult(500, { code: 'INTERNAL_PROCESSING_ERROR' }, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
    expect(mtnInitiateResult(503, { code: 'SERVICE_UNAVAILABLE' }, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
    expect(mtnInitiateResult(500, undefined, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
    expect(mtnInitiateResult(429, undefined, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
    expect(mtnInitiateResult(502, 'Bad Gateway', 'PAY_OUT', REF).kind).toBe('UNREACHABLE');
  });

  // MTN's Request to Pay and Transfer pages: "production may reject synchronously".
  const SYNC_REFUSALS: ['PAY_IN' | 'PAY_OUT', string, string][] = [
    ['PAY_IN', 'NOT_ALLOWED', 'CONFIGURATION_ERROR'],
    ['PAY_IN', 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'CONFIGURATION_ERROR'],
    ['PAY_IN', 'INVALID_CALLBACK_URL_HOST', 'CONFIGURATION_ERROR'],
    ['PAY_IN', 'INVALID_CURRENCY', 'CONFIGURATION_ERROR'],
    ['PAY_IN', 'PAYER_NOT_FOUND', 'PAYER_NOT_FOUND'],
    ['PAY_IN', 'PAYEE_NOT_ALLOWED_TO_RECEIVE', 'PAYEE_NOT_ALLOWED'],
    ['PAY_OUT', 'NOT_ALLOWED', 'CONFIGURATION_ERROR'],
    ['PAY_OUT', 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'CONFIGURATION_ERROR'],
    ['PAY_OUT', 'INVALID_CALLBACK_URL_HOST', 'CONFIGURATION_ERROR'],
    ['PAY_OUT', 'INVALID_CURRENCY', 'CONFIGURATION_ERROR'],
    ['PAY_OUT', 'NOT_ENOUGH_FUNDS', 'MERCHANT_INSUFFICIENT_FUNDS'],
    ['PAY_OUT', 'PAYER_LIMIT_REACHED', 'LIMIT_EXCEEDED'],
    ['PAY_OUT', 'PAYEE_NOT_FOUND', 'PAYEE_NOT_FOUND'],
  ];
  it.each(SYNC_REFUSALS)('%s: a synchronous 500 %s is a definite %s', (direction, code, failureCode) => {
    expect(mtnInitiateResult(500, { code, message: 'refused' }, direction, REF)).toEqual({ kind: 'FAILED', failureCode, failureReason: `MTN ${code}: refused` });
  });

  it('the synchronous refusals are exactly the documented rows; other codes on a 5xx are unknown', () => {
    expect(Object.keys(MTN_INITIATION_REFUSALS.PAY_IN).length + Object.keys(MTN_INITIATION_REFUSALS.PAY_OUT).length).toBe(SYNC_REFUSALS.length);
    for (const code of ['INTERNAL_PROCESSING_ERROR', 'SERVICE_UNAVAILABLE', 'APPROVAL_REJECTED', 'PAYER_NOT_FOUND', 'BRAND_NEW']) {
      expect(mtnInitiateResult(500, { code }, 'PAY_OUT', REF).kind, code).toBe('UNREACHABLE');
    }
    expect(mtnInitiateResult(500, { code: 'NOT_ENOUGH_FUNDS' }, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
  });

  it('the documented status example: SUCCESSFUL → SUCCEEDED under our X-Reference-Id', () => {
    const body = {
      financialTransactionId: '1530828708',
      externalId: 'our-txn-id',
      amount: '100',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: '46733123450' },
      payerMessage: '…',
      payeeNote: '…',
      status: 'SUCCESSFUL',
    };
    expect(mtnStatusResult(200, body, 'PAY_IN', REF)).toEqual({ kind: 'SUCCEEDED', operatorReference: REF, operatorTransactionId: '1530828708' });
    const { financialTransactionId: _f, ...withoutId } = body;
    expect(mtnStatusResult(200, withoutId, 'PAY_OUT', REF)).toEqual({ kind: 'SUCCEEDED', operatorReference: REF, operatorTransactionId: null });
  });

  it('FAILED with the reason as a string (current platform) or as {code, message} (swagger)', () => {
    expect(mtnStatusResult(200, { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }, 'PAY_IN', REF)).toEqual({
      kind: 'FAILED',
      failureCode: 'INSUFFICIENT_FUNDS',
      failureReason: 'MTN NOT_ENOUGH_FUNDS',
    });
    expect(mtnStatusResult(200, { status: 'FAILED', reason: { code: 'PAYEE_NOT_FOUND', message: 'Payee does not exist' } }, 'PAY_OUT', REF)).toEqual({
      kind: 'FAILED',
      failureCode: 'PAYEE_NOT_FOUND',
      failureReason: 'MTN PAYEE_NOT_FOUND: Payee does not exist',
    });
    expect(parseMtnReason('')).toBeNull();
  });

  it('PENDING, CREATED and ONGOING / *_DELAYED reasons stay PENDING', () => {
    for (const status of ['PENDING', 'CREATED']) expect(mtnStatusResult(200, { status }, 'PAY_IN', REF)).toEqual({ kind: 'PENDING' });
    for (const reason of ['ONGOING', 'PAYER_DELAYED', 'PAYEE_DELAYED']) {
      expect(mtnStatusResult(200, { status: 'FAILED', reason }, 'PAY_IN', REF)).toEqual({ kind: 'PENDING' });
    }
  });

  it('an undocumented status, an undocumented reason or an unreadable body is unknown, never a failure', () => {
    for (const body of [{ status: 'SOMETHING_NEW' }, { status: 'FAILED', reason: 'TRANSFERTYPE_UNKNOWN' }, {}, 'not json', undefined, null, { status: 42 }]) {
      expect(mtnStatusResult(200, body, 'PAY_OUT', REF).kind, JSON.stringify(body)).toBe('UNREACHABLE');
    }
    expect(mtnStatusResult(200, { status: 'constructor' }, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
  });

  it("FAILED without any reason is MTN's decision: PROVIDER_ERROR", () => {
    expect(mtnStatusResult(200, { status: 'FAILED' }, 'PAY_IN', REF)).toEqual({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'MTN FAILED (no reason given)' });
  });

  it('404 RESOURCE_NOT_FOUND → NOT_FOUND when the initiation outcome is unknown, PENDING when MTN acknowledged it or it may still land; other errors → UNREACHABLE', () => {
    const notFound = { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' };
    expect(mtnStatusResult(404, notFound, 'PAY_IN', REF, 'UNKNOWN')).toEqual({ kind: 'NOT_FOUND' });
    expect(mtnStatusResult(404, notFound, 'PAY_IN', REF, 'ACCEPTED')).toEqual({ kind: 'PENDING' });
    expect(mtnStatusResult(404, notFound, 'PAY_OUT', REF, 'IN_FLIGHT')).toEqual({ kind: 'PENDING' });
    expect(mtnStatusResult(500, { code: 'INTERNAL_PROCESSING_ERROR' }, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
    expect(mtnStatusResult(401, undefined, 'PAY_IN', REF).kind).toBe('UNREACHABLE');
  });

  it('account holder: true → active, false → ACCOUNT_INACTIVE, 404 → PAYEE_NOT_FOUND, errors inconclusive', () => {
    expect(mtnAccountHolderResult(200, { result: true })).toEqual({ kind: 'ACTIVE' });
    expect(mtnAccountHolderResult(200, { result: false })).toMatchObject({ kind: 'FAILED', failureCode: 'ACCOUNT_INACTIVE' });
    expect(mtnAccountHolderResult(404, { code: 'RESOURCE_NOT_FOUND' })).toMatchObject({ kind: 'FAILED', failureCode: 'PAYEE_NOT_FOUND' });
    expect(mtnAccountHolderResult(500, { code: 'INTERNAL_PROCESSING_ERROR' }).kind).toBe('UNKNOWN');
  });
});

describe('the reason table', () => {
  it('covers every documented reason', () => {
    expect(Object.keys(MTN_PAY_IN_REASONS).sort()).toEqual([...MTN_REASONS].sort());
    expect(Object.keys(MTN_PAY_OUT_REASONS).sort()).toEqual([...MTN_REASONS].sort());
  });

  const EXPECTED: [string, string, string][] = [
    ['NOT_ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS', 'MERCHANT_INSUFFICIENT_FUNDS'],
    ['PAYER_NOT_FOUND', 'PAYER_NOT_FOUND', 'PAYER_NOT_FOUND'],
    ['PAYEE_NOT_FOUND', 'PAYEE_NOT_FOUND', 'PAYEE_NOT_FOUND'],
    ['PAYER_LIMIT_REACHED', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'],
    ['PAYEE_NOT_ALLOWED_TO_RECEIVE', 'PAYEE_NOT_ALLOWED', 'PAYEE_NOT_ALLOWED'],
    ['SENDER_ACCOUNT_NOT_ACTIVE', 'ACCOUNT_BLOCKED', 'ACCOUNT_BLOCKED'],
    ['APPROVAL_REJECTED', 'REJECTED_BY_PAYER', 'REJECTED_BY_PAYER'],
    ['PAYMENT_NOT_APPROVED', 'REJECTED_BY_PAYER', 'REJECTED_BY_PAYER'],
    ['TRANSACTION_CANCELED', 'REJECTED_BY_PAYER', 'REJECTED_BY_PAYER'],
    ['EXPIRED', 'TIMEOUT', 'TIMEOUT'],
    ['COULD_NOT_PERFORM_TRANSACTION', 'TIMEOUT', 'TIMEOUT'],
    ['NOT_ALLOWED', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['NOT_ALLOWED_TARGET_ENVIRONMENT', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['INVALID_CALLBACK_URL_HOST', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['INVALID_CURRENCY', 'CONFIGURATION_ERROR', 'CONFIGURATION_ERROR'],
    ['SERVICE_UNAVAILABLE', 'PROVIDER_UNAVAILABLE', 'PROVIDER_UNAVAILABLE'],
    ['INTERNAL_PROCESSING_ERROR', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
    ['RESOURCE_NOT_FOUND', 'NOT_FOUND_AT_PROVIDER', 'NOT_FOUND_AT_PROVIDER'],
    ['RESOURCE_ALREADY_EXIST', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
  ];
  it.each(EXPECTED)('%s → %s (pay-in) / %s (pay-out)', (reason, payIn, payOut) => {
    expect(mtnReasonOutcome({ code: reason, message: null }, 'PAY_IN')).toMatchObject({ kind: 'FAILED', failureCode: payIn });
    expect(mtnReasonOutcome({ code: reason, message: null }, 'PAY_OUT')).toMatchObject({ kind: 'FAILED', failureCode: payOut });
  });

  it('an unknown reason is unknown (UNREACHABLE) with MTN text kept, never a failure', () => {
    expect(mtnReasonOutcome({ code: 'BRAND_NEW_REASON', message: 'Something new' }, 'PAY_IN')).toEqual({
      kind: 'UNREACHABLE',
      error: 'undocumented operator answer "BRAND_NEW_REASON": MTN BRAND_NEW_REASON: Something new',
    });
    expect(mtnReasonOutcome({ code: 'toString', message: null }, 'PAY_OUT').kind).toBe('UNREACHABLE');
  });
});
