/**
 * A standalone M-Pesa Daraja simulator (`kolo simulate mpesa --port N`), following operators.md
 * §4: `GET /oauth/v1/generate?grant_type=client_credentials` (Basic consumer key:secret →
 * `expires_in` as a string), every API call with `Authorization: Bearer` (`404.001.03` when the
 * token is not valid) and `Content-Type: application/json` (`400.002.02` otherwise), Daraja's
 * `{requestId, errorCode, errorMessage}` envelope; STK push with the Password/Timestamp rule
 * checked, one open prompt per subscriber ("Unable to lock subscriber"), STK Query ("The
 * transaction is being processed" while open), the `Body.stkCallback` callback; B2C v3 with our
 * `OriginatorConversationID`, its `Result` posted to `ResultURL`; the Transaction Status Query
 * whose `Result` is posted to its `ResultURL`. Test and staging tooling only.
 *
 * The sandbox defaults are Daraja's documented ones: shortcode `174379` with its public sandbox
 * passkey, test MSISDN `254708374149`, B2C shortcode `600996`, initiator `testapi`. Safaricom
 * publishes no outcome numbers, so these triggers are the simulator's own (last three digits of
 * the STK `PhoneNumber`, see `MPESA_STK_TRIGGERS` and the README): 001 insufficient balance (1) ·
 * 032 cancelled by the customer (1032) · 037 no answer (1037) · 019 expired (1019) · 201 wrong
 * PIN (2001) · 025 push not sent (1025) · any other number (the test MSISDN included): paid.
 * B2C: a payment above the organisation's balance (`orgBalance`, a setting) fails with
 * ResultCode 1; otherwise it is paid. The Transaction Status result's `ReasonType` carries the
 * failed payment's ResultCode (simulator-defined: Daraja documents no failure vocabulary there).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  answerFault,
  applySettings,
  createCallbackSender,
  faultHits,
  headersOf,
  listen,
  parseBasic,
  parseFault,
  readBody,
  sendJson,
  type SimCallback,
  type SimCallbackOptions,
  type SimFault,
  type SimRequest,
} from '../sim-http.ts';

/** Daraja's public sandbox passkey for shortcode 174379 (from the Daraja test credentials page). */
export const DARAJA_SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface MpesaSimulatorOptions {
  host: string;
  port: number;
  consumerKey: string;
  consumerSecret: string;
  shortCode: string;
  passkey: string;
  b2cShortCode: string;
  initiatorName: string;
  securityCredential: string;
  /** Organisation (B2C working account) balance, whole shillings. */
  orgBalance: number;
  decisionDelayMs: number;
  tokenTtlSeconds: number;
  callbacks: SimCallbackOptions;
}

/** Default credentials (Daraja's sandbox values where it publishes them), documented in the README. */
export const MPESA_SIM_DEFAULTS: MpesaSimulatorOptions = {
  host: '127.0.0.1',
  port: 0,
  consumerKey: 'sim-daraja-consumer-key',
  consumerSecret: 'sim-daraja-consumer-secret',
  shortCode: '174379',
  passkey: DARAJA_SANDBOX_PASSKEY,
  b2cShortCode: '600996',
  initiatorName: 'testapi',
  securityCredential: 'sim-security-credential',
  orgBalance: 1_000_000,
  decisionDelayMs: 2000,
  tokenTtlSeconds: 3599,
  callbacks: { delayMs: 0, duplicate: false, drop: false },
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

/** An STK push as the simulator stores it. */
export interface MpesaSimStk {
  merchantRequestId: string;
  checkoutRequestId: string;
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
  resultCode: number | null;
  resultDesc: string;
  receipt: string | null;
}

/** A running simulator with its in-process controls. */
export interface MpesaSimulator {
  url: string;
  port: number;
  options: MpesaSimulatorOptions;
  requests: SimRequest[];
  callbacks: SimCallback[];
  stk: Map<string, MpesaSimStk>;
  b2c: Map<string, MpesaSimB2c>;
  fault: SimFault | null;
  expireTokens(): void;
  close(): Promise<void>;
}

/** Words Safaricom refuses in callback URLs (operators.md §4.2). */
const FORBIDDEN_URL_WORDS = /mpesa|m-pesa|safaricom|exe|exec|cmd|sql|query/i;

const requestId = () => `${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
const envelope = (errorCode: string, errorMessage: string) => ({ requestId: requestId(), errorCode, errorMessage });
const receiptNumber = () => randomBytes(5).toString('hex').toUpperCase().slice(0, 10);

/** `yyyyMMddHHmmss` with plausible ranges. */
const TIMESTAMP = /^20\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/;
const KENYAN_MSISDN = /^254[17]\d{8}$/;

/** Starts the simulator. `overrides` are merged over `MPESA_SIM_DEFAULTS`. */
export async function startMpesaSimulator(overrides: Partial<MpesaSimulatorOptions> = {}): Promise<MpesaSimulator> {
  const options: MpesaSimulatorOptions = { ...MPESA_SIM_DEFAULTS, ...overrides, callbacks: { ...MPESA_SIM_DEFAULTS.callbacks, ...overrides.callbacks } };
  const tokens = new Map<string, number>();
  const stk = new Map<string, MpesaSimStk>();
  const b2c = new Map<string, MpesaSimB2c>();
  const requests: SimRequest[] = [];
  const callbacks: SimCallback[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const state: { fault: SimFault | null } = { fault: null };
  const sender = createCallbackSender(() => options.callbacks, callbacks);
  const busy = envelope('500.003.1001', 'Internal Server Error');

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  /** Checks bearer token and JSON content type; an error answer, or null. */
  const denied = (req: SimRequest): { status: number; body: unknown } | null => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const expiresAt = m ? tokens.get(m[1]!) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) return { status: 404, body: envelope('404.001.03', 'Invalid Access Token') };
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid Content-Type') };
    return null;
  };

  const parse = (req: SimRequest): Record<string, unknown> | null => {
    try {
      const v = JSON.parse(req.body) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
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

  const checkPassword = (body: Record<string, unknown>): string | null => {
    if (String(body.BusinessShortCode) !== options.shortCode) return 'Bad Request - Invalid BusinessShortCode';
    if (typeof body.Timestamp !== 'string' || !TIMESTAMP.test(body.Timestamp)) return 'Bad Request - Invalid Timestamp';
    const expected = Buffer.from(`${options.shortCode}${options.passkey}${body.Timestamp}`).toString('base64');
    // Daraja answers a wrong Password with 500.001.1001 (operators.md §4 error table).
    if (body.Password !== expected) return 'WRONG_PASSWORD';
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
    tokens.set(token, Date.now() + options.tokenTtlSeconds * 1000);
    return sendJson(res, 200, { access_token: token, expires_in: String(options.tokenTtlSeconds) });
  };

  const handleStkPush = (req: SimRequest, res: http.ServerResponse) => {
    const refused = denied(req);
    if (refused) return sendJson(res, refused.status, refused.body);
    const body = parse(req);
    if (!body) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid JSON'));
    const password = checkPassword(body);
    if (password === 'WRONG_PASSWORD') return sendJson(res, 500, envelope('500.001.1001', 'Wrong credentials'));
    if (password) return sendJson(res, 400, envelope('400.002.02', password));
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
      phone,
      amount: body.Amount as number,
      callbackUrl: body.CallBackURL as string,
      resultCode: null,
      resultDesc: '',
      receipt: null,
    };
    stk.set(tx.checkoutRequestId, tx);
    const trigger = MPESA_STK_TRIGGERS[phone.slice(-3)];
    later(options.decisionDelayMs, () => {
      if (trigger) Object.assign(tx, { resultCode: trigger.resultCode, resultDesc: trigger.resultDesc });
      else Object.assign(tx, { resultCode: 0, resultDesc: 'The service request is processed successfully.', receipt: receiptNumber() });
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
    const refused = denied(req);
    if (refused) return sendJson(res, refused.status, refused.body);
    const body = parse(req);
    if (!body) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid JSON'));
    const password = checkPassword(body);
    if (password === 'WRONG_PASSWORD') return sendJson(res, 500, envelope('500.001.1001', 'Wrong credentials'));
    if (password) return sendJson(res, 400, envelope('400.002.02', password));
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

  /** Checks the initiator fields shared by B2C and the Transaction Status Query. */
  const initiatorProblem = (body: Record<string, unknown>, nameField: 'InitiatorName' | 'Initiator'): { status: number; body: unknown } | null => {
    if (body[nameField] !== options.initiatorName || body.SecurityCredential !== options.securityCredential) {
      return { status: 500, body: envelope('500.001.1001', 'The initiator information is invalid.') };
    }
    if (String(body.PartyA) !== options.b2cShortCode) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid PartyA') };
    if (badUrl(body.ResultURL) || badUrl(body.QueueTimeOutURL)) return { status: 400, body: envelope('400.002.02', 'Bad Request - Invalid ResultURL') };
    return null;
  };

  const b2cResultBody = (tx: MpesaSimB2c) => ({
    Result: {
      ResultType: 0,
      ResultCode: tx.resultCode,
      ResultDesc: tx.resultDesc,
      OriginatorConversationID: tx.originatorConversationId,
      ConversationID: tx.conversationId,
      TransactionID: tx.receipt ?? `${receiptNumber()}`,
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
    const refused = denied(req);
    if (refused) return sendJson(res, refused.status, refused.body);
    const body = parse(req);
    if (!body) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid JSON'));
    const problem = initiatorProblem(body, 'InitiatorName');
    if (problem) return sendJson(res, problem.status, problem.body);
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
    // Undocumented at Daraja; the simulator refuses a repeated OriginatorConversationID.
    if (b2c.has(originator as string)) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Duplicate OriginatorConversationID'));
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
    later(options.decisionDelayMs, () => {
      if (tx.amount > options.orgBalance) {
        Object.assign(tx, { resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' });
      } else {
        options.orgBalance -= tx.amount;
        Object.assign(tx, { resultCode: 0, resultDesc: 'The service request is processed successfully.', receipt: receiptNumber() });
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

  const handleTransactionStatus = (req: SimRequest, res: http.ServerResponse) => {
    const refused = denied(req);
    if (refused) return sendJson(res, refused.status, refused.body);
    const body = parse(req);
    if (!body) return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid JSON'));
    const problem = initiatorProblem(body, 'Initiator');
    if (problem) return sendJson(res, problem.status, problem.body);
    if (body.CommandID !== 'TransactionStatusQuery' || String(body.IdentifierType) !== '4') {
      return sendJson(res, 400, envelope('400.002.02', 'Bad Request - Invalid CommandID or IdentifierType'));
    }
    const fault = faultHits(state, 'status');
    if (fault) return answerFault(res, fault, busy);
    const queried = typeof body.OriginatorConversationID === 'string' ? b2c.get(body.OriginatorConversationID) : undefined;
    const byId = typeof body.TransactionID === 'string' ? [...b2c.values()].find((t) => t.receipt === body.TransactionID) : undefined;
    const tx = queried ?? byId;
    const conversationId = `AG_${randomBytes(10).toString('hex')}`;
    const originatorConversationId = `${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
    later(Math.min(options.decisionDelayMs, 50), () => {
      const result = tx
        ? {
            ResultType: 0,
            ResultCode: 0,
            ResultDesc: 'The service request is processed successfully.',
            OriginatorConversationID: originatorConversationId,
            ConversationID: conversationId,
            TransactionID: tx.receipt ?? conversationId,
            ResultParameters: {
              ResultParameter: [
                { Key: 'ReceiptNo', Value: tx.receipt ?? '' },
                { Key: 'Conversation ID', Value: tx.conversationId },
                { Key: 'FinalisedTime', Value: 20191219114550 },
                { Key: 'Amount', Value: tx.amount },
                { Key: 'TransactionStatus', Value: tx.resultCode === null ? 'Pending' : tx.resultCode === 0 ? 'Completed' : 'Failed' },
                { Key: 'ReasonType', Value: tx.resultCode === null ? '' : String(tx.resultCode) },
                { Key: 'TransactionReason', Value: tx.resultDesc },
                { Key: 'Originator Conversation ID', Value: tx.originatorConversationId },
                { Key: 'CreditPartyName', Value: `${tx.partyB} - John Doe` },
                { Key: 'DebitPartyName', Value: `${options.b2cShortCode} - Kolo` },
              ],
            },
          }
        : {
            ResultType: 0,
            ResultCode: 'R000001',
            ResultDesc: 'The transaction could not be found.',
            OriginatorConversationID: originatorConversationId,
            ConversationID: conversationId,
            TransactionID: '',
          };
      sender.send(body.ResultURL as string, 'POST', JSON.stringify({ Result: result }));
    });
    return sendJson(res, 200, {
      OriginatorConversationID: originatorConversationId,
      ConversationID: conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  };

  const handler = async (incoming: http.IncomingMessage, res: http.ServerResponse) => {
    const body = await readBody(incoming);
    const url = new URL(incoming.url ?? '/', 'http://simulator');
    const path = url.pathname;
    const req: SimRequest = { method: incoming.method ?? '', path, headers: headersOf(incoming), body };
    requests.push(req);
    if (req.method === 'POST' && path === '/_simulator/fault') {
      const parsed = parseFault(req.body);
      if (parsed === 'INVALID') return sendJson(res, 400, { error: 'expected {mode: "timeout"|"error500", on?, landed?, remaining?} or {}' });
      state.fault = parsed;
      return sendJson(res, 200, { fault: state.fault });
    }
    if (req.method === 'POST' && path === '/_simulator/settings') {
      const problems = applySettings(options as unknown as Record<string, unknown>, body, {
        decisionDelayMs: 'ms',
        'callbacks.delayMs': 'ms',
        'callbacks.duplicate': 'boolean',
        'callbacks.drop': 'boolean',
      });
      if (problems.length > 0) return sendJson(res, 400, { errors: problems });
      return sendJson(res, 200, { decisionDelayMs: options.decisionDelayMs, callbacks: options.callbacks });
    }
    if (req.method === 'POST' && path === '/_simulator/expire-tokens') {
      for (const k of tokens.keys()) tokens.set(k, 0);
      return sendJson(res, 200, { expired: tokens.size });
    }
    if (req.method === 'GET' && path === '/_simulator/transactions') return sendJson(res, 200, { stk: [...stk.values()], b2c: [...b2c.values()] });
    if (req.method === 'GET' && path === '/oauth/v1/generate') return handleToken(req, res, url.searchParams);
    if (req.method === 'POST' && path === '/mpesa/stkpush/v1/processrequest') return handleStkPush(req, res);
    if (req.method === 'POST' && path === '/mpesa/stkpushquery/v1/query') return handleStkQuery(req, res);
    if (req.method === 'POST' && (path === '/mpesa/b2c/v3/paymentrequest' || path === '/mpesa/b2c/v1/paymentrequest')) return handleB2c(req, res);
    if (req.method === 'POST' && path === '/mpesa/transactionstatus/v1/query') return handleTransactionStatus(req, res);
    const known = ['/oauth/v1/generate', '/mpesa/stkpush/v1/processrequest', '/mpesa/stkpushquery/v1/query', '/mpesa/b2c/v3/paymentrequest', '/mpesa/transactionstatus/v1/query'];
    if (known.includes(path)) return sendJson(res, 405, envelope('405.001', 'Method Not Allowed'));
    return sendJson(res, 404, envelope('404.001.01', 'Resource not found'));
  };

  const server = await listen(handler, options.host, options.port, () => {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    sender.stop();
  });
  return {
    url: server.url,
    port: server.port,
    options,
    requests,
    callbacks,
    stk,
    b2c,
    get fault() {
      return state.fault;
    },
    set fault(value) {
      state.fault = value;
    },
    expireTokens() {
      for (const k of tokens.keys()) tokens.set(k, 0);
    },
    close: server.close,
  };
}
