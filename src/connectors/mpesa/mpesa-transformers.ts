/**
 * M-Pesa Daraja transformers (Safaricom Daraja 3.0, https://developer.safaricom.co.ke: the
 * Authorization, M-Pesa Express, B2C and TransactionStatus pages): pure functions between our types
 * and Daraja's wire format — OAuth, STK push (pay-in) and STK Query, B2C v3 (pay-out), Transaction
 * Status Query, and the unsigned callbacks (`Body.stkCallback`, `Result`). Every code is read
 * through a table of Daraja's documented codes (`documentedOutcome`): anything else is unknown,
 * never a failure. No I/O here; `mpesa-connector.ts` sends.
 */
import { documentedOutcome, type BalanceResult, type CallbackReading, type DocumentedMeaning, type InitiateRequest, type InitiateResult, type StatusQuery, type StatusResult } from '../connector.ts';
import { stringField } from '../operator-http.ts';
import { baseUnitDigits } from '../../domain/currency.ts';

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
  /** The `errorCode` this API answers for an invalid token (`DARAJA_INVALID_TOKEN_CODES`). */
  invalidTokenCode: string;
}

/**
 * Daraja's "invalid access token" `errorCode`, which differs per API (Daraja 3.0 pages:
 * `404.001.03` STK, `400.003.01` Transaction Status, `401.002.01` Account Balance). B2C's page
 * names none; `404.001.03` is the family's code. An HTTP 401 means the same on every API. The
 * request was not processed: one token refresh and one resend are safe.
 */
export const DARAJA_INVALID_TOKEN_CODES = {
  stkPush: '404.001.03',
  stkQuery: '404.001.03',
  b2c: '404.001.03',
  transactionStatus: '400.003.01',
  accountBalance: '401.002.01',
} as const;

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
    invalidTokenCode: DARAJA_INVALID_TOKEN_CODES.stkPush,
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
    invalidTokenCode: DARAJA_INVALID_TOKEN_CODES.stkQuery,
    body: JSON.stringify({
      BusinessShortCode: account.shortCode,
      Password: darajaPassword(account.shortCode, account.passkey, timestamp),
      Timestamp: timestamp,
      CheckoutRequestID: checkoutRequestId,
    }),
  };
}

/**
 * A B2C's `OriginatorConversationID`: our reference, or, for a pay-out sent again after Daraja
 * refused it for want of Kolo's float (`resend` > 0), `<reference>-R<resend>` — Daraja refuses a
 * repeated OriginatorConversationID (`500.002.1001`), and the refused send stays named by its own.
 */
export function b2cOriginatorId(transaction: { reference: string; resend?: number | undefined }): string {
  return transaction.resend ? `${transaction.reference}-R${transaction.resend}` : transaction.reference;
}

/** B2C v3 (`POST /mpesa/b2c/v3/paymentrequest`) with the prepared id (`b2cOriginatorId`) as `OriginatorConversationID`. */
export function b2cCall(request: InitiateRequest, account: DarajaAccount, callbackUrl: string): DarajaCall {
  return {
    method: 'POST',
    path: '/mpesa/b2c/v3/paymentrequest',
    invalidTokenCode: DARAJA_INVALID_TOKEN_CODES.b2c,
    body: JSON.stringify({
      OriginatorConversationID: b2cOriginatorId(request),
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

/**
 * Transaction Status Query for a B2C (`POST /mpesa/transactionstatus/v1/query`), answered on
 * `callbackUrl`. The pay-out is named by `OriginalConversationID`: the B2C's originator
 * conversation id, our reference (Daraja 3.0 "TransactionStatus" page).
 */
export function transactionStatusCall(reference: string, account: DarajaAccount, callbackUrl: string): DarajaCall {
  return {
    method: 'POST',
    path: '/mpesa/transactionstatus/v1/query',
    invalidTokenCode: DARAJA_INVALID_TOKEN_CODES.transactionStatus,
    body: JSON.stringify({
      Initiator: account.initiatorName,
      SecurityCredential: account.securityCredential,
      CommandID: 'TransactionStatusQuery',
      OriginalConversationID: reference,
      PartyA: account.b2cShortCode,
      IdentifierType: '4',
      ResultURL: callbackUrl,
      QueueTimeOutURL: callbackUrl,
      Remarks: 'Kolo status query',
      Occasion: reference.slice(0, 100),
    }),
  };
}

/**
 * Account Balance (`POST /mpesa/accountbalance/v1/query`) of the B2C shortcode, the organisation
 * that pays pay-outs; Daraja accepts it at once and posts the balance as a Result to
 * `resultUrl` (Daraja 3.0 "Account Balance" page: `CommandID` `AccountBalance`, `IdentifierType`
 * 4 for an organisation shortcode).
 */
export function accountBalanceCall(account: DarajaAccount, resultUrl: string): DarajaCall {
  return {
    method: 'POST',
    path: '/mpesa/accountbalance/v1/query',
    invalidTokenCode: DARAJA_INVALID_TOKEN_CODES.accountBalance,
    body: JSON.stringify({
      Initiator: account.initiatorName,
      SecurityCredential: account.securityCredential,
      CommandID: 'AccountBalance',
      PartyA: account.b2cShortCode,
      IdentifierType: '4',
      Remarks: 'Kolo float',
      QueueTimeOutURL: resultUrl,
      ResultURL: resultUrl,
    }),
  };
}

/**
 * The synchronous answer to Account Balance: `ResponseCode` "0" is REQUESTED (the Result follows
 * on the ResultURL); anything else is UNKNOWN with Daraja's words.
 */
export function accountBalanceAck(status: number, json: unknown): BalanceResult {
  if (status === 200 && stringField(json, 'ResponseCode') === '0') return { kind: 'REQUESTED' };
  const error = darajaError(json);
  return { kind: 'UNKNOWN', error: `M-Pesa Account Balance: HTTP ${status}${error ? ` ${error.errorCode} ${error.errorMessage}` : ''}` };
}

/** The Daraja account whose available balance pays B2C pay-outs (Safaricom: B2C debits the Utility Account). */
export const DARAJA_PAY_OUT_ACCOUNT = 'Utility Account';

/**
 * Reads an Account Balance Result posted to the ResultURL:
 * `{"Result": {"ResultCode": 0, "ResultParameters": {"ResultParameter": [{"Key": "AccountBalance",
 * "Value": "Working Account|KES|700000.00|700000.00|0.00|0.00&Utility Account|KES|228037.00|228037.00|0.00|0.00&…"}, …]}}}`
 * — accounts separated by `&`, each `name|currency|current|available|reserved|uncleared`. The
 * float is the `Utility Account`'s available balance (`DARAJA_PAY_OUT_ACCOUNT`), in base units.
 * A non-zero ResultCode (e.g. 2001, wrong initiator), a missing account or an unreadable amount
 * is UNKNOWN with why.
 */
export function accountBalanceResult(body: unknown): BalanceResult {
  const result = (body as { Result?: Record<string, unknown> } | undefined)?.Result;
  if (!result || typeof result !== 'object') return { kind: 'UNKNOWN', error: 'M-Pesa Account Balance: no Result' };
  const code = String(result.ResultCode ?? '');
  if (code !== '0') return { kind: 'UNKNOWN', error: `M-Pesa Account Balance: ResultCode ${code} ${String(result.ResultDesc ?? '')}`.trim() };
  const value = darajaItem((result.ResultParameters as { ResultParameter?: unknown } | undefined)?.ResultParameter, 'AccountBalance', 'Key');
  if (!value) return { kind: 'UNKNOWN', error: 'M-Pesa Account Balance: no AccountBalance parameter' };
  const account = value
    .split('&')
    .map((part) => part.split('|'))
    .find((fields) => fields[0]?.trim() === DARAJA_PAY_OUT_ACCOUNT);
  const currency = account?.[1]?.trim();
  const available = account?.[3]?.trim();
  if (!currency || !available || !/^-?\d+(\.\d{1,2})?$/.test(available)) {
    return { kind: 'UNKNOWN', error: `M-Pesa Account Balance: no readable ${DARAJA_PAY_OUT_ACCOUNT} in ${value.slice(0, 200)}` };
  }
  return { kind: 'BALANCE', amount: Math.round(Number(available) * 10 ** baseUnitDigits(currency)), currency };
}

/** A Daraja token, or why there is none. */
export type DarajaTokenAnswer =
  | { token: string; expiresInSeconds: number }
  | { kind: 'TOKEN_REFUSED'; error: string }
  | { kind: 'UNREACHABLE'; error: string };

/**
 * `GET /oauth/v1/generate` answer → token. `expires_in` is a number (3599) on Daraja's
 * Authorization page and a string ("3599") in older samples: both are read. A 5xx or an
 * unreadable 200 is unknown (ask again); any other status is a refusal (wrong credentials).
 */
export function darajaTokenAnswer(status: number, json: unknown): DarajaTokenAnswer {
  const token = stringField(json, 'access_token');
  const expiresIn = Number(stringField(json, 'expires_in'));
  if (status === 200 && token) return { token, expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3599 };
  const code = stringField(json, 'errorCode');
  const detail = `M-Pesa token: HTTP ${status}${code ? ` ${code}` : ''}`;
  return status >= 500 || status === 200 ? { kind: 'UNREACHABLE', error: detail } : { kind: 'TOKEN_REFUSED', error: detail };
}

/** A Daraja request-level error envelope `{requestId, errorCode, errorMessage}`, or null. */
export function darajaError(json: unknown): { errorCode: string; errorMessage: string } | null {
  const errorCode = stringField(json, 'errorCode');
  if (!errorCode) return null;
  return { errorCode, errorMessage: stringField(json, 'errorMessage') ?? '' };
}

/** True for Daraja's "still processing" answers to an STK Query (`500.001.1001` "being processed"). */
export function isStillProcessing(errorCode: string | undefined, message: string): boolean {
  return errorCode === '500.001.1001' && /being processed|under processing/i.test(message);
}

/** True for "Unable to lock subscriber, a transaction is already in process" (another push is open). */
export function isSubscriberLocked(message: string): boolean {
  return /unable to lock subscriber/i.test(message);
}

/**
 * The error envelopes Daraja documents as definite refusals of an initiation (STK push, B2C):
 * nothing was started (the error tables of the Daraja 3.0 M-Pesa Express and B2C pages).
 * `500.001.1001` is "unable to lock subscriber" (PROVIDER_UNAVAILABLE, by its message), or wrong
 * credentials / unknown merchant (CONFIGURATION_ERROR). Not here, so unknown: `500.003.1001`
 * "Internal Server Error" and every other 5xx (the push or the B2C may have gone out), and
 * `500.002.1001` "duplicate OriginatorConversationID", which refuses this request but says an
 * earlier one under the same reference reached Daraja: only its status query can tell what became
 * of it.
 */
export const DARAJA_REFUSALS: Readonly<Record<string, DocumentedMeaning>> = {
  '400.002.02': { kind: 'FAILED', failureCode: 'INVALID_REQUEST' },
  '404.001.01': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' },
  // Still refused after one token refresh: the app's credentials or products are wrong.
  '404.001.03': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' },
  '405.001': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' },
  '500.001.1001': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR' },
  '500.003.02': { kind: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' },
  '500.003.03': { kind: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' },
};

/**
 * STK `ResultCode`s (callback and STK Query, Daraja 3.0 M-Pesa Express): `4999` "still under
 * processing" keeps waiting; `1001` "unable to lock subscriber" means another push is open.
 */
export const STK_RESULT_CODES: Readonly<Record<string, DocumentedMeaning>> = {
  '0': { kind: 'SUCCEEDED' },
  '1': { kind: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' },
  '1001': { kind: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE' },
  '1019': { kind: 'FAILED', failureCode: 'TIMEOUT' },
  '1025': { kind: 'FAILED', failureCode: 'PROVIDER_ERROR' },
  '1032': { kind: 'FAILED', failureCode: 'REJECTED_BY_PAYER' },
  '1037': { kind: 'FAILED', failureCode: 'TIMEOUT' },
  '2001': { kind: 'FAILED', failureCode: 'WRONG_PIN' },
  '4999': { kind: 'PENDING' },
  '9999': { kind: 'FAILED', failureCode: 'PROVIDER_ERROR' },
};

/**
 * B2C `ResultCode`s (Daraja 3.0 B2C page and its result-code table), each with Daraja's description
 * (read back from a Transaction Status result's `TransactionReason`). `1` is the organisation's
 * account; `2`/`3`/`4`/`8` are limit rules; `11` the paying account's state, `21`, `2028`,
 * `SFC_IC0003` the initiator or product set-up, `2001` a wrong SecurityCredential (accepted at the
 * request, refused here), `2006` the customer's account state, `2040` an unregistered customer.
 */
export const B2C_RESULT_CODES: Readonly<Record<string, DocumentedMeaning & { description?: string }>> = {
  '0': { kind: 'SUCCEEDED' },
  '1': { kind: 'FAILED', failureCode: 'MERCHANT_INSUFFICIENT_FUNDS', description: 'The balance is insufficient for the transaction.' },
  '2': { kind: 'FAILED', failureCode: 'LIMIT_EXCEEDED', description: 'Declined due to limit rule: less than the minimum transaction amount.' },
  '3': { kind: 'FAILED', failureCode: 'LIMIT_EXCEEDED', description: 'Declined due to limit rule: greater than the maximum transaction amount.' },
  '4': { kind: 'FAILED', failureCode: 'LIMIT_EXCEEDED', description: 'Declined due to limit rule: would exceed daily transfer limit.' },
  '8': { kind: 'FAILED', failureCode: 'LIMIT_EXCEEDED', description: 'Declined due to limit rule: would exceed the maximum balance.' },
  '11': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The DebitParty is in an invalid state.' },
  '21': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The initiator is not allowed to initiate this request.' },
  '2001': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The initiator information is invalid.' },
  '2006': { kind: 'FAILED', failureCode: 'ACCOUNT_INACTIVE', description: 'Declined due to account rule: The account status does not allow this transaction.' },
  '2028': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The request is not permitted according to product assignment.' },
  '2040': {
    kind: 'FAILED',
    failureCode: 'PAYEE_NOT_FOUND',
    description: "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
  },
  '8006': { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The security credential is locked.' },
  SFC_IC0003: { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', description: 'The operator does not exist.' },
};

/**
 * A Transaction Status result's `TransactionStatus` (its `ResultParameters`). `Completed` is on
 * Daraja's page; `Failed` is the status of a transaction that moved nothing, whose reason is in
 * `TransactionReason`. Any other value is unknown: the pay-out stays watched.
 */
export const TRANSACTION_STATUS_VALUES: Readonly<Record<string, DocumentedMeaning>> = {
  Completed: { kind: 'SUCCEEDED' },
  Failed: { kind: 'FAILED', failureCode: 'PROVIDER_ERROR' },
};

/**
 * A failure reason in Daraja's own words: `M-Pesa <code>: <description>`, or `M-Pesa <code>` when
 * it gave no description (never a dangling colon, never words of ours in place of Daraja's).
 */
function darajaReason(code: string, description: string | undefined): string {
  const words = (description ?? '').trim();
  return words ? `M-Pesa ${code}: ${words}` : `M-Pesa ${code}`;
}

/** An initiation refused by a documented error envelope, or unknown (`InitiateResult`). */
function refusal(what: string, status: number, error: { errorCode: string; errorMessage: string }): InitiateResult {
  const reason = darajaReason(error.errorCode, error.errorMessage);
  if (error.errorCode === '500.002.1001') {
    return { kind: 'UNREACHABLE', error: `${what}: HTTP ${status} ${reason} (an earlier request under this reference reached Daraja)` };
  }
  if (error.errorCode === '500.001.1001' && isSubscriberLocked(error.errorMessage)) {
    return { kind: 'FAILED', failureCode: 'PROVIDER_UNAVAILABLE', failureReason: reason };
  }
  const outcome = documentedOutcome(DARAJA_REFUSALS, error.errorCode, reason);
  if (outcome.kind === 'FAILED') return outcome;
  return { kind: 'UNREACHABLE', error: `${what}: HTTP ${status} ${reason}` };
}

/**
 * An initiation answer → result: accepted with `id` (200, ResponseCode "0"); a documented refusal;
 * a 200 with another ResponseCode (Daraja 3.0 M-Pesa Express: not initiated); an HTTP 401 (token
 * refused even after a refresh). Anything else — any other 5xx, a gateway page, an unexpected shape
 * — is unknown: the request may have been processed.
 */
function initiationResult(what: string, status: number, json: unknown, idField: 'CheckoutRequestID' | 'ConversationID'): InitiateResult {
  const error = darajaError(json);
  if (error) return refusal(what, status, error);
  const code = stringField(json, 'ResponseCode');
  const id = stringField(json, idField);
  if (status === 200 && code === '0' && id) return { kind: 'ACCEPTED', operatorReference: id };
  if (status === 200 && code !== undefined && code !== '0') {
    return { kind: 'FAILED', failureCode: 'PROVIDER_ERROR', failureReason: darajaReason(code, stringField(json, 'ResponseDescription')) };
  }
  if (status === 401) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'M-Pesa HTTP 401: access token refused' };
  return { kind: 'UNREACHABLE', error: `${what}: unexpected HTTP ${status}` };
}

/** STK push answer → initiation result (CheckoutRequestID kept as the operator reference). */
export function stkPushResult(status: number, json: unknown): InitiateResult {
  return initiationResult('STK push', status, json, 'CheckoutRequestID');
}

/** B2C answer → initiation result (ConversationID kept as the operator reference). */
export function b2cResult(status: number, json: unknown): InitiateResult {
  return initiationResult('B2C', status, json, 'ConversationID');
}

/**
 * STK Query answer → status. "Being processed" (`500.001.1001`) is PENDING; other request
 * errors are unknown. STK Query carries no receipt: `receipt` is the `MpesaReceiptNumber` a
 * callback named for this push, if any.
 */
export function stkQueryResult(status: number, json: unknown, receipt: string | null = null): StatusResult {
  const error = darajaError(json);
  if (error) {
    if (isStillProcessing(error.errorCode, error.errorMessage)) return { kind: 'PENDING' };
    return { kind: 'UNREACHABLE', error: `STK query: HTTP ${status} ${error.errorCode}` };
  }
  const resultCode = stringField(json, 'ResultCode');
  if (status === 200 && stringField(json, 'ResponseCode') === '0' && resultCode !== undefined) {
    const reason = darajaReason(resultCode, stringField(json, 'ResultDesc'));
    return documentedOutcome(STK_RESULT_CODES, resultCode, reason, { operatorReference: stringField(json, 'CheckoutRequestID') ?? null, operatorTransactionId: receipt });
  }
  return { kind: 'UNREACHABLE', error: `STK query: unexpected HTTP ${status}` };
}

/**
 * Transaction Status Query answer: accepted (its verdict will come to ResultURL under the
 * `ConversationID` answered here) → PENDING with that id; anything else is unknown.
 */
export function transactionStatusAck(status: number, json: unknown): StatusResult {
  const error = darajaError(json);
  const conversationId = stringField(json, 'ConversationID');
  if (status === 200 && !error && stringField(json, 'ResponseCode') === '0' && conversationId) return { kind: 'PENDING', statusQueryReference: conversationId };
  return { kind: 'UNREACHABLE', error: `transaction status query: HTTP ${status}${error ? ` ${error.errorCode}` : ''}` };
}

/** Looks up `Name`/`Key` in a Daraja item list (order and length vary: never by index). */
export function darajaItem(list: unknown, name: string, nameField: 'Name' | 'Key' = 'Name'): string | undefined {
  const items = Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : [];
  for (const item of items) {
    if (stringField(item, nameField) === name) return stringField(item, 'Value');
  }
  return undefined;
}

/** What an STK callback (`Body.stkCallback`) says, or null when the body is not one. */
export interface StkCallback {
  checkoutRequestId: string;
  resultCode: string | null;
  /** `MpesaReceiptNumber` from `CallbackMetadata`, present on success. */
  receipt: string | null;
}

const OPERATOR_ID = /^[\w.-]{1,64}$/;

/** Reads an STK callback body; ids that do not look like Daraja's are ignored. */
export function stkCallbackOf(body: unknown): StkCallback | null {
  const root = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const stk = (root.Body as Record<string, unknown> | undefined)?.stkCallback;
  const checkoutRequestId = stringField(stk, 'CheckoutRequestID');
  if (!checkoutRequestId || !OPERATOR_ID.test(checkoutRequestId)) return null;
  const items = ((stk as Record<string, unknown>).CallbackMetadata as Record<string, unknown> | undefined)?.Item;
  const receipt = darajaItem(items, 'MpesaReceiptNumber');
  return { checkoutRequestId, resultCode: stringField(stk, 'ResultCode') ?? null, receipt: receipt && OPERATOR_ID.test(receipt) ? receipt : null };
}

/** A B2C `Result` → status (`ResultCode` through `B2C_RESULT_CODES`; the receipt on success). */
export function b2cResultStatus(result: Record<string, unknown>): StatusResult {
  const code = stringField(result, 'ResultCode');
  const parameters = (result.ResultParameters as Record<string, unknown> | undefined)?.ResultParameter;
  const receipt = darajaItem(parameters, 'TransactionReceipt', 'Key') ?? stringField(result, 'TransactionID') ?? null;
  const reason = darajaReason(code ?? '?', stringField(result, 'ResultDesc'));
  return documentedOutcome(B2C_RESULT_CODES, code, reason, { operatorReference: null, operatorTransactionId: receipt || null });
}

/**
 * A Transaction Status `Result` → the status of the pay-out it describes. The query itself
 * failed (`ResultCode` ≠ 0: wrong initiator, no such transaction…) → unknown. `ReasonType` is a
 * description ("Salary Payment via API"), never a code; a `Failed` transaction's code is found
 * by its `TransactionReason` among the B2C descriptions (PROVIDER_ERROR when none matches, with
 * Daraja's words as they came: `M-Pesa Failed: <reason>`, or `M-Pesa Failed` when it gave none,
 * as live captures show it). The pay-out is named under `"Originator Conversation ID"` (live
 * captures) or `"OriginatorConversationID"` (Daraja 3.0 sample): one naming another pay-out is
 * unknown.
 */
export function transactionStatusResultStatus(result: Record<string, unknown>, reference: string): StatusResult {
  const code = stringField(result, 'ResultCode');
  const parameters = (result.ResultParameters as Record<string, unknown> | undefined)?.ResultParameter;
  if (code !== '0') return { kind: 'UNREACHABLE', error: `transaction status result ${JSON.stringify(code ?? null)}: ${stringField(result, 'ResultDesc') ?? ''}`.slice(0, 500) };
  const named = darajaItem(parameters, 'Originator Conversation ID', 'Key') ?? darajaItem(parameters, 'OriginatorConversationID', 'Key');
  if (named !== undefined && named !== reference) return { kind: 'UNREACHABLE', error: 'transaction status result names another transaction' };
  const transactionStatus = darajaItem(parameters, 'TransactionStatus', 'Key');
  const why = (darajaItem(parameters, 'TransactionReason', 'Key') ?? '').trim();
  const receipt = darajaItem(parameters, 'ReceiptNo', 'Key');
  const outcome = documentedOutcome(TRANSACTION_STATUS_VALUES, transactionStatus, darajaReason(transactionStatus ?? '?', why), {
    operatorReference: null,
    operatorTransactionId: receipt || null,
  });
  if (outcome.kind !== 'FAILED') return outcome;
  // Read back as the B2C Result would have said it, so both paths give the same failure.
  const described = Object.entries(B2C_RESULT_CODES).find(([, row]) => row.kind === 'FAILED' && row.description?.toLowerCase() === why.toLowerCase());
  if (!described || described[1].kind !== 'FAILED') return outcome;
  return { kind: 'FAILED', failureCode: described[1].failureCode, failureReason: darajaReason(described[0], why) };
}

/** True when a `Result` is a Transaction Status result (its parameters carry `TransactionStatus`). */
function isTransactionStatusResult(result: Record<string, unknown>): boolean {
  const parameters = (result.ResultParameters as Record<string, unknown> | undefined)?.ResultParameter;
  return darajaItem(parameters, 'TransactionStatus', 'Key') !== undefined;
}

const NOTHING: StatusResult = { kind: 'PENDING' };

/**
 * Reads a callback body for `query` (`Connector.readCallback`). Daraja signs nothing, and our
 * reference (the B2C's `OriginatorConversationID`) is known to the merchant; only a
 * `ConversationID` is known to Daraja and Kolo alone (answered synchronously, never shown):
 * - STK (`Body.stkCallback`): a hint. It names the CheckoutRequestID to query when the push's
 *   answer never reached us (our reference still stands in for it); STK Query decides.
 * - a `Result` whose `ConversationID` is the B2C's (`operatorReference`): the B2C's verdict;
 *   under a code missing from `B2C_RESULT_CODES` (a queue-timeout notice…), a hint instead.
 * - a `Result` whose `ConversationID` is our last Transaction Status Query's
 *   (`statusQueryReference`): that query's answer (`isStatusQueryAnswer`). A failure it confirms
 *   is the one the B2C's own Result reported (`reportedFailure`: its ResultCode's meaning and its
 *   ResultDesc), when one did: the Transaction Status result carries no ResultCode, and its
 *   `TransactionReason` is often empty.
 * - a B2C-shaped `Result` naming only our reference (a Result for a B2C whose answer was lost, a
 *   queue-timeout notice, or a forgery): a hint, the status query decides.
 * - anything else, a stale Transaction Status result included: nothing (RESULT PENDING). Never a
 *   hint, so that answers to superseded queries cannot start new queries without end.
 */
export function readDarajaCallback(
  body: unknown,
  query: Pick<StatusQuery, 'direction' | 'reference' | 'operatorReference' | 'statusQueryReference' | 'reportedFailure' | 'resend'>,
): CallbackReading {
  if (query.direction === 'PAY_IN') {
    const stk = stkCallbackOf(body);
    const unnamed = !query.operatorReference || query.operatorReference === query.reference;
    return { kind: 'QUERY', operatorReference: unnamed && stk ? stk.checkoutRequestId : null };
  }
  const root = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const result = typeof root.Result === 'object' && root.Result !== null ? (root.Result as Record<string, unknown>) : null;
  const nothing: CallbackReading = { kind: 'RESULT', status: NOTHING, isStatusQueryAnswer: false };
  if (!result) return nothing;
  const conversationId = stringField(result, 'ConversationID');
  const isTransactionStatus = isTransactionStatusResult(result);
  if (conversationId && query.statusQueryReference && conversationId === query.statusQueryReference) {
    const status = transactionStatusResultStatus(result, b2cOriginatorId(query));
    const reported = status.kind === 'FAILED' ? query.reportedFailure : null;
    return { kind: 'RESULT', status: reported ? { kind: 'FAILED', ...reported } : status, isStatusQueryAnswer: true };
  }
  // Our reference stands in for the ConversationID until Daraja answers: it vouches for nothing.
  const originator = b2cOriginatorId(query);
  const knowsConversation = query.operatorReference !== null && query.operatorReference !== originator;
  if (!isTransactionStatus && knowsConversation && conversationId === query.operatorReference) {
    const status = b2cResultStatus(result);
    return status.kind === 'SUCCEEDED' || status.kind === 'FAILED' ? { kind: 'RESULT', status, isStatusQueryAnswer: false } : { kind: 'QUERY', operatorReference: null };
  }
  if (!isTransactionStatus && stringField(result, 'OriginatorConversationID') === originator) return { kind: 'QUERY', operatorReference: null };
  return nothing;
}
