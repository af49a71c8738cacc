/**
 * Daraja transformers on the documented payloads of operators.md §4: the Password/Timestamp
 * rule in Kenya time, the STK push and B2C bodies, sync answers, STK Query answers (pending kept
 * PENDING), callbacks read by name (never by index), and the exhaustive ResultCode table.
 */
import { describe, expect, it } from 'vitest';
import type { InitiateRequest } from '../connector.ts';
import {
  accountReferenceOf,
  b2cCall,
  b2cResult,
  DARAJA_RESULT_TABLE,
  darajaPassword,
  darajaTimestamp,
  readDarajaCallback,
  stkPushCall,
  stkPushResult,
  stkQueryResult,
  type DarajaAccount,
} from './mpesa-transformers.ts';

const account: DarajaAccount = {
  shortCode: '174379',
  passkey: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
  transactionType: 'CustomerPayBillOnline',
  partyB: '174379',
  b2cShortCode: '600996',
  initiatorName: 'testapi',
  securityCredential: 'cred',
};

const request: InitiateRequest = {
  direction: 'PAY_IN',
  reference: 'TXN-20261122-ABCDEF123456',
  rail: { code: 'MPESA_KE', operator: 'MPESA', country: 'KE', currency: 'KES' },
  amount: 1,
  currency: 'KES',
  msisdn: '254708374149',
  description: null,
  initiatedAt: new Date('2024-01-01T09:00:00Z'),
  operatorReference: 'TXN-20261122-ABCDEF123456',
  callbackUrl: 'https://cb.example.com/api/v1/callbacks/daraja/abc',
};

describe('Daraja wire format', () => {
  it('Timestamp is Kenya time (UTC+3) and Password is base64(shortcode + passkey + timestamp)', () => {
    expect(darajaTimestamp(new Date('2024-01-01T09:00:00Z'))).toBe('20240101120000');
    expect(darajaTimestamp(new Date('2023-12-31T22:30:05Z'))).toBe('20240101013005');
    const call = stkPushCall(request, account, request.callbackUrl!, new Date('2024-01-01T09:00:00Z'));
    const body = JSON.parse(call.body);
    expect(call.path).toBe('/mpesa/stkpush/v1/processrequest');
    expect(body.Timestamp).toBe('20240101120000');
    expect(body.Password).toBe(darajaPassword('174379', account.passkey, '20240101120000'));
    expect(Buffer.from(body.Password, 'base64').toString()).toBe(`174379${account.passkey}20240101120000`);
    expect(body).toMatchObject({ Amount: 1, PartyA: '254708374149', PartyB: '174379', PhoneNumber: '254708374149', AccountReference: 'ABCDEF123456' });
    expect(body.AccountReference.length).toBeLessThanOrEqual(12);
    expect(body.TransactionDesc.length).toBeLessThanOrEqual(13);
    expect(accountReferenceOf('a-b')).toBe('ab');
  });

  it('B2C v3 carries our reference as OriginatorConversationID and the misspelt Occassion', () => {
    const body = JSON.parse(b2cCall({ ...request, direction: 'PAY_OUT', amount: 10 }, account, 'https://cb/x').body);
    expect(body).toMatchObject({
      OriginatorConversationID: request.reference,
      InitiatorName: 'testapi',
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyA: '600996',
      PartyB: '254708374149',
      ResultURL: 'https://cb/x',
      QueueTimeOutURL: 'https://cb/x',
      Occassion: request.reference,
    });
  });
});

describe('Daraja answers', () => {
  it('STK push: accepted (documented sync answer), error envelopes, lock, ambiguous', () => {
    const ok = {
      MerchantRequestID: '29115-34620561-1',
      CheckoutRequestID: 'ws_CO_191220191020363925',
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    };
    expect(stkPushResult(200, ok)).toEqual({ kind: 'ACCEPTED', operatorReference: 'ws_CO_191220191020363925' });
    expect(stkPushResult(400, { requestId: 'r', errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid BusinessShortCode' })).toEqual({
      kind: 'FAILED',
      failureCode: 'INVALID_REQUEST',
      failureReason: 'M-Pesa 400.002.02: Bad Request - Invalid BusinessShortCode',
    });
    expect(stkPushResult(500, { requestId: 'r', errorCode: '500.001.1001', errorMessage: 'Unable to lock subscriber, a transaction is already in process for the current subscriber' })).toMatchObject({
      kind: 'FAILED',
      failureCode: 'PROVIDER_UNAVAILABLE',
    });
    expect(stkPushResult(500, { requestId: 'r', errorCode: '500.001.1001', errorMessage: 'Merchant does not exist' })).toMatchObject({ failureCode: 'CONFIGURATION_ERROR' });
    expect(stkPushResult(500, { requestId: 'r', errorCode: '500.003.02', errorMessage: 'System is busy' })).toMatchObject({ failureCode: 'PROVIDER_UNAVAILABLE' });
    expect(stkPushResult(502, undefined)).toMatchObject({ kind: 'UNREACHABLE' });
  });

  it('STK Query: documented answer mapped; "being processed" and 4999 stay PENDING', () => {
    const answer = {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: '22205-34066-1',
      CheckoutRequestID: 'ws_CO_13012021093521236557',
      ResultCode: '1032',
      ResultDesc: 'Request cancelled by user',
    };
    expect(stkQueryResult(200, answer)).toEqual({ kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'M-Pesa 1032: Request cancelled by user' });
    expect(stkQueryResult(200, { ...answer, ResultCode: '0', ResultDesc: 'The service request is processed successfully.' })).toEqual({
      kind: 'SUCCEEDED',
      operatorReference: 'ws_CO_13012021093521236557',
    });
    expect(stkQueryResult(500, { requestId: 'r', errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' })).toEqual({ kind: 'PENDING' });
    expect(stkQueryResult(200, { ...answer, ResultCode: '4999', ResultDesc: 'The transaction is still under processing' })).toEqual({ kind: 'PENDING' });
    expect(stkQueryResult(500, { requestId: 'r', errorCode: '500.003.02', errorMessage: 'busy' })).toMatchObject({ kind: 'UNREACHABLE' });
  });

  it('B2C sync answer keeps the ConversationID', () => {
    const sync = { ConversationID: 'AG_20191219_00005797af5d7d75f652', OriginatorConversationID: request.reference, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
    expect(b2cResult(200, sync)).toEqual({ kind: 'ACCEPTED', operatorReference: 'AG_20191219_00005797af5d7d75f652' });
  });

  it('the ResultCode table is exhaustive over §4.4 and maps by direction', () => {
    expect(Object.keys(DARAJA_RESULT_TABLE).sort()).toEqual(['0', '1', '1001', '1019', '1025', '1032', '1037', '2001', '4999', '8006', '9999'].sort());
    expect(DARAJA_RESULT_TABLE['1']).toEqual({ payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS' });
    expect(DARAJA_RESULT_TABLE['2001']).toEqual({ payIn: 'WRONG_PIN', payOut: 'CONFIGURATION_ERROR' });
    expect(DARAJA_RESULT_TABLE['1037']!.payIn).toBe('TIMEOUT');
    expect(DARAJA_RESULT_TABLE['1019']!.payIn).toBe('TIMEOUT');
    expect(DARAJA_RESULT_TABLE['1001']!.payIn).toBe('PROVIDER_UNAVAILABLE');
  });
});

describe('Daraja callbacks', () => {
  const stk = {
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: 'ws_CO_191220191020363925',
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: 1 },
            { Name: 'MpesaReceiptNumber', Value: 'LGR7OWQX0R' },
            { Name: 'Balance' },
            { Name: 'TransactionDate', Value: 20170727154800 },
            { Name: 'PhoneNumber', Value: 254721566839 },
          ],
        },
      },
    },
  };
  it('an STK callback is only a hint: it names the CheckoutRequestID to query, never a verdict', () => {
    expect(readDarajaCallback(stk, { direction: 'PAY_IN', reference: 'R', operatorReference: 'R' })).toEqual({
      kind: 'QUERY',
      operatorReference: 'ws_CO_191220191020363925',
    });
    expect(readDarajaCallback({}, { direction: 'PAY_IN', reference: 'R', operatorReference: 'R' })).toEqual({ kind: 'QUERY', operatorReference: null });
  });

  const b2c = {
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: 'OUR-REF',
      ConversationID: 'AG_20191219_00005797af5d7d75f652',
      TransactionID: 'NLJ41HAY6Q',
      ResultParameters: {
        ResultParameter: [
          { Key: 'TransactionAmount', Value: 10 },
          { Key: 'TransactionReceipt', Value: 'NLJ41HAY6Q' },
          { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
          { Key: 'B2CChargesPaidAccountAvailableFunds', Value: -4510.0 },
          { Key: 'ReceiverPartyPublicName', Value: '254708374149 - John Doe' },
          { Key: 'TransactionCompletedDateTime', Value: '19.12.2019 11:45:50' },
          { Key: 'B2CUtilityAccountAvailableFunds', Value: 10116.0 },
          { Key: 'B2CWorkingAccountAvailableFunds', Value: 900000.0 },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit' } },
    },
  };
  const payout = { direction: 'PAY_OUT' as const, reference: 'OUR-REF', operatorReference: 'AG_20191219_00005797af5d7d75f652' };

  it('a B2C Result naming our pay-out is the verdict; one naming another changes nothing', () => {
    expect(readDarajaCallback(b2c, payout)).toEqual({ kind: 'RESULT', status: { kind: 'SUCCEEDED', operatorReference: 'NLJ41HAY6Q' } });
    const failed = { Result: { ...b2c.Result, ResultCode: 2001, ResultDesc: 'The initiator information is invalid.', ResultParameters: undefined } };
    expect(readDarajaCallback(failed, payout)).toEqual({
      kind: 'RESULT',
      status: { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'M-Pesa 2001: The initiator information is invalid.' },
    });
    const other = { Result: { ...b2c.Result, OriginatorConversationID: 'OTHER', ConversationID: 'AG_other' } };
    expect(readDarajaCallback(other, payout)).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' } });
    expect(readDarajaCallback('garbage', payout)).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' } });
  });

  it('a Transaction Status result is read by Key, in any order', () => {
    const tsq = {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: 'tsq-1',
        ConversationID: 'AG_tsq',
        ResultParameters: {
          ResultParameter: [
            { Key: 'Originator Conversation ID', Value: 'OUR-REF' },
            { Key: 'TransactionStatus', Value: 'Completed' },
            { Key: 'ReceiptNo', Value: 'NLJ41HAY6Q' },
          ],
        },
      },
    };
    expect(readDarajaCallback(tsq, payout)).toEqual({ kind: 'RESULT', status: { kind: 'SUCCEEDED', operatorReference: 'NLJ41HAY6Q' } });
  });
});
