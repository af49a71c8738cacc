/**
 * Daraja transformers on the payloads Safaricom documents (Daraja 3.0 pages): the
 * Password/Timestamp rule in Kenya time, the STK push, B2C and Transaction Status bodies
 * (`OriginalConversationID`), OAuth's `expires_in` as a number or a string, sync answers (only
 * documented refusals are failures: a 5xx is unknown), STK Query answers, every B2C ResultCode, and
 * callbacks: read by name (never by index), under both spellings of the conversation id,
 * `ReasonType` as text, a verdict only when the body carries Daraja's `ConversationID`.
 */
import { describe, expect, it } from 'vitest';
import type { FailureCode, InitiateRequest } from '../connector.ts';
import {
  accountBalanceAck,
  accountBalanceResult,
  accountReferenceOf,
  b2cCall,
  b2cResult,
  B2C_RESULT_CODES,
  DARAJA_INVALID_TOKEN_CODES,
  darajaPassword,
  darajaTimestamp,
  darajaTokenAnswer,
  readDarajaCallback,
  STK_RESULT_CODES,
  stkPushCall,
  stkPushResult,
  stkQueryCall,
  stkQueryResult,
  transactionStatusAck,
  transactionStatusCall,
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

  it('Transaction Status names the pay-out by OriginalConversationID (our reference), never OriginatorConversationID', () => {
    const call = transactionStatusCall(request.reference, account, 'https://cb/x');
    const body = JSON.parse(call.body);
    expect(call.path).toBe('/mpesa/transactionstatus/v1/query');
    expect(body).toMatchObject({ CommandID: 'TransactionStatusQuery', OriginalConversationID: request.reference, PartyA: '600996', IdentifierType: '4', ResultURL: 'https://cb/x' });
    expect(body).not.toHaveProperty('OriginatorConversationID');
    expect(body).not.toHaveProperty('TransactionID');
  });

  it('each API carries its own invalid-token code', () => {
    expect(DARAJA_INVALID_TOKEN_CODES).toMatchObject({ stkPush: '404.001.03', stkQuery: '404.001.03', transactionStatus: '400.003.01', accountBalance: '401.002.01' });
    expect(stkPushCall(request, account, 'https://cb/x', new Date()).invalidTokenCode).toBe('404.001.03');
    expect(stkQueryCall('ws_CO_1', account, new Date()).invalidTokenCode).toBe('404.001.03');
    expect(transactionStatusCall('R', account, 'https://cb/x').invalidTokenCode).toBe('400.003.01');
  });

  it('OAuth: expires_in as a number (Authorization page) or a string (older samples); refusals and 5xx told apart', () => {
    expect(darajaTokenAnswer(200, { access_token: 'tok', expires_in: 3599 })).toEqual({ token: 'tok', expiresInSeconds: 3599 });
    expect(darajaTokenAnswer(200, { access_token: 'tok', expires_in: '3599' })).toEqual({ token: 'tok', expiresInSeconds: 3599 });
    expect(darajaTokenAnswer(400, { errorCode: '400.008.01', errorMessage: 'Invalid Authentication passed' })).toMatchObject({ kind: 'TOKEN_REFUSED' });
    expect(darajaTokenAnswer(503, undefined)).toMatchObject({ kind: 'UNREACHABLE' });
  });
});

const envelope = (errorCode: string, errorMessage: string) => ({ requestId: '16813-15-1', errorCode, errorMessage });

describe('Daraja answers at initiation: only documented refusals are failures', () => {
  const ok = {
    MerchantRequestID: '29115-34620561-1',
    CheckoutRequestID: 'ws_CO_191220191020363925',
    ResponseCode: '0',
    ResponseDescription: 'Success. Request accepted for processing',
    CustomerMessage: 'Success. Request accepted for processing',
  };
  const sync = { ConversationID: 'AG_20191219_00005797af5d7d75f652', OriginatorConversationID: request.reference, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };

  it('accepted: the CheckoutRequestID (STK) or the ConversationID (B2C) is kept', () => {
    expect(stkPushResult(200, ok)).toEqual({ kind: 'ACCEPTED', operatorReference: 'ws_CO_191220191020363925' });
    expect(b2cResult(200, sync)).toEqual({ kind: 'ACCEPTED', operatorReference: 'AG_20191219_00005797af5d7d75f652' });
  });

  const REFUSALS: [number, string, string, string][] = [
    [400, '400.002.02', 'Bad Request - Invalid BusinessShortCode', 'INVALID_REQUEST'],
    [404, '404.001.01', 'Resource not found', 'CONFIGURATION_ERROR'],
    [404, '404.001.03', 'Invalid Access Token', 'CONFIGURATION_ERROR'],
    [405, '405.001', 'Method Not Allowed', 'CONFIGURATION_ERROR'],
    [500, '500.001.1001', 'Unable to lock subscriber, a transaction is already in process for the current subscriber', 'PROVIDER_UNAVAILABLE'],
    [500, '500.001.1001', 'Merchant does not exist', 'CONFIGURATION_ERROR'],
    [500, '500.001.1001', 'Wrong credentials', 'CONFIGURATION_ERROR'],
    [500, '500.003.02', 'Spike arrest violation', 'PROVIDER_UNAVAILABLE'],
    [500, '500.003.03', 'Quota Violation', 'PROVIDER_UNAVAILABLE'],
  ];
  it.each(REFUSALS)('HTTP %i %s (%s) is a definite refusal: %s, for STK push and B2C', (status, code, message, failureCode) => {
    const expected = { kind: 'FAILED', failureCode, failureReason: `M-Pesa ${code}: ${message}` };
    expect(stkPushResult(status, envelope(code, message))).toEqual(expected);
    expect(b2cResult(status, envelope(code, message))).toEqual(expected);
  });

  const UNKNOWN: [number, unknown][] = [
    [500, envelope('500.003.1001', 'Internal Server Error')],
    [503, envelope('503.001.01', 'Service Unavailable')],
    [500, envelope('500.002.1001', 'Duplicate OriginatorConversationID')],
    [400, envelope('400.999.99', 'Something new')],
    [502, undefined],
    [500, { fault: { faultstring: 'Gateway error' } }],
    [200, { unexpected: true }],
  ];
  it.each(UNKNOWN)('HTTP %i %j is unknown (UNREACHABLE), never FAILED, for STK push and B2C', (status, body) => {
    expect(stkPushResult(status, body)).toMatchObject({ kind: 'UNREACHABLE' });
    expect(b2cResult(status, body)).toMatchObject({ kind: 'UNREACHABLE' });
  });

  it('a 200 with a non-zero ResponseCode started nothing (M-Pesa Express); a bare HTTP 401 is a refused token', () => {
    expect(stkPushResult(200, { ResponseCode: '1', ResponseDescription: 'Rejected' })).toEqual({ kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'M-Pesa 1: Rejected' });
    expect(b2cResult(401, undefined)).toMatchObject({ kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });
  });
});

describe('Daraja status answers', () => {
  const answer = {
    ResponseCode: '0',
    ResponseDescription: 'The service request has been accepted successsfully',
    MerchantRequestID: '22205-34066-1',
    CheckoutRequestID: 'ws_CO_13012021093521236557',
    ResultCode: '1032',
    ResultDesc: 'Request cancelled by user',
  };

  it('STK Query: documented answers mapped; the receipt comes from the callback; "being processed" and 4999 stay PENDING; others unknown', () => {
    expect(stkQueryResult(200, answer)).toEqual({ kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER', failureReason: 'M-Pesa 1032: Request cancelled by user' });
    expect(stkQueryResult(200, { ...answer, ResultCode: '0', ResultDesc: 'The service request is processed successfully.' }, 'LGR7OWQX0R')).toEqual({
      kind: 'SUCCEEDED',
      operatorReference: 'ws_CO_13012021093521236557',
      operatorTransactionId: 'LGR7OWQX0R',
    });
    expect(stkQueryResult(500, envelope('500.001.1001', 'The transaction is being processed'))).toEqual({ kind: 'PENDING' });
    expect(stkQueryResult(200, { ...answer, ResultCode: '4999', ResultDesc: 'The transaction is still under processing' })).toEqual({ kind: 'PENDING' });
    expect(stkQueryResult(500, envelope('500.003.02', 'busy'))).toMatchObject({ kind: 'UNREACHABLE' });
    expect(stkQueryResult(500, envelope('500.003.1001', 'Internal Server Error'))).toMatchObject({ kind: 'UNREACHABLE' });
    expect(stkQueryResult(200, { ...answer, ResultCode: '1234', ResultDesc: 'new' })).toMatchObject({ kind: 'UNREACHABLE' });
  });

  it('the STK ResultCode table: every documented code', () => {
    const codes: [string, string][] = [
      ['1', 'INSUFFICIENT_FUNDS'],
      ['1001', 'PROVIDER_UNAVAILABLE'],
      ['1019', 'TIMEOUT'],
      ['1025', 'PROVIDER_ERROR'],
      ['1032', 'REJECTED_BY_PAYER'],
      ['1037', 'TIMEOUT'],
      ['2001', 'WRONG_PIN'],
      ['9999', 'PROVIDER_ERROR'],
    ];
    expect(Object.keys(STK_RESULT_CODES).sort()).toEqual(['0', '4999', ...codes.map(([c]) => c)].sort());
    for (const [code, failureCode] of codes) expect(STK_RESULT_CODES[code]).toEqual({ kind: 'FAILED', failureCode });
  });

  it('Transaction Status Query: accepted → PENDING with the ConversationID its Result will carry; anything else unknown', () => {
    const ack = { OriginatorConversationID: '1236-7134259-1', ConversationID: 'AG_20210709_1234409f86436c583e3f', ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
    expect(transactionStatusAck(200, ack)).toEqual({ kind: 'PENDING', statusQueryReference: 'AG_20210709_1234409f86436c583e3f' });
    expect(transactionStatusAck(500, envelope('500.003.1001', 'Internal Server Error'))).toMatchObject({ kind: 'UNREACHABLE' });
    expect(transactionStatusAck(200, { ResponseCode: '0' })).toMatchObject({ kind: 'UNREACHABLE' });
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
  it('an STK callback is only a hint: it names the CheckoutRequestID to query when we never learnt it, never a verdict', () => {
    expect(readDarajaCallback(stk, { direction: 'PAY_IN', reference: 'R', operatorReference: 'R' })).toEqual({ kind: 'QUERY', operatorReference: 'ws_CO_191220191020363925' });
    expect(readDarajaCallback(stk, { direction: 'PAY_IN', reference: 'R', operatorReference: 'ws_CO_1' })).toEqual({ kind: 'QUERY', operatorReference: null });
    expect(readDarajaCallback({}, { direction: 'PAY_IN', reference: 'R', operatorReference: 'R' })).toEqual({ kind: 'QUERY', operatorReference: null });
  });

  const CONVERSATION = 'AG_20191219_00005797af5d7d75f652';
  const b2c = {
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: 'OUR-REF',
      ConversationID: CONVERSATION,
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
  const payout = { direction: 'PAY_OUT' as const, reference: 'OUR-REF', operatorReference: CONVERSATION, statusQueryReference: null };
  const failedWith = (code: string | number, desc: string) => ({ Result: { ...b2c.Result, ResultCode: code, ResultDesc: desc, ResultParameters: undefined } });

  it('a B2C Result carrying the ConversationID Daraja answered us is the verdict, with the receipt', () => {
    expect(readDarajaCallback(b2c, payout)).toEqual({
      kind: 'RESULT',
      status: { kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: 'NLJ41HAY6Q' },
      isStatusQueryAnswer: false,
    });
  });

  const B2C_CODES: [string | number, string, FailureCode][] = [
    [1, 'The balance is insufficient for the transaction.', 'MERCHANT_INSUFFICIENT_FUNDS'],
    [2, 'Declined due to limit rule: less than the minimum transaction amount.', 'LIMIT_EXCEEDED'],
    [3, 'Declined due to limit rule: greater than the maximum transaction amount.', 'LIMIT_EXCEEDED'],
    [4, 'Declined due to limit rule: would exceed daily transfer limit.', 'LIMIT_EXCEEDED'],
    [8, 'Declined due to limit rule: would exceed the maximum balance.', 'LIMIT_EXCEEDED'],
    [11, 'The DebitParty is in an invalid state.', 'CONFIGURATION_ERROR'],
    [21, 'The initiator is not allowed to initiate this request.', 'CONFIGURATION_ERROR'],
    [2001, 'The initiator information is invalid.', 'CONFIGURATION_ERROR'],
    [2006, 'Declined due to account rule: The account status does not allow this transaction.', 'ACCOUNT_INACTIVE'],
    [2028, 'The request is not permitted according to product assignment.', 'CONFIGURATION_ERROR'],
    [2040, "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.", 'PAYEE_NOT_FOUND'],
    [8006, 'The security credential is locked.', 'CONFIGURATION_ERROR'],
    ['SFC_IC0003', 'The operator does not exist.', 'CONFIGURATION_ERROR'],
  ];
  it.each(B2C_CODES)('B2C ResultCode %s → %s', (code, desc, failureCode) => {
    expect(readDarajaCallback(failedWith(code, desc), payout)).toEqual({
      kind: 'RESULT',
      status: { kind: 'FAILED', failureCode, failureReason: `M-Pesa ${code}: ${desc}` },
      isStatusQueryAnswer: false,
    });
  });

  it('the B2C ResultCode table holds exactly the documented codes; any other is unknown: a hint, the status query decides', () => {
    expect(Object.keys(B2C_RESULT_CODES).sort()).toEqual(['0', ...B2C_CODES.map(([c]) => String(c))].sort());
    expect(readDarajaCallback(failedWith(1037, 'DS timeout'), payout)).toEqual({ kind: 'QUERY', operatorReference: null });
    expect(readDarajaCallback(failedWith(17, 'Internal Failure'), payout)).toEqual({ kind: 'QUERY', operatorReference: null });
  });

  it('a Result naming only our reference (which merchants know) is at most a hint; wrong or missing ConversationID vouches for nothing', () => {
    const forged = failedWith(1, 'forged');
    expect(readDarajaCallback({ Result: { ...forged.Result, ConversationID: 'AG_forged' } }, payout)).toEqual({ kind: 'QUERY', operatorReference: null });
    expect(readDarajaCallback({ Result: { ...forged.Result, ConversationID: undefined } }, payout)).toEqual({ kind: 'QUERY', operatorReference: null });
    // Our reference stands in for the ConversationID while the B2C's answer is unknown: it vouches for nothing.
    expect(readDarajaCallback({ Result: { ...forged.Result, ConversationID: 'OUR-REF' } }, { ...payout, operatorReference: 'OUR-REF' })).toEqual({ kind: 'QUERY', operatorReference: null });
    const other = { Result: { ...b2c.Result, OriginatorConversationID: 'OTHER', ConversationID: 'AG_other' } };
    expect(readDarajaCallback(other, payout)).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' }, isStatusQueryAnswer: false });
    expect(readDarajaCallback('garbage', payout)).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' }, isStatusQueryAnswer: false });
  });

  const TSQ_CONVERSATION = 'AG_20170727_00004efadacd98a01d15';
  /** A Transaction Status Result as in a live capture (the pay-out under "Originator Conversation ID", ReasonType a description). */
  const tsq = (status: string, reason: string | undefined, nameKey = 'Originator Conversation ID', named = 'OUR-REF') => ({
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request has been accepted successfully.',
      OriginatorConversationID: '10816-694520-2',
      ConversationID: TSQ_CONVERSATION,
      TransactionID: 'LGR0000000',
      ResultParameters: {
        ResultParameter: [
          { Key: 'ReceiptNo', Value: 'LGR919G2AV' },
          { Key: 'Conversation ID', Value: CONVERSATION },
          { Key: 'FinalisedTime', Value: 20170727101415 },
          { Key: 'Amount', Value: 10 },
          { Key: 'TransactionStatus', Value: status },
          { Key: 'ReasonType', Value: 'Salary Payment via API' },
          reason === undefined ? { Key: 'TransactionReason' } : { Key: 'TransactionReason', Value: reason },
          { Key: 'DebitPartyCharges', Value: 'Fee For B2C Payment|KES|33.00' },
          { Key: 'DebitAccountType', Value: 'Utility Account' },
          { Key: 'InitiatedTime', Value: 20170727101415 },
          { Key: nameKey, Value: named },
          { Key: 'CreditPartyName', Value: '254708374149 - John Doe' },
          { Key: 'DebitPartyName', Value: '600134 - Safaricom157' },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'Occasion', Value: 'aaaa' } },
    },
  });
  const asked = { ...payout, statusQueryReference: TSQ_CONVERSATION };

  it.each(['Originator Conversation ID', 'OriginatorConversationID'])('a Transaction Status Result naming the pay-out under "%s" answers our query', (nameKey) => {
    expect(readDarajaCallback(tsq('Completed', undefined, nameKey), asked)).toEqual({
      kind: 'RESULT',
      status: { kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: 'LGR919G2AV' },
      isStatusQueryAnswer: true,
    });
    expect(readDarajaCallback(tsq('Completed', undefined, nameKey, 'OTHER-REF'), asked)).toMatchObject({ kind: 'RESULT', status: { kind: 'UNREACHABLE' }, isStatusQueryAnswer: true });
  });

  it('ReasonType is a description, never a result code; a failure is read from TransactionReason', () => {
    expect(readDarajaCallback(tsq('Failed', 'The balance is insufficient for the transaction.'), asked)).toEqual({
      kind: 'RESULT',
      status: { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' },
      isStatusQueryAnswer: true,
    });
    expect(readDarajaCallback(tsq('Failed', 'Something else'), asked)).toMatchObject({ status: { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'M-Pesa Failed: Something else' } });
    expect(readDarajaCallback(tsq('Expired', ''), asked)).toMatchObject({ kind: 'RESULT', status: { kind: 'UNREACHABLE' }, isStatusQueryAnswer: true });
  });

  it('a failed B2C keeps its ResultCode and ResultDesc through the Transaction Status Result that confirms it, which names neither', () => {
    // The B2C's Result, vouched for by its ConversationID: a pay-out failure, held until Kolo's query confirms it.
    const reported = readDarajaCallback(failedWith(1, 'The balance is insufficient for the transaction.'), payout);
    expect(reported).toEqual({
      kind: 'RESULT',
      status: { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' },
      isStatusQueryAnswer: false,
    });
    if (reported.kind !== 'RESULT' || reported.status.kind !== 'FAILED') throw new Error('not a failure');
    const { failureCode, failureReason } = reported.status;
    // Daraja's answer to the query: Failed, its TransactionReason without a value (as in live captures) or empty.
    for (const reason of [undefined, '', '  ']) {
      expect(readDarajaCallback(tsq('Failed', reason), { ...asked, reportedFailure: { failureCode, failureReason } })).toEqual({
        kind: 'RESULT',
        status: { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' },
        isStatusQueryAnswer: true,
      });
    }
    // Whatever words the query's TransactionReason has, the Result's code and words are the cause.
    expect(readDarajaCallback(tsq('Failed', 'Insufficient funds'), { ...asked, reportedFailure: { failureCode, failureReason } })).toMatchObject({
      status: { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' },
    });
  });

  it.each(B2C_CODES)('B2C ResultCode %s reported, then confirmed by a Transaction Status Result: still %s', (code, desc, failureCode) => {
    const reportedFailure = { failureCode, failureReason: `M-Pesa ${code}: ${desc}` };
    expect(readDarajaCallback(tsq('Failed', undefined), { ...asked, reportedFailure })).toEqual({
      kind: 'RESULT',
      status: { kind: 'FAILED', failureCode, failureReason: `M-Pesa ${code}: ${desc}` },
      isStatusQueryAnswer: true,
    });
  });

  it('a reported failure is the cause of a confirmed failure only: a Completed answer is the payment; other Results ignore it', () => {
    const reportedFailure = { failureCode: 'MERCHANT_INSUFFICIENT_FUNDS' as const, failureReason: 'M-Pesa 1: The balance is insufficient for the transaction.' };
    expect(readDarajaCallback(tsq('Completed', undefined), { ...asked, reportedFailure })).toEqual({
      kind: 'RESULT',
      status: { kind: 'SUCCEEDED', operatorReference: null, operatorTransactionId: 'LGR919G2AV' },
      isStatusQueryAnswer: true,
    });
    expect(readDarajaCallback(tsq('Expired', ''), { ...asked, reportedFailure })).toMatchObject({ status: { kind: 'UNREACHABLE' } });
    expect(readDarajaCallback(tsq('Failed', undefined), { ...payout, reportedFailure })).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' }, isStatusQueryAnswer: false });
    expect(readDarajaCallback(failedWith(2040, 'x'), { ...payout, reportedFailure })).toMatchObject({ status: { kind: 'FAILED', failureCode: 'PAYEE_NOT_FOUND', failureReason: 'M-Pesa 2040: x' } });
  });

  it("without a reported failure, a Failed answer with no TransactionReason is Daraja's word alone, never a dangling colon", () => {
    for (const reason of [undefined, '']) {
      expect(readDarajaCallback(tsq('Failed', reason), asked)).toEqual({
        kind: 'RESULT',
        status: { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: 'M-Pesa Failed' },
        isStatusQueryAnswer: true,
      });
    }
    // A B2C Result without its ResultDesc keeps its code's meaning and its code.
    expect(readDarajaCallback(failedWith(1, ''), payout)).toMatchObject({ status: { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', failureReason: 'M-Pesa 1' } });
  });

  it('a Transaction Status Result under another ConversationID (a superseded or forged query) changes nothing and starts no query', () => {
    expect(readDarajaCallback(tsq('Completed', undefined), payout)).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' }, isStatusQueryAnswer: false });
    expect(readDarajaCallback(tsq('Failed', 'x'), { ...payout, statusQueryReference: 'AG_newer' })).toEqual({ kind: 'RESULT', status: { kind: 'PENDING' }, isStatusQueryAnswer: false });
  });

  it('a failed Transaction Status query (its own ResultCode) is unknown', () => {
    const failedQuery = { Result: { ResultType: 0, ResultCode: 2001, ResultDesc: 'The initiator information is invalid.', OriginatorConversationID: 'x', ConversationID: TSQ_CONVERSATION } };
    expect(readDarajaCallback(failedQuery, asked)).toMatchObject({ kind: 'RESULT', status: { kind: 'UNREACHABLE' }, isStatusQueryAnswer: true });
  });
});

describe('Account Balance', () => {
  const result = (code: number | string, value?: string) => ({
    Result: { ResultType: 0, ResultCode: code, ResultDesc: 'd', ...(value ? { ResultParameters: { ResultParameter: [{ Key: 'AccountBalance', Value: value }, { Key: 'BOCompletedTime', Value: 20200109125710 }] } } : {}) },
  });
  it("reads the Utility Account's available balance (4th field) from the AccountBalance string", () => {
    const value = 'Working Account|KES|700000.00|700000.00|0.00|0.00&Float Account|KES|0.00|0.00|0.00|0.00&Utility Account|KES|228037.00|228000.00|37.00|0.00&Charges Paid Account|KES|-1540.00|-1540.00|0.00|0.00';
    expect(accountBalanceResult(result(0, value))).toEqual({ kind: 'BALANCE', amount: 228000, currency: 'KES' });
  });
  it('a failed Result, a missing account or an unreadable amount is unknown', () => {
    expect(accountBalanceResult(result(2001))).toMatchObject({ kind: 'UNKNOWN', error: expect.stringContaining('2001') });
    expect(accountBalanceResult(result(0, 'Working Account|KES|1.00|1.00|0.00|0.00'))).toMatchObject({ kind: 'UNKNOWN' });
    expect(accountBalanceResult(result(0, 'Utility Account|KES|n/a|n/a|0.00|0.00'))).toMatchObject({ kind: 'UNKNOWN' });
    expect(accountBalanceResult(undefined)).toMatchObject({ kind: 'UNKNOWN' });
  });
  it('the synchronous answer: ResponseCode 0 is REQUESTED, anything else unknown', () => {
    expect(accountBalanceAck(200, { ResponseCode: '0', ConversationID: 'AG_1' })).toEqual({ kind: 'REQUESTED' });
    expect(accountBalanceAck(401, { errorCode: '401.002.01', errorMessage: 'Invalid Access Token' })).toMatchObject({ kind: 'UNKNOWN', error: expect.stringContaining('401.002.01') });
  });
});
