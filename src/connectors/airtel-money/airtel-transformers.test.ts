/** Airtel's wire format: every documented status mapped, anything else unknown; the wallet short; the balance; the callback hash; the PIN's encryption. */
import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { airtelBalanceResult, airtelCallbackHash, airtelCallbackProblem, airtelInitiateResult, airtelRefundCall, airtelRefundResult, airtelStatusResult, encryptAirtelPin } from './airtel-transformers.ts';

const enquiry = (status: string, message = 'm') => ({ data: { transaction: { airtel_money_id: 'MP1', id: 'PI-1', message, status } }, status: { success: true } });

describe('airtelStatusResult', () => {
  it('maps each documented status; TIP and TA wait', () => {
    expect(airtelStatusResult(200, enquiry('TS'), 'PAY_IN', false)).toEqual({ kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: 'MP1' });
    expect(airtelStatusResult(200, enquiry('TF', 'Insufficient funds'), 'PAY_IN', false)).toEqual({ kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'Insufficient funds' });
    expect(airtelStatusResult(200, enquiry('TF'), 'PAY_OUT', false)).toMatchObject({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR' });
    expect(airtelStatusResult(200, enquiry('TE'), 'PAY_IN', false)).toMatchObject({ kind: 'FAILED', failureCode: 'TIMEOUT' });
    expect(airtelStatusResult(200, enquiry('TIP'), 'PAY_IN', false)).toEqual({ kind: 'PENDING' });
    expect(airtelStatusResult(200, enquiry('TA'), 'PAY_OUT', false)).toEqual({ kind: 'PENDING' });
  });

  it('takes an undocumented status, a 5xx or an unreadable body as unknown, and 404 as "no record" only for an unknown initiation', () => {
    expect(airtelStatusResult(200, enquiry('TX'), 'PAY_IN', false).kind).toBe('UNREACHABLE');
    expect(airtelStatusResult(200, undefined, 'PAY_IN', false).kind).toBe('UNREACHABLE');
    expect(airtelStatusResult(503, undefined, 'PAY_IN', true).kind).toBe('UNREACHABLE');
    expect(airtelStatusResult(404, undefined, 'PAY_IN', true)).toEqual({ kind: 'NOT_FOUND' });
    expect(airtelStatusResult(404, undefined, 'PAY_IN', false)).toEqual({ kind: 'PENDING' });
  });
});

describe('airtelInitiateResult', () => {
  it('accepts only a 2xx with status.success; anything else is unknown', () => {
    expect(airtelInitiateResult(200, { status: { success: true } }, 'PI-1')).toEqual({ kind: 'ACCEPTED', operatorReference: 'PI-1' });
    expect(airtelInitiateResult(200, { status: { success: false } }, 'PI-1').kind).toBe('UNREACHABLE');
    expect(airtelInitiateResult(500, undefined, 'PI-1').kind).toBe('UNREACHABLE');
  });
});

describe('callbacks and PIN', () => {
  const transaction = { id: 'PI-1', message: 'ok', status_code: 'TS', airtel_money_id: 'MP1' };
  it('accepts a callback whose hash verifies, refuses a forged or missing one when a key is set', () => {
    const body = (hash?: string) => Buffer.from(JSON.stringify({ transaction, ...(hash ? { hash } : {}) }));
    expect(airtelCallbackProblem(body(airtelCallbackHash(transaction, 'k')), 'k')).toBeNull();
    expect(airtelCallbackProblem(body(airtelCallbackHash(transaction, 'x')), 'k')).toBe('hash does not verify');
    expect(airtelCallbackProblem(body(), 'k')).toBe('hash does not verify');
    expect(airtelCallbackProblem(body(), null)).toBeNull();
    expect(airtelCallbackProblem(Buffer.from('{'), null)).toBe('body is not JSON');
    expect(airtelCallbackProblem(Buffer.from('{}'), null)).toBe('body names no transaction');
  });

  it('encrypts the PIN for the holder of the private key only (PKCS#1 v1.5), from base64 DER or PEM', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    for (const key of [publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), String(publicKey.export({ type: 'spki', format: 'pem' }))]) {
      const raw = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(encryptAirtelPin('1234', key), 'base64'));
      expect(raw[0]).toBe(0);
      expect(raw[1]).toBe(2);
      expect(raw.subarray(raw.indexOf(0, 2) + 1).toString()).toBe('1234');
    }
  });
});

describe("Airtel's wallet short and balance", () => {
  const short = { data: { transaction: { id: 'PO-1', status: 'TF', message: 'Not enough balance' } }, status: { code: '200', message: 'Not enough balance', response_code: 'DP00900001007', success: false } };
  it('reads DP00900001007 as MERCHANT_INSUFFICIENT_FUNDS, at initiation and in a pay-out enquiry', () => {
    expect(airtelInitiateResult(200, short, 'PO-1')).toEqual({ kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'Not enough balance' });
    expect(airtelStatusResult(200, short, 'PAY_OUT', false)).toMatchObject({ kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS' });
    // Any other refused initiation stays unknown: the enquiry decides.
    expect(airtelInitiateResult(200, { status: { response_code: 'DP00900001000', success: false } }, 'PO-1')).toMatchObject({ kind: 'UNREACHABLE' });
  });
  it('reads the balance in major units as base units; anything else is unknown', () => {
    expect(airtelBalanceResult(200, { data: { balance: '5000.00', currency: 'XAF', account_status: 'Active' }, status: { success: true } })).toEqual({ kind: 'BALANCE', amount: 5000, currency: 'XAF' });
    expect(airtelBalanceResult(200, { balance: 7000, currency: 'XAF' })).toEqual({ kind: 'BALANCE', amount: 7000, currency: 'XAF' });
    expect(airtelBalanceResult(200, { data: { balance: 'n/a', currency: 'XAF' } })).toMatchObject({ kind: 'UNKNOWN' });
    expect(airtelBalanceResult(403, { status: { success: false } })).toMatchObject({ kind: 'UNKNOWN' });
  });
});

describe('airtel refund', () => {
  const answer = (status: string, id = 'RF1', success = true) => ({ data: { transaction: { airtel_money_id: id, status } }, status: { code: '200', result_code: 'ESB000010', success } });

  it('names the payment by its airtel_money_id only', () => {
    expect(airtelRefundCall('MP1', 'CG', 'XAF')).toEqual({ method: 'POST', path: '/standard/v1/payments/refund', country: 'CG', currency: 'XAF', body: '{"transaction":{"airtel_money_id":"MP1"}}' });
  });

  it('reads SUCCESS as refunded, keeping the refund’s own id but not the payment’s echoed back', () => {
    expect(airtelRefundResult(200, answer('SUCCESS'), 'MP1')).toEqual({ kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: 'RF1' });
    expect(airtelRefundResult(200, answer('SUCCESS', 'MP1'), 'MP1')).toEqual({ kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: null });
  });

  it('takes every other answer as unknown, never as a failure: the money stays where it is', () => {
    expect(airtelRefundResult(200, answer('FAILED'), 'MP1').kind).toBe('UNREACHABLE');
    expect(airtelRefundResult(200, answer('SUCCESS', 'RF1', false), 'MP1').kind).toBe('UNREACHABLE');
    expect(airtelRefundResult(400, { status: { code: '400', success: false } }, 'MP1').kind).toBe('UNREACHABLE');
    expect(airtelRefundResult(500, undefined, 'MP1').kind).toBe('UNREACHABLE');
  });
});
