/**
 * M-Pesa Daraja transformers (operators.md §4): pure functions between our types and Daraja's
 * wire format — STK push (pay-in) and STK Query, B2C v3 (pay-out), Transaction Status Query, and
 * the unsigned callbacks (`Body.stkCallback`, `Result`). No I/O here; `mpesa-connector.ts` sends.
 */
import type { FailureCode, InitiateRequest, InitiateResult, StatusQuery, StatusResult } from '../connector.ts';
import { stringField } from '../operator-http.ts';

/** What the Daraja calls need besides the request (from the configuration; secrets included). */
export interface DarajaAccount {
  /** STK `BusinessShortCode` (paybill or store number). */
  shortCode: string;
  passkey: string;
  transactionType: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  /** STK `PartyB`: the shortcode (paybill) or the till number (buy goods). */
  partyB: string;
  /** B2C `PartyA`: the organisation shortcode that pays out. */
  b2cShortCode: string;
  initiatorName: string;
  /** The initiator password RSA-encrypted with Safaricom's certificate, base64 (from the Daraja portal). */
  securityCredential: string;
}

/** A Daraja request ready to send (JSON body; the plumbing adds `Authorization`). */
export interface DarajaCall {
  method: 'POST';
  path: string;
  body: string;
}

/** Kenya time (EAT, UTC+3, no daylight saving) as Daraja's `yyyyMMddHHmmss` `Timestamp`. */
export function darajaTimestamp(at: Date): string {
  const eat = new Date(at.getTime() + 3 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${eat.getUTCFullYear()}${p(eat.getUTCMonth() + 1)}${p(eat.getUTCDate())}${p(eat.getUTCHours())}${p(eat.getUTCMinutes())}${p(eat.getUTCSeconds())}`;
}

/** STK `Password`: base64(BusinessShortCode + Passkey + Timestamp), with the same Timestamp sent beside it. */
export function darajaPassword(shortCode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortCode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

/** `AccountReference` (≤ 12 characters): the end of our reference, letters and digits only. */
export function accountReferenceOf(reference: string): string {
  return reference.replace(/[^A-Za-z0-9]/g, '').slice(-12);
}

/** STK push (`POST /mpesa/stkpush/v1/processrequest`). Amounts are whole shillings. */
export function stkPushCall(request: InitiateRequest, account: DarajaAccount, callbackUrl: string, at: Date): DarajaCall {
  const timestamp = darajaTimestamp(at);
  return {
    method: 'POST',
    path: '/mpesa/stkpush/v1/processrequest',
    body: JSON.stringify({
      BusinessShortCode: account.shortCode,
      Password: darajaPassword(account.shortCode, account.passkey, timestamp),
      Timestamp: timestamp,
      TransactionType: account.transactionType,
      Amount: request.amount,
      PartyA: request.msisdn,
      PartyB: account.partyB,
      PhoneNumber: request.msisdn,
      CallBackURL: callbackUrl,
      AccountReference: accountReferenceOf(request.reference),
      TransactionDesc: 'Paiement Kolo'.slice(0, 13),
    }),
  };
}

/** STK Query (`POST /mpesa/stkpushquery/v1/query`) for `checkoutRequestId`, with a fresh Timestamp. */
export function stkQueryCall(checkoutRequestId: string, account: DarajaAccount, at: Date): DarajaCall {
  const timestamp = darajaTimestamp(at);
  return {
    method: 'POST',
    path: '/mpesa/stkpushquery/v1/query',
    body: JSON.stringify({
      BusinessShortCode: account.shortCode,
      Password: darajaPassword(account.shortCode, account.passkey, timestamp),
      Timestamp: timestamp,
      CheckoutRequestID: checkoutRequestId,
    }),
  };
}

/** B2C v3 (`POST /mpesa/b2c/v3/paymentrequest`) with our reference as `OriginatorConversationID`. */
export function b2cCall(request: InitiateRequest, account: DarajaAccount, callbackUrl: string): DarajaCall {
  return {
    method: 'POST',
    path: '/mpesa/b2c/v3/paymentrequest',
    body: JSON.stringify({
      OriginatorConversationID: request.reference,
      InitiatorName: account.initiatorName,
      SecurityCredential: account.securityCredential,
      CommandID: 'BusinessPayment',
      Amount: request.amount,
      PartyA: account.b2cShortCode,
      PartyB: request.msisdn,
      Remarks: (request.description ?? request.reference).slice(0, 100),
      QueueTimeOutURL: callbackUrl,
      ResultURL: callbackUrl,
      Occassion: request.reference.slice(0, 100),
    }),
  };
}

/** Transaction Status Query for a B2C (`POST /mpesa/transactionstatus/v1/query`), answered on `callbackUrl`. */
export function transactionStatusCall(reference: string, account: DarajaAccount, callbackUrl: string): DarajaCall {
  return {
    method: 'POST',
    path: '/mpesa/transactionstatus/v1/query',
    body: JSON.stringify({
      Initiator: account.initiatorName,
      SecurityCredential: account.securityCredential,
      CommandID: 'TransactionStatusQuery',
      OriginatorConversationID: reference,
      PartyA: account.b2cShortCode,
      IdentifierType: '4',
      ResultURL: callbackUrl,
      QueueTimeOutURL: callbackUrl,
      Remarks: 'Kolo status query',
      Occasion: reference.slice(0, 100),
    }),
  };
}

/** A Daraja request-level error envelope `{requestId, errorCode, errorMessage}`, or null. */
export function darajaError(json: unknown): { errorCode: string; errorMessage: string } | null {
  const errorCode = stringField(json, 'errorCode');
  if (!errorCode) return null;
  return { errorCode, errorMessage: stringField(json, 'errorMessage') ?? '' };
}

/** True for Daraja's "still processing" answers (STK Query 500.001.1001 "being processed", ResultCode 4999). */
export function isStillProcessing(errorCode: string | undefined, message: string): boolean {
  return errorCode === '4999' || (errorCode === '500.001.1001' && /being processed|under processing/i.test(message));
}

/** True for "Unable to lock subscriber, a transaction is already in process" (another push is open). */
export function isSubscriberLocked(message: string): boolean {
  return /unable to lock subscriber/i.test(message);
}

/**
 * Request-level error code → failureCode when the request certainly did not start anything
 * (§4.4 mapping). Only used on initiation answers: Daraja processes nothing behind an error envelope.
 */
export function darajaErrorFailure(errorCode: string, message: string): FailureCode {
  if (errorCode === '400.002.02' || errorCode.startsWith('400.')) return 'INVALID_REQUEST';
  if (errorCode === '500.003.02' || errorCode === '500.003.03') return 'PROVIDER_UNAVAILABLE';
  if (errorCode === '500.001.1001') return isSubscriberLocked(message) ? 'PROVIDER_UNAVAILABLE' : 'CONFIGURATION_ERROR';
  if (errorCode.startsWith('404.') || errorCode.startsWith('405.')) return 'CONFIGURATION_ERROR';
  return 'PROVIDER_ERROR';
}

/**
 * The exhaustive ResultCode table (§4.4), by direction. `PENDING`: keep waiting. Any code not
 * listed is PROVIDER_ERROR with Daraja's text kept.
 */
export const DARAJA_RESULT_TABLE: Record<string, { payIn: FailureCode | 'SUCCEEDED' | 'PENDING'; payOut: FailureCode | 'SUCCEEDED' | 'PENDING' }> = {
  '0': { payIn: 'SUCCEEDED', payOut: 'SUCCEEDED' },
  '1': { payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS' },
  '1032': { payIn: 'REJECTED_BY_PAYER', payOut: 'PROVIDER_ERROR' },
  '1037': { payIn: 'TIMEOUT', payOut: 'TIMEOUT' },
  '1019': { payIn: 'TIMEOUT', payOut: 'TIMEOUT' },
  '2001': { payIn: 'WRONG_PIN', payOut: 'CONFIGURATION_ERROR' },
  '8006': { payIn: 'CONFIGURATION_ERROR', payOut: 'CONFIGURATION_ERROR' },
  '1001': { payIn: 'PROVIDER_UNAVAILABLE', payOut: 'PROVIDER_UNAVAILABLE' },
  '1025': { payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR' },
  '9999': { payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR' },
  '4999': { payIn: 'PENDING', payOut: 'PENDING' },
};

/** A ResultCode (number or string) and its text → our status. `receipt` is the operator's id on success. */
export function darajaResultOutcome(resultCode: string, resultDesc: string, direction: 'PAY_IN' | 'PAY_OUT', receipt: string | null): StatusResult {
  const row = DARAJA_RESULT_TABLE[resultCode];
  const meaning = row ? (direction === 'PAY_IN' ? row.payIn : row.payOut) : 'PROVIDER_ERROR';
  if (meaning === 'SUCCEEDED') return { kind: 'SUCCEEDED', operatorReference: receipt };
  if (meaning === 'PENDING') return { kind: 'PENDING' };
  return { kind: 'FAILED', failureCode: meaning, failureReason: `M-Pesa ${resultCode}: ${resultDesc}`.trim() };
}

/** STK push answer → initiation result. A non-zero ResponseCode or an error envelope started nothing. */
export function stkPushResult(status: number, json: unknown): InitiateResult {
  const error = darajaError(json);
  if (error) {
    if (status >= 500 && !error.errorCode.startsWith('500.')) return { kind: 'UNREACHABLE', error: `STK push: HTTP ${status} ${error.errorCode}` };
    return { kind: 'FAILED', failureCode: darajaErrorFailure(error.errorCode, error.errorMessage), failureReason: `M-Pesa ${error.errorCode}: ${error.errorMessage}` };
  }
  const code = stringField(json, 'ResponseCode');
  const checkoutRequestId = stringField(json, 'CheckoutRequestID');
  if (status === 200 && code === '0' && checkoutRequestId) return { kind: 'ACCEPTED', operatorReference: checkoutRequestId };
  if (status === 200 && code !== undefined && code !== '0') {
    return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: `M-Pesa ${code}: ${stringField(json, 'ResponseDescription') ?? ''}`.trim() };
  }
  // Anything else (a gateway page, an unexpected shape): we cannot tell whether the push left.
  return { kind: 'UNREACHABLE', error: `STK push: unexpected HTTP ${status}` };
}

/** STK Query answer → status. "Being processed" stays PENDING; other request errors are ambiguous. */
export function stkQueryResult(status: number, json: unknown): StatusResult {
  const error = darajaError(json);
  if (error) {
    if (isStillProcessing(error.errorCode, error.errorMessage)) return { kind: 'PENDING' };
    return { kind: 'UNREACHABLE', error: `STK query: HTTP ${status} ${error.errorCode}` };
  }
  const resultCode = stringField(json, 'ResultCode');
  if (status === 200 && stringField(json, 'ResponseCode') === '0' && resultCode !== undefined) {
    // STK Query carries no receipt number: the callback's MpesaReceiptNumber is not proof.
    return darajaResultOutcome(resultCode, stringField(json, 'ResultDesc') ?? '', 'PAY_IN', stringField(json, 'CheckoutRequestID') ?? null);
  }
  return { kind: 'UNREACHABLE', error: `STK query: unexpected HTTP ${status}` };
}

/** B2C answer → initiation result (ConversationID kept as the operator reference). */
export function b2cResult(status: number, json: unknown): InitiateResult {
  const error = darajaError(json);
  if (error) {
    if (status >= 500 && !error.errorCode.startsWith('500.')) return { kind: 'UNREACHABLE', error: `B2C: HTTP ${status} ${error.errorCode}` };
    return { kind: 'FAILED', failureCode: darajaErrorFailure(error.errorCode, error.errorMessage), failureReason: `M-Pesa ${error.errorCode}: ${error.errorMessage}` };
  }
  const code = stringField(json, 'ResponseCode');
  const conversationId = stringField(json, 'ConversationID');
  if (status === 200 && code === '0' && conversationId) return { kind: 'ACCEPTED', operatorReference: conversationId };
  if (status === 200 && code !== undefined && code !== '0') {
    return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: `M-Pesa ${code}: ${stringField(json, 'ResponseDescription') ?? ''}`.trim() };
  }
  return { kind: 'UNREACHABLE', error: `B2C: unexpected HTTP ${status}` };
}

/** Transaction Status Query answer: accepted (the verdict comes to ResultURL) → PENDING. */
export function transactionStatusAck(status: number, json: unknown): StatusResult {
  const error = darajaError(json);
  if (status === 200 && !error && stringField(json, 'ResponseCode') === '0') return { kind: 'PENDING' };
  return { kind: 'UNREACHABLE', error: `transaction status query: HTTP ${status}${error ? ` ${error.errorCode}` : ''}` };
}

/** What an unsigned Daraja callback tells us. */
export type DarajaCallbackReading =
  /** Only a hint: query the operator (STK: the CheckoutRequestID named, when we never learnt it). */
  | { kind: 'QUERY'; operatorReference: string | null }
  /** A B2C result or Transaction Status result naming this very pay-out: the verdict itself. */
  | { kind: 'RESULT'; status: StatusResult };

/** Looks up `Name`/`Key` in a Daraja item list (order and length vary: never by index). */
export function darajaItem(list: unknown, name: string, nameField: 'Name' | 'Key' = 'Name'): string | undefined {
  const items = Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : [];
  for (const item of items) {
    if (stringField(item, nameField) === name) return stringField(item, 'Value');
  }
  return undefined;
}

/**
 * Reads a callback body for `query`. STK callbacks are always only a hint (we re-query); a B2C
 * `Result` (or a Transaction Status `Result`) is the verdict only when it names our pay-out: its
 * `OriginatorConversationID` is our reference, or its `ConversationID` the one Daraja gave us.
 * Any other pay-out body (a queue-timeout notice, a result naming something else) changes
 * nothing (`RESULT` PENDING): the poller's next Transaction Status Query asks again, and a
 * callback never triggers a query whose own answer is a callback (no loop).
 */
export function readDarajaCallback(body: unknown, query: Pick<StatusQuery, 'direction' | 'reference' | 'operatorReference'>): DarajaCallbackReading {
  const root = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (query.direction === 'PAY_IN') {
    const stk = (root.Body as Record<string, unknown> | undefined)?.stkCallback;
    const id = stringField(stk, 'CheckoutRequestID');
    return { kind: 'QUERY', operatorReference: id && /^[\w.-]{1,64}$/.test(id) ? id : null };
  }
  const result = root.Result as Record<string, unknown> | undefined;
  const resultCode = stringField(result, 'ResultCode');
  const nothing: DarajaCallbackReading = { kind: 'RESULT', status: { kind: 'PENDING' } };
  if (!result || resultCode === undefined) return nothing;
  const parameters = (result.ResultParameters as Record<string, unknown> | undefined)?.ResultParameter;
  const transactionStatus = darajaItem(parameters, 'TransactionStatus', 'Key');
  if (transactionStatus !== undefined) {
    // A Transaction Status Query result: the pay-out it describes is named in its parameters.
    const names = darajaItem(parameters, 'Originator Conversation ID', 'Key') === query.reference;
    if (!names || resultCode !== '0') return nothing;
    if (/^completed$/i.test(transactionStatus)) return { kind: 'RESULT', status: { kind: 'SUCCEEDED', operatorReference: darajaItem(parameters, 'ReceiptNo', 'Key') ?? null } };
    const reasonCode = darajaItem(parameters, 'ReasonType', 'Key');
    if (/^failed$/i.test(transactionStatus) && reasonCode) {
      return { kind: 'RESULT', status: darajaResultOutcome(reasonCode, darajaItem(parameters, 'TransactionReason', 'Key') ?? '', 'PAY_OUT', null) };
    }
    return { kind: 'RESULT', status: { kind: 'PENDING' } };
  }
  const names =
    stringField(result, 'OriginatorConversationID') === query.reference ||
    (query.operatorReference !== null && stringField(result, 'ConversationID') === query.operatorReference);
  if (!names) return nothing;
  const receipt = stringField(result, 'TransactionID') ?? darajaItem(parameters, 'TransactionReceipt', 'Key') ?? null;
  return { kind: 'RESULT', status: darajaResultOutcome(resultCode, stringField(result, 'ResultDesc') ?? '', 'PAY_OUT', receipt) };
}
