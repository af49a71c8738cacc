/**
 * Orange Money Cameroon transformers fed with the OM API payloads (as Orange's partners and public
 * clients show them): the exact calls we send (paths, bodies) and how each documented answer,
 * status and message reads.
 */
import { describe, expect, it } from 'vitest';
import type { InitiateRequest } from '../connector.ts';
import {
  ORANGE_STATUS_TABLE,
  ORANGE_STATUSES,
  orangeFailure,
  orangeInitCall,
  orangeInitResult,
  orangeMsisdn,
  orangeOrderId,
  ORANGE_ORDER_ID_MAX,
  orangePayCall,
  orangePayResult,
  orangeStatusCall,
  orangeStatusResult,
} from './orange-transformers.ts';

const TOKEN = 'MP22120771FEB7B21FD2381C3786';
const request = (overrides: Partial<InitiateRequest> = {}): InitiateRequest => ({
  direction: 'PAY_IN',
  reference: 'PI-0123456789AB',
  rail: { code: 'ORANGE_MONEY_CM', operator: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' },
  amount: 100,
  currency: 'XAF',
  msisdn: '237699123456',
  description: 'Commande 42',
  initiatedAt: new Date('2026-11-20T10:00:00Z'),
  operatorReference: TOKEN,
  callbackUrl: 'https://pay.example.cm/api/v1/callbacks/orange-money/abcdef0123456789',
  ...overrides,
});
const channel = { channelMsisdn: '691234567', pin: '1234' };

/** The OM API transaction object, as Orange returns it in `data`. */
const transaction = (overrides: Record<string, unknown>) => ({
  id: 1,
  createtime: '1670421234',
  subscriberMsisdn: '699123456',
  amount: 100,
  payToken: TOKEN,
  txnid: null,
  txnmode: 'PI-0123456789AB',
  inittxnmessage: 'Paiement en attente de confirmation',
  inittxnstatus: '200',
  confirmtxnstatus: null,
  confirmtxnmessage: null,
  status: 'PENDING',
  notifUrl: 'https://pay.example.cm/cb',
  description: 'Commande 42',
  channelUserMsisdn: '691234567',
  ...overrides,
});

describe('wire format of what we send', () => {
  it('init: POST …/mp/init and …/cashin/init without a body', () => {
    expect(orangeInitCall('PAY_IN')).toEqual({ method: 'POST', path: '/omcoreapis/1.0.2/mp/init', headers: {} });
    expect(orangeInitCall('PAY_OUT').path).toBe('/omcoreapis/1.0.2/cashin/init');
  });

  it('pay: body, amount a string, subscriber without 237, our reference as orderId', () => {
    const call = orangePayCall(request(), channel);
    expect(call.path).toBe('/omcoreapis/1.0.2/mp/pay');
    expect(call.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(call.body!)).toEqual({
      notifUrl: 'https://pay.example.cm/api/v1/callbacks/orange-money/abcdef0123456789',
      channelUserMsisdn: '691234567',
      amount: '100',
      subscriberMsisdn: '699123456',
      pin: '1234',
      orderId: 'PI-0123456789AB',
      description: 'Commande 42',
      payToken: TOKEN,
    });
    expect(orangePayCall(request({ direction: 'PAY_OUT' }), channel).path).toBe('/omcoreapis/1.0.2/cashin/pay');
  });

  it('orderId: at most 20 characters; a longer reference gets a deterministic 20-character id', () => {
    expect(orangeOrderId('PI-0123456789AB-999')).toBe('PI-0123456789AB-999');
    const twenty = 'X'.repeat(ORANGE_ORDER_ID_MAX);
    expect(orangeOrderId(twenty)).toBe(twenty);
    const long = orangeOrderId(`${twenty}1`);
    expect(long).toMatch(/^K[A-Z2-7]{19}$/);
    expect(orangeOrderId(`${twenty}1`)).toBe(long);
    expect(orangeOrderId(`${twenty}2`)).not.toBe(long);
    expect(JSON.parse(orangePayCall(request({ reference: `FC-${'A'.repeat(30)}` }), channel).body!).orderId).toHaveLength(20);
  });

  it('status: GET …/mp/paymentstatus/{payToken} and …/cashin/paymentstatus/{payToken}', () => {
    expect(orangeStatusCall('PAY_IN', TOKEN)).toEqual({ method: 'GET', path: `/omcoreapis/1.0.2/mp/paymentstatus/${TOKEN}`, headers: {} });
    expect(orangeStatusCall('PAY_OUT', TOKEN).path).toBe(`/omcoreapis/1.0.2/cashin/paymentstatus/${TOKEN}`);
    expect(orangeMsisdn('237699123456')).toBe('699123456');
  });
});

describe('reading Orange answers', () => {
  it('the documented init answer yields its payToken', () => {
    expect(orangeInitResult(200, { message: 'Payment request successfully initiated', data: { payToken: TOKEN } })).toEqual({
      kind: 'PREPARED',
      operatorReference: TOKEN,
    });
    expect(orangeInitResult(401, { fault: { code: 900901, message: 'Invalid Credentials', description: 'x' } })).toMatchObject({
      kind: 'FAILED',
      failureCode: 'CONFIGURATION_ERROR',
    });
    expect(orangeInitResult(503, undefined).kind).toBe('UNREACHABLE');
  });

  it('pay PENDING (prompt sent) is ACCEPTED; FAILED 60019 at once is INSUFFICIENT_FUNDS', () => {
    expect(orangePayResult(200, { message: 'ok', data: transaction({}) }, 'PAY_IN', TOKEN)).toEqual({ kind: 'ACCEPTED', operatorReference: TOKEN });
    const failed = transaction({ status: 'FAILED', inittxnstatus: '60019', inittxnmessage: 'Le solde du compte du payeur est insuffisant' });
    expect(orangePayResult(201, { message: 'Le solde du compte du payeur est insuffisant', data: failed }, 'PAY_IN', TOKEN)).toEqual({
      kind: 'FAILED',
      failureCode: 'INSUFFICIENT_FUNDS',
      failureReason: 'Orange Money 60019: Le solde du compte du payeur est insuffisant',
    });
  });

  it('HTTP 417 is a business decline with its reason: wrong PIN, insufficient funds, unknown text', () => {
    const decline = transaction({ status: 'FAILED', inittxnstatus: '60019', inittxnmessage: 'Le solde du compte du payeur est insuffisant' });
    expect(orangePayResult(417, { message: 'Le solde du compte du payeur est insuffisant', data: decline }, 'PAY_IN', TOKEN)).toEqual({
      kind: 'FAILED',
      failureCode: 'INSUFFICIENT_FUNDS',
      failureReason: 'Orange Money 60019: Le solde du compte du payeur est insuffisant',
    });
    expect(orangePayResult(417, { message: 'Code PIN incorrect', data: null }, 'PAY_IN', TOKEN)).toEqual({
      kind: 'FAILED',
      failureCode: 'WRONG_PIN',
      failureReason: 'Orange Money: Code PIN incorrect',
    });
    expect(orangePayResult(417, { message: 'Code PIN incorrect' }, 'PAY_OUT', TOKEN)).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(orangePayResult(417, { message: 'Refus inattendu' }, 'PAY_IN', TOKEN)).toMatchObject({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR' });
    expect(orangePayResult(417, undefined, 'PAY_IN', TOKEN)).toMatchObject({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'Orange Money: HTTP 417' });
  });

  it('an undocumented status in a pay or status answer is unknown, never a failure', () => {
    expect(orangePayResult(200, { data: transaction({ status: 'REVERSING' }) }, 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
    for (const data of [transaction({ status: 'REVERSING' }), transaction({ status: undefined }), transaction({ status: 'hasOwnProperty' })]) {
      expect(orangeStatusResult(200, { data }, 'PAY_OUT', TOKEN).kind).toBe('UNREACHABLE');
    }
    expect(orangeStatusResult(200, { message: 'ok' }, 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
    expect(orangeStatusResult(200, 'garbage', 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
  });

  it('a 5xx or an unreadable pay answer is ambiguous; 401/403 and faults are configuration; 400 our payload', () => {
    expect(orangePayResult(500, { fault: { code: 101503, message: 'Runtime Error' } }, 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
    expect(orangePayResult(200, 'not json', 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
    expect(orangePayResult(401, { fault: { code: 900901, message: 'Invalid Credentials' } }, 'PAY_IN', TOKEN)).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(orangePayResult(400, { message: 'bad' }, 'PAY_IN', TOKEN)).toMatchObject({ failureCode: 'INVALID_REQUEST' });
  });

  it('status SUCCESSFULL (double L) with confirmtxnstatus 200, and SUCCESS, are SUCCEEDED', () => {
    const ok = transaction({ status: 'SUCCESSFULL', confirmtxnstatus: '200', txnid: 'MP221207.1234.A12345' });
    expect(orangeStatusResult(200, { message: 'ok', data: ok }, 'PAY_IN', TOKEN)).toEqual({
      kind: 'SUCCEEDED',
      operatorReference: TOKEN,
      operatorTransactionId: 'MP221207.1234.A12345',
    });
    expect(orangeStatusResult(200, { data: transaction({ status: 'SUCCESS' }) }, 'PAY_IN', TOKEN).kind).toBe('SUCCEEDED');
  });

  it('the status table covers every documented status', () => {
    expect(Object.keys(ORANGE_STATUS_TABLE).sort()).toEqual([...ORANGE_STATUSES].sort());
    expect(orangeStatusResult(200, { data: transaction({ status: 'INITIATED' }) }, 'PAY_IN', TOKEN)).toEqual({ kind: 'PENDING' });
    expect(orangeStatusResult(200, { data: transaction({ status: 'PENDING' }) }, 'PAY_IN', TOKEN)).toEqual({ kind: 'PENDING' });
    expect(orangeStatusResult(200, { data: transaction({ status: 'EXPIRED' }) }, 'PAY_IN', TOKEN)).toMatchObject({ failureCode: 'TIMEOUT' });
    expect(orangeStatusResult(200, { data: transaction({ status: 'CANCELLED' }) }, 'PAY_IN', TOKEN)).toMatchObject({ failureCode: 'REJECTED_BY_PAYER' });
    expect(orangeStatusResult(404, { message: 'introuvable' }, 'PAY_IN', TOKEN, 'UNKNOWN')).toEqual({ kind: 'NOT_FOUND' });
    expect(orangeStatusResult(404, { message: 'introuvable' }, 'PAY_IN', TOKEN, 'ACCEPTED')).toEqual({ kind: 'PENDING' });
    expect(orangeStatusResult(404, { message: 'introuvable' }, 'PAY_OUT', TOKEN, 'IN_FLIGHT')).toEqual({ kind: 'PENDING' });
    expect(orangeStatusResult(502, undefined, 'PAY_IN', TOKEN).kind).toBe('UNREACHABLE');
  });

  const MESSAGES: [string, string | undefined, 'PAY_IN' | 'PAY_OUT', string][] = [
    ['Le solde du compte du payeur est insuffisant', '60019', 'PAY_IN', 'INSUFFICIENT_FUNDS'],
    ['Le solde du compte du payeur est insuffisant', '60019', 'PAY_OUT', 'MERCHANT_INSUFFICIENT_FUNDS'],
    ['Beneficiaire introuvable', undefined, 'PAY_OUT', 'PAYEE_NOT_FOUND'],
    ['Bénéficiaire introuvable', undefined, 'PAY_IN', 'PAYER_NOT_FOUND'],
    ['Utilisateur bloque', undefined, 'PAY_IN', 'ACCOUNT_BLOCKED'],
    ['Vous avez saisi un montant superieur au montant maximum autorise', undefined, 'PAY_IN', 'LIMIT_EXCEEDED'],
    ['Code PIN incorrect', undefined, 'PAY_IN', 'WRONG_PIN'],
    ['Code PIN incorrect', undefined, 'PAY_OUT', 'CONFIGURATION_ERROR'],
    ['Erreur inconnue', '99999', 'PAY_IN', 'PROVIDER_ERROR'],
  ];
  it.each(MESSAGES)('FAILED "%s" (%s, %s) → %s, message kept', (message, code, direction, failureCode) => {
    const failure = orangeFailure(message, code, direction);
    expect(failure.failureCode).toBe(failureCode);
    expect(failure.failureReason).toContain(message);
  });
});
