/**
 * A standalone M-Pesa Daraja simulator (`kolo simulate mpesa --port N`), following Safaricom Daraja
 * 3.0 (https://developer.safaricom.co.ke): `GET /oauth/v1/generate?grant_type=client_credentials`
 * (Basic consumer key:secret → `expires_in` a number, or a string with `tokenExpiresInAsString`;
 * each new token invalidates the previous ones), every API call with `Authorization: Bearer` (each
 * API's invalid-token code: `404.001.03` STK and B2C, `400.003.01` Transaction Status) and
 * `Content-Type: application/json` (`400.002.02` otherwise), Daraja's
 * `{requestId, errorCode, errorMessage}` envelope; STK push with the Password/Timestamp rule
 * checked, one open prompt per subscriber ("Unable to lock subscriber"), STK Query ("The
 * transaction is being processed" while open), the `Body.stkCallback` callback; B2C v3 with our
 * `OriginatorConversationID` (a repeated one: `500.002.1001`; a wrong initiator or
 * SecurityCredential is accepted and answered by a Result 2001), its `Result` posted to
 * `ResultURL`; the Transaction Status Query naming the transaction by `OriginalConversationID` or
 * `TransactionID` (nothing else), whose `Result` (the live capture's shape: the transaction under
 * `"Originator Conversation ID"`, `ReasonType` a description) is posted to its `ResultURL` under
 * the `ConversationID` it answered; Account Balance, whose Result (the `AccountBalance` string of
 * the Working Account, credited by paid pushes, and the Utility Account, `orgBalance`, debited
 * by paid B2Cs) is posted to its `ResultURL`. Test and staging tooling only.
 *
 * Fault modes: the fault switch (`fault`: answer `500.003.1001` or hold past the client's
 * timeout, after processing the request or not), latencies (`latencyMs`: token, STK push and
 * B2C, STK Query and Transaction Status), a late decision (phones ending in `198`, after
 * `lateDecisionDelayMs`: past the rail's deadline), callbacks dropped or sent twice
 * (`callbacks`). `moved()` lists every movement of money it made, for reconciliation.
 *
 * The sandbox defaults are Daraja's documented ones: shortcode `174379` with its public sandbox
 * passkey, test MSISDN `254708374149`, B2C shortcode `600996`, initiator `testapi`. Safaricom
 * publishes no outcome numbers, so these triggers are the simulator's own (last three digits of
 * the STK `PhoneNumber`, see `MPESA_STK_TRIGGERS` and docs/going-live.md): 001 insufficient balance (1) ·
 * 032 cancelled by the customer (1032) · 037 no answer (1037) · 019 expired (1019) · 201 wrong
 * PIN (2001) · 025 push not sent (1025) · any other number (the test MSISDN included): paid.
 * B2C (last three digits of `PartyB`, `MPESA_B2C_TRIGGERS`): 002/003/004/008 limit rules,
 * 006 account status (2006), 040 unregistered customer (2040); a payment above the
 * organisation's balance (`orgBalance`, a setting) fails with ResultCode 1; otherwise it is paid.
 * A failed transaction's Transaction Status result says `Failed` with its ResultDesc as
 * `TransactionReason` (or, with `statusResultHasReason` false, that key without a value, as live
 * captures show it); one Daraja has no record of is answered `R000001` (simulator-defined).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  answerFault,
  CALLBACK_SETTING_RULES,
  createSimCore,
  faultHits,
  hold,
  latencyRules,
  mergeSimOptions,
  parseBasic,
  parseJsonObject,
  SIM_COMMON_DEFAULTS,
  sendJson,
  type SimCommonOptions,
  type SimHandle,
  type SimLatency,
  type SimRequest,
} from '../../simulator-http.ts';
import { createSimStatement, type SimStatement } from '../../sim-statement.ts';
import { darajaTime } from '../mpesa-statement.ts';

/** Daraja's public sandbox passkey for shortcode 174379 (from the Daraja test credentials page). */
export const DARAJA_SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface MpesaSimulatorOptions extends SimCommonOptions {
  consumerKey: string;
  consumerSecret: string;
  shortCode: string;
  passkey: string;
  b2cShortCode: string;
  initiatorName: string;
  securityCredential: string;
  /**
   * The organisation's Utility Account, whole shillings: debited by each paid B2C (a B2C above it
   * fails with ResultCode 1), read by Account Balance; a test may set it.
   */
  orgBalance: number;
  /** The organisation's Working Account, whole shillings: credited by each paid STK push; read by Account Balance. */
  workingBalance: number;
  /** Decision delay for phones ending in `198` ("late success"): long enough to pass the rail's deadline. */
  lateDecisionDelayMs: number;
  tokenTtlSeconds: number;
  /** `expires_in` as a string ("3599", older samples) instead of a number (Authorization page). */
  tokenExpiresInAsString: boolean;
  /** The key naming the transaction in a Transaction Status result (live captures / Daraja 3.0 sample). */
  statusResultNameKey: 'Originator Conversation ID' | 'OriginatorConversationID';
  /**
   * Whether a failed transaction's Transaction Status result carries its ResultDesc as
   * `TransactionReason`; false: the key without a value (live captures), so only the B2C's own
   * Result says why it failed.
   */
  statusResultHasReason: boolean;
  /** Waits before handling tokens, STK pushes and B2C payments (initiate), STK and Transaction Status queries (status). */
  latencyMs: SimLatency;
}

/** Default credentials (Daraja's sandbox values where it publishes them), documented in docs/going-live.md. */
export const MPESA_SIM_DEFAULTS: MpesaSimulatorOptions = {
  ...SIM_COMMON_DEFAULTS,
  consumerKey: 'sim-daraja-consumer-key',
  consumerSecret: 'sim-daraja-consumer-secret',
  shortCode: '174379',
  passkey: DARAJA_SANDBOX_PASSKEY,
  b2cShortCode: '600996',
  initiatorName: 'testapi',
  securityCredential: 'sim-security-credential',
  orgBalance: 1_000_000,
  workingBalance: 0,
  lateDecisionDelayMs: 120_000,
  tokenTtlSeconds: 3599,
  tokenExpiresInAsString: false,
  statusResultNameKey: 'Originator Conversation ID',
  statusResultHasReason: true,
};

/** The documented Daraja sandbox test MSISDN. */
export const DARAJA_TEST_MSISDN = '254708374149';

/** Simulator-defined STK outcomes by the last three digits of `PhoneNumber`. */
export const MPESA_STK_TRIGGERS: Record<string, { resultCode: number; resultDesc: string }> = {
  '001': { resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' },
  '032': { resultCode: 1032, resultDesc: 'Request cancelled by user' },
  '037': { resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
  '019': { resultCode: 1019, resultDesc: 'Transaction has expired' },
  '201': { resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  '025': { resultCode: 1025, resultDesc: 'An error occurred while sending a push request' },
};

/** Simulator-defined B2C outcomes by the last three digits of `PartyB` (descriptions from Daraja's B2C page). */
export const MPESA_B2C_TRIGGERS: Record<string, { resultCode: number; resultDesc: string }> = {
  '002': { resultCode: 2, resultDesc: 'Declined due to limit rule: less than the minimum transaction amount.' },
  '003': { resultCode: 3, resultDesc: 'Declined due to limit rule: greater than the maximum transaction amount.' },
  '004': { resultCode: 4, resultDesc: 'Declined due to limit rule: would exceed daily transfer limit.' },
  '008': { resultCode: 8, resultDesc: 'Declined due to limit rule: would exceed the maximum balance.' },
  '006': { resultCode: 2006, resultDesc: 'Declined due to account rule: The account status does not allow this transaction.' },
  '040': { resultCode: 2040, resultDesc: "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service." },
};

/** Phones ending in this decide after `lateDecisionDelayMs` ("late success", as MTN's sandbox …198). */
export const MPESA_LATE_SUFFIX = '198';

/** A movement of money the simulator made (a push paid, a B2C paid). */
export interface MpesaSimMovement {
  direction: 'PAY_IN' | 'PAY_OUT';
  /** STK: the CheckoutRequestID; B2C: the OriginatorConversationID (the caller's reference). */
  id: string;
  /** STK only: the `AccountReference` sent with the push. */
  accountReference: string | null;
  amount: number;
  msisdn: string;
  receipt: string;
}

/** An STK push as the simulator stores it. */
export interface MpesaSimStk {
  merchantRequestId: string;
  checkoutRequestId: string;
  accountReference: string;
  phone: string;
  amount: number;
  callbackUrl: string;
  /** null while the prompt is open. */
  resultCode: number | null;
  resultDesc: string;
  receipt: string | null;
}

/** A B2C payment as the simulator stores it. */
export interface MpesaSimB2c {
  originatorConversationId: string;
  conversationId: string;
  partyB: string;
  amount: number;
  resultUrl: string;
  /** Null while undecided; a string only for codes such as `SFC_IC0003`. */
  resultCode: number | string | null;
  resultDesc: string;
  receipt: string | null;
}

/** A running simulator with its in-process controls. */
export interface MpesaSimulator extends SimHandle<MpesaSimulatorOptions> {
  stk: Map<string, MpesaSimStk>;
  b2c: Map<string, MpesaSimB2c>;
  /** Every movement of money made so far, in order. */
  moved(): MpesaSimMovement[];
  /** The shortcode's statement (C2B rows served by Pull Transactions), from `moved()` plus planted discrepancies. */
  statement: SimStatement;
  expireTokens(): void;
}

/** Words Safaricom refuses in callback URLs (its URL rules for C2B, applied to every callback). */
const FORBIDDEN_URL_WORDS = /mpesa|m-pesa|safaricom|exe|exec|cmd|sql|query/i;

const requestId = () => `${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
const envelope = (errorCode: string, errorMessage: string) => ({ requestId: requestId(), errorCode, errorMessage });
const receiptNumber = () => randomBytes(5).toString('hex').toUpperCase().slice(0, 10);

/** `yyyyMMddHHmmss` with plausible ranges. */
const TIMESTAMP = /^20\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/;
const KENYAN_MSISDN = /^254[17]\d{8}$/;

/** Starts the simulator. `overrides` are merged over `MPESA_SIM_DEFAULTS`. */
export async function startMpesaSimulator(overrides: Partial<MpesaSimulatorOptions> = {}): Promise<MpesaSimulator> {
  const options = mergeSimOptions(MPESA_SIM_DEFAULTS, overrides);
  const tokens = new Map<string, number>();
  const stk = new Map<string, MpesaSimStk>();
  const b2c = new Map<string, MpesaSimB2c>();
  const movements: MpesaSimMovement[] = [];
  const core = createSimCore(options);
  const { state, sender, later } = core;
  const decisionDelay = (phone: string) => (phone.endsWith(MPESA_LATE_SUFFIX) ? options.lateDecisionDelayMs : options.decisionDelayMs);
  const busy = envelope('500.003.1001', 'Internal Server Error');

  const statement = createSimStatement({
    nowMs: () => options.nowMs(),
    newId: receiptNumber,
    requestOf: (reference) => {
      const push = [...stk.values()].find((x) => x.accountReference === reference);
      return push ? { direction: 'PAY_IN', amount: push.amount, currency: 'KES', msisdn: push.phone } : null;
    },
  });
  /** Records money the simulator moved: in `moved()` and on the statement. */
  const move = (m: MpesaSimMovement) => {
    movements.push(m);
    statement.record({ reference: m.accountReference ?? m.id, direction: m.direction, amount: m.amount, currency: 'KES', msisdn: m.msisdn, operatorTransactionId: m.receipt });
  };

  /**
   * Pull Transactions (`POST /pulltransactions/v1/query`): the statement's C2B rows (into the
   * shortcode) between `StartDate` and `EndDate` (Kenya time), 100 from `OffSetValue`.
   */
  const handlePull = (req: SimRequest, res: http.ServerResponse) => {
    const refused = denied(req);
    if (refused) return sendJson(res, refused.status, refused.body);
    const body = parseJsonObject(req.body);
    const start = typeof body?.StartDate === 'string' ? body.StartDate : '';
    const end = typeof body?.EndDate === 'string' ? body.EndDate : '';
    if (!body || body.ShortCode !== options.shortCode || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(end)) {
      return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid ShortCode, StartDate or EndDate'));
    }
    const offset = Number(body.OffSetValue ?? 0) || 0;
    const rows = statement
      .rows()
      .filter((r) => r.amount > 0 && darajaTime(r.at) >= start && darajaTime(r.at) < end)
      .slice(offset, offset + 100)
      .map((r) => ({ transactionId: r.id, trxDate: darajaTime(r.at), msisdn: r.msisdn, sender: 'M-PESA', transactiontype: 'c2b-pay-bill-debit', billreference: r.reference ?? '', amount: String(r.amount), organizationname: 'Kolo' }));
    return sendJson(res, 200, { ResponseRefID: `RR${receiptNumber()}`, ResponseCode: '1000', ResponseMessage: 'Success', Response: [rows] });
  };

  /**
   * Checks bearer token and JSON content type; an error answer, or null. The invalid-token answer
   * differs per API (Daraja 3.0 pages): `404.001.03` (STK, B2C), `400.003.01` (Transaction Status).
   */
  const denied = (req: SimRequest, invalidToken: { status: number; code: string } = { status: 404, code: '404.001.03' }): { status: number; body: unknown } | null => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const expiresAt = m ? tokens.get(m[1]!) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) return { status: invalidToken.status, body: envelope(invalidToken.code, 'Invalid Access Token') };
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid Content-Type') };
    return null;
  };

  const badUrl = (url: unknown) => {
    if (typeof url !== 'string') return true;
    try {
      const u = new URL(url);
      return !['http:', 'https:'].includes(u.protocol) || FORBIDDEN_URL_WORDS.test(u.pathname);
    } catch {
      return true;
    }
  };

  /** Checks the shortcode, Timestamp and Password of an STK push or query; an error answer, or null. */
  const passwordProblem = (body: Record<string, unknown>): { status: number; body: unknown } | null => {
    if (String(body.BusinessShortCode) !== options.shortCode) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid BusinessShortCode') };
    if (typeof body.Timestamp !== 'string' || !TIMESTAMP.test(body.Timestamp)) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid Timestamp') };
    const expected = Buffer.from(`${options.shortCode}${options.passkey}${body.Timestamp}`).toString('base64');
    // Daraja answers a wrong Password with 500.001.1001 (its M-Pesa Express error table).
    if (body.Password !== expected) return { status: 500, body: envelope('500.001.1001', 'Wrong credentials') };
    return null;
  };

  const stkCallbackBody = (tx: MpesaSimStk) => ({
    Body: {
      stkCallback: {
        MerchantRequestID: tx.merchantRequestId,
        CheckoutRequestID: tx.checkoutRequestId,
        ResultCode: tx.resultCode,
        ResultDesc: tx.resultDesc,
        ...(tx.resultCode === 0
          ? {
              CallbackMetadata: {
                Item: [
                  { Name: 'Amount', Value: tx.amount },
                  { Name: 'MpesaReceiptNumber', Value: tx.receipt },
                  { Name: 'Balance' },
                  { Name: 'TransactionDate', Value: Number(new Date().toISOString().replace(/\D/g, '').slice(0, 14)) },
                  { Name: 'PhoneNumber', Value: Number(tx.phone) },
                ],
              },
            }
          : {}),
      },
    },
  });

  const handleToken = (req: SimRequest, res: http.ServerResponse, query: URLSearchParams) => {
    const fault = faultHits(state, 'token');
    if (fault) return answerFault(res, fault, busy);
    const basic = parseBasic(req.headers.authorization);
    if (!basic || basic.user !== options.consumerKey || basic.password !== options.consumerSecret) {
      return sendJson(res, 400, envelope('400.008.01', 'Invalid Authentication passed'));
    }
    if (query.get('grant_type') !== 'client_credentials') return sendJson(res, 400, envelope('400.008.02', 'Invalid grant type passed'));
    const token = randomBytes(14).toString('base64').replace(/[^A-Za-z0-9]/g, 'x');
    // Daraja's Authorization page (FAQ): a new token invalidates the previous one.
    tokens.clear();
    tokens.set(token, Date.now() + options.tokenTtlSeconds * 1000);
    return sendJson(res, 200, { access_token: token, expires_in: options.tokenExpiresInAsString ? String(options.tokenTtlSeconds) : options.tokenTtlSeconds });
  };

  const handleStkPush = (req: SimRequest, res: http.ServerResponse) => {
    const body = readCall(req, res, passwordProblem);
    if (!body) return;
    const phone = String(body.PhoneNumber ?? '');
    const problems: [boolean, string][] = [
      [!['CustomerPayBillOnline', 'CustomerBuyGoodsOnline'].includes(String(body.TransactionType)), 'Invalid TransactionType'],
      [!Number.isInteger(body.Amount) || (body.Amount as number) < 1, 'Invalid Amount'],
      [!KENYAN_MSISDN.test(phone) || String(body.PartyA) !== phone, 'Invalid PhoneNumber'],
      [badUrl(body.CallBackURL), 'Invalid CallBackURL'],
      [typeof body.AccountReference !== 'string' || body.AccountReference.length === 0 || body.AccountReference.length > 12, 'Invalid AccountReference'],
      [typeof body.TransactionDesc !== 'string' || body.TransactionDesc.length > 13, 'Invalid TransactionDesc'],
    ];
    const problem = problems.find(([bad]) => bad);
    if (problem) return sendJson(res, 400, envelope('400.002.02', `Bad Request - ${problem[1]}`));
    const fault = faultHits(state, 'initiate');
    if (fault && !fault.landed) return answerFault(res, fault, busy);
    if ([...stk.values()].some((t) => t.phone === phone && t.resultCode === null)) {
      return sendJson(res, 500, envelope('500.001.1001', 'Unable to lock subscriber, a transaction is already in process for the current subscriber'));
    }
    const tx: MpesaSimStk = {
      merchantRequestId: `${randomBytes(3).toString('hex')}-${Date.now() % 100_000_000}-1`,
      checkoutRequestId: `ws_CO_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(6).toString('hex')}`,
      accountReference: body.AccountReference as string,
      phone,
      amount: body.Amount as number,
      callbackUrl: body.CallBackURL as string,
      resultCode: null,
      resultDesc: '',
      receipt: null,
    };
    stk.set(tx.checkoutRequestId, tx);
    const trigger = MPESA_STK_TRIGGERS[phone.slice(-3)];
    later(decisionDelay(phone), () => {
      if (trigger) Object.assign(tx, { resultCode: trigger.resultCode, resultDesc: trigger.resultDesc });
      else {
        Object.assign(tx, { resultCode: 0, resultDesc: 'The service request is processed successfully.', receipt: receiptNumber() });
        options.workingBalance += tx.amount;
        move({ direction: 'PAY_IN', id: tx.checkoutRequestId, accountReference: tx.accountReference, amount: tx.amount, msisdn: tx.phone, receipt: tx.receipt! });
      }
      sender.send(tx.callbackUrl, 'POST', JSON.stringify(stkCallbackBody(tx)));
    });
    if (fault) return answerFault(res, fault, busy);
    return sendJson(res, 200, {
      MerchantRequestID: tx.merchantRequestId,
      CheckoutRequestID: tx.checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  };

  const handleStkQuery = (req: SimRequest, res: http.ServerResponse) => {
    const body = readCall(req, res, passwordProblem);
    if (!body) return;
    const fault = faultHits(state, 'status');
    if (fault) return answerFault(res, fault, busy);
    const tx = stk.get(String(body.CheckoutRequestID));
    if (!tx) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid CheckoutRequestID'));
    if (tx.resultCode === null) return sendJson(res, 500, envelope('500.001.1001', 'The transaction is being processed'));
    return sendJson(res, 200, {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: tx.merchantRequestId,
      CheckoutRequestID: tx.checkoutRequestId,
      ResultCode: String(tx.resultCode),
      ResultDesc: tx.resultDesc,
    });
  };

  /**
   * True when the initiator or its SecurityCredential is wrong: Daraja accepts such a request (200)
   * and answers it by a Result with ResultCode 2001 (Daraja 3.0 B2C page).
   */
  const wrongInitiator = (body: Record<string, unknown>, nameField: 'InitiatorName' | 'Initiator'): boolean =>
    body[nameField] !== options.initiatorName || body.SecurityCredential !== options.securityCredential;

  /** Checks the request fields shared by B2C and the Transaction Status Query. */
  const initiatorProblem = (body: Record<string, unknown>): { status: number; body: unknown } | null => {
    if (String(body.PartyA) !== options.b2cShortCode) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid PartyA') };
    if (badUrl(body.ResultURL) || badUrl(body.QueueTimeOutURL)) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid ResultURL') };
    return null;
  };

  /**
   * The JSON body of a call that `denied` lets through (`invalidToken`: its API's answer to a bad
   * token) and `problemOf` finds nothing wrong with; otherwise answers the refusal and gives null.
   */
  const readCall = (
    req: SimRequest,
    res: http.ServerResponse,
    problemOf: (body: Record<string, unknown>) => { status: number; body: unknown } | null,
    invalidToken?: { status: number; code: string },
  ): Record<string, unknown> | null => {
    const refused = denied(req, invalidToken);
    const body = refused ? null : parseJsonObject(req.body);
    const problem = refused ?? (body ? problemOf(body) : { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid JSON') });
    if (!problem) return body;
    sendJson(res, problem.status, problem.body);
    return null;
  };

  const b2cResultBody = (tx: MpesaSimB2c) => ({
    Result: {
      ResultType: 0,
      ResultCode: tx.resultCode,
      ResultDesc: tx.resultDesc,
      OriginatorConversationID: tx.originatorConversationId,
      ConversationID: tx.conversationId,
      TransactionID: tx.receipt ?? '',
      ...(tx.resultCode === 0
        ? {
            ResultParameters: {
              ResultParameter: [
                { Key: 'TransactionAmount', Value: tx.amount },
                { Key: 'TransactionReceipt', Value: tx.receipt },
                { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
                { Key: 'B2CChargesPaidAccountAvailableFunds', Value: -4510.0 },
                { Key: 'ReceiverPartyPublicName', Value: `${tx.partyB} - John Doe` },
                { Key: 'TransactionCompletedDateTime', Value: '19.12.2019 11:45:50' },
                { Key: 'B2CUtilityAccountAvailableFunds', Value: options.orgBalance },
                { Key: 'B2CWorkingAccountAvailableFunds', Value: 900000.0 },
              ],
            },
          }
        : {}),
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit' } },
    },
  });

  const handleB2c = (req: SimRequest, res: http.ServerResponse) => {
    const body = readCall(req, res, initiatorProblem);
    if (!body) return;
    const partyB = String(body.PartyB ?? '');
    const originator = body.OriginatorConversationID;
    const invalid: [boolean, string][] = [
      [typeof originator !== 'string' || originator.length === 0 || originator.length > 64, 'Invalid OriginatorConversationID'],
      [!['BusinessPayment', 'SalaryPayment', 'PromotionPayment'].includes(String(body.CommandID)), 'Invalid CommandID'],
      [!Number.isInteger(body.Amount) || (body.Amount as number) < 10, 'Invalid Amount'],
      [!KENYAN_MSISDN.test(partyB), 'Invalid PartyB'],
      [typeof body.Remarks !== 'string' || body.Remarks.length === 0 || body.Remarks.length > 100, 'Invalid Remarks'],
    ];
    const bad = invalid.find(([b]) => b);
    if (bad) return sendJson(res, 400, envelope('400.002.02', `Bad Request - ${bad[1]}`));
    // Daraja 3.0 B2C page's sample error.
    if (b2c.has(originator as string)) return sendJson(res, 500, envelope('500.002.1001', 'Duplicate OriginatorConversationID.'));
    const fault = faultHits(state, 'initiate');
    if (fault && !fault.landed) return answerFault(res, fault, busy);
    const tx: MpesaSimB2c = {
      originatorConversationId: originator as string,
      conversationId: `AG_${new Date().toISOString().replace(/\D/g, '').slice(0, 8)}_${randomBytes(10).toString('hex')}`,
      partyB,
      amount: body.Amount as number,
      resultUrl: body.ResultURL as string,
      resultCode: null,
      resultDesc: '',
      receipt: null,
    };
    b2c.set(tx.originatorConversationId, tx);
    const badInitiator = wrongInitiator(body, 'InitiatorName');
    const trigger = MPESA_B2C_TRIGGERS[partyB.slice(-3)];
    later(decisionDelay(partyB), () => {
      if (badInitiator) {
        Object.assign(tx, { resultCode: 2001, resultDesc: 'The initiator information is invalid.' });
      } else if (trigger) {
        Object.assign(tx, { resultCode: trigger.resultCode, resultDesc: trigger.resultDesc });
      } else if (tx.amount > options.orgBalance) {
        Object.assign(tx, { resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' });
      } else {
        options.orgBalance -= tx.amount;
        Object.assign(tx, { resultCode: 0, resultDesc: 'The service request is processed successfully.', receipt: receiptNumber() });
        move({ direction: 'PAY_OUT', id: tx.originatorConversationId, accountReference: null, amount: tx.amount, msisdn: tx.partyB, receipt: tx.receipt! });
      }
      sender.send(tx.resultUrl, 'POST', JSON.stringify(b2cResultBody(tx)));
    });
    if (fault) return answerFault(res, fault, busy);
    return sendJson(res, 200, {
      ConversationID: tx.conversationId,
      OriginatorConversationID: tx.originatorConversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  };

  /** `value` when it is a non-empty string, else null. */
  const nonEmpty = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

  /**
   * What Daraja's asynchronous queries (Account Balance, Transaction Status) share: the request
   * checked (a bad token answered `refusal`, then JSON, the initiator's credential, `CommandID`
   * with `IdentifierType` 4, then the query's own `invalid` check, a 400), a `status` fault, then
   * an answer at once with fresh conversation ids and, a moment later, a Result posted to
   * `ResultURL`: `accept(body)`'s result (read when the request arrives, built when the Result is
   * sent) under the conversation ids, or 2001 when the initiator is wrong.
   */
  const handleResultQuery = (
    req: SimRequest,
    res: http.ServerResponse,
    query: {
      refusal: { status: number; code: string };
      commandId: string;
      /** Fields the Result carries after the conversation ids, whatever it says (Account Balance: `TransactionID`). */
      head?: () => Record<string, unknown>;
      invalid?: (body: Record<string, unknown>) => string | null;
      accept: (body: Record<string, unknown>) => (head: Record<string, unknown>) => Record<string, unknown>;
    },
  ) => {
    const body = readCall(req, res, initiatorProblem, query.refusal);
    if (!body) return;
    if (body.CommandID !== query.commandId || String(body.IdentifierType) !== '4') {
      return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid CommandID or IdentifierType'));
    }
    const invalid = query.invalid?.(body);
    if (invalid) return sendJson(res, 400, envelope('400.002.02', `Bad Request - ${invalid}`));
    const fault = faultHits(state, 'status');
    if (fault && !fault.landed) return answerFault(res, fault, busy);
    const resultOf = query.accept(body);
    const badInitiator = wrongInitiator(body, 'Initiator');
    const conversationId = `AG_${new Date().toISOString().replace(/\D/g, '').slice(0, 8)}_${randomBytes(10).toString('hex')}`;
    const originatorConversationId = `${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
    later(Math.min(options.decisionDelayMs, 50), () => {
      const head = { ResultType: 0, OriginatorConversationID: originatorConversationId, ConversationID: conversationId, ...query.head?.() };
      const result = badInitiator ? { ...head, ResultCode: 2001, ResultDesc: 'The initiator information is invalid.' } : resultOf(head);
      sender.send(body.ResultURL as string, 'POST', JSON.stringify({ Result: result }));
    });
    if (fault) return answerFault(res, fault, busy);
    return sendJson(res, 200, {
      OriginatorConversationID: originatorConversationId,
      ConversationID: conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  };

  /**
   * Account Balance (`POST /mpesa/accountbalance/v1/query`, `CommandID` `AccountBalance`,
   * `IdentifierType` 4, `PartyA` the B2C shortcode): accepted at once, then a Result posted to
   * `ResultURL` whose `AccountBalance` parameter lists the accounts
   * (`name|KES|current|available|reserved|uncleared`, joined by `&`) from what the simulator holds
   * at that moment. A wrong initiator is answered by a Result 2001.
   */
  const handleAccountBalance = (req: SimRequest, res: http.ServerResponse) =>
    handleResultQuery(req, res, {
      refusal: { status: 401, code: '401.002.01' },
      commandId: 'AccountBalance',
      head: () => ({ TransactionID: receiptNumber() }),
      accept: () => (head) => {
        const account = (name: string, amount: number) => `${name}|KES|${amount.toFixed(2)}|${amount.toFixed(2)}|0.00|0.00`;
        return {
          ...head,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          ResultParameters: {
            ResultParameter: [
              {
                Key: 'AccountBalance',
                Value: [account('Working Account', options.workingBalance), account('Float Account', 0), account('Utility Account', options.orgBalance), account('Charges Paid Account', 0), account('Organization Settlement Account', 0)].join('&'),
              },
              { Key: 'BOCompletedTime', Value: Number(darajaTime(new Date(options.nowMs())).replace(/\D/g, '')) },
            ],
          },
          ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/abresults/v1/submit' } },
        };
      },
    });

  const handleTransactionStatus = (req: SimRequest, res: http.ServerResponse) =>
    handleResultQuery(req, res, {
      refusal: { status: 400, code: '400.003.01' },
      commandId: 'TransactionStatusQuery',
      // The transaction is named by OriginalConversationID or TransactionID (Daraja 3.0
      // "TransactionStatus" page); an OriginatorConversationID names nothing here.
      invalid: (body) => (nonEmpty(body.OriginalConversationID) || nonEmpty(body.TransactionID) ? null : 'Invalid OriginalConversationID or TransactionID'),
      accept: (body) => {
        const original = nonEmpty(body.OriginalConversationID);
        const receipt = nonEmpty(body.TransactionID);
        const tx = original ? b2c.get(original) : [...b2c.values()].find((t) => t.receipt === receipt);
        return (head) =>
          tx
            ? {
                ...head,
                ResultCode: 0,
                ResultDesc: 'The service request has been accepted successfully.',
                TransactionID: tx.receipt ?? '',
                ResultParameters: {
                  ResultParameter: [
                    { Key: 'ReceiptNo', Value: tx.receipt ?? '' },
                    { Key: 'Conversation ID', Value: tx.conversationId },
                    { Key: 'FinalisedTime', Value: 20191219114550 },
                    { Key: 'Amount', Value: tx.amount },
                    { Key: 'TransactionStatus', Value: tx.resultCode === null ? 'Pending' : tx.resultCode === 0 ? 'Completed' : 'Failed' },
                    { Key: 'ReasonType', Value: 'Business Payment to Customer via API' },
                    tx.resultCode === null || tx.resultCode === 0 || !options.statusResultHasReason
                      ? { Key: 'TransactionReason' }
                      : { Key: 'TransactionReason', Value: tx.resultDesc },
                    { Key: 'DebitPartyCharges', Value: 'Fee For B2C Payment|KES|33.00' },
                    { Key: 'DebitAccountType', Value: 'Utility Account' },
                    { Key: 'InitiatedTime', Value: 20191219114550 },
                    { Key: options.statusResultNameKey, Value: tx.originatorConversationId },
                    { Key: 'CreditPartyName', Value: `${tx.partyB} - John Doe` },
                    { Key: 'DebitPartyName', Value: `${options.b2cShortCode} - Kolo` },
                  ],
                },
                ReferenceData: { ReferenceItem: { Key: 'Occasion', Value: typeof body.Occasion === 'string' ? body.Occasion : '' } },
              }
            : { ...head, ResultCode: 'R000001', ResultDesc: 'The transaction could not be found.', TransactionID: '' };
      },
    });

  const expireTokens = () => {
    for (const k of tokens.keys()) tokens.set(k, 0);
    return tokens.size;
  };

  const route = async (req: SimRequest, res: http.ServerResponse, url: URL) => {
    const path = req.path;
    if (req.method === 'POST' && path === '/pulltransactions/v1/query') return handlePull(req, res);
    const isB2c = path === '/mpesa/b2c/v3/paymentrequest' || path === '/mpesa/b2c/v1/paymentrequest';
    if (req.method === 'GET' && path === '/oauth/v1/generate') await hold(options.latencyMs.token, later);
    else if (req.method === 'POST' && (path === '/mpesa/stkpush/v1/processrequest' || isB2c)) await hold(options.latencyMs.initiate, later);
    else if (req.method === 'POST' && (path === '/mpesa/stkpushquery/v1/query' || path === '/mpesa/transactionstatus/v1/query')) await hold(options.latencyMs.status, later);
    if (req.method === 'GET' && path === '/oauth/v1/generate') return handleToken(req, res, url.searchParams);
    if (req.method === 'POST' && path === '/mpesa/stkpush/v1/processrequest') return handleStkPush(req, res);
    if (req.method === 'POST' && path === '/mpesa/stkpushquery/v1/query') return handleStkQuery(req, res);
    if (req.method === 'POST' && isB2c) return handleB2c(req, res);
    if (req.method === 'POST' && path === '/mpesa/transactionstatus/v1/query') return handleTransactionStatus(req, res);
    if (req.method === 'POST' && path === '/mpesa/accountbalance/v1/query') return handleAccountBalance(req, res);
    const known = ['/oauth/v1/generate', '/mpesa/stkpush/v1/processrequest', '/mpesa/stkpushquery/v1/query', '/mpesa/b2c/v3/paymentrequest', '/mpesa/transactionstatus/v1/query', '/mpesa/accountbalance/v1/query'];
    if (known.includes(path)) return sendJson(res, 405, envelope('405.001', 'Method Not Allowed'));
    return sendJson(res, 404, envelope('404.001.01', 'Resource not found'));
  };

  return core.serve(
    route,
    {
      settings: {
        ...latencyRules(['token', 'initiate', 'status']),
        decisionDelayMs: 'ms',
        lateDecisionDelayMs: 'ms',
        tokenExpiresInAsString: 'boolean',
        statusResultNameKey: ['Originator Conversation ID', 'OriginatorConversationID'],
        statusResultHasReason: 'boolean',
        ...CALLBACK_SETTING_RULES,
      },
      expireTokens,
      moved: () => ({ moved: movements }),
      transactions: () => ({ stk: [...stk.values()], b2c: [...b2c.values()] }),
      statement,
    },
    { stk, b2c, moved: () => [...movements], statement, expireTokens },
  );
}
