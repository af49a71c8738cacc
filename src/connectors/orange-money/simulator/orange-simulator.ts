/**
 * A standalone Orange Money Cameroon "OM API" simulator (`kolo simulate orange --port N`),
 * following the OM API (`omcoreapis/1.0.2`) as Orange Cameroon's partners use it: `POST /token`
 * (Basic consumer key:secret, form `grant_type=client_credentials`), every API call with
 * `Authorization: Bearer` and `X-AUTH-TOKEN: base64(username:password)` (WSO2 `fault` bodies when
 * refused), `mp/init` → `payToken`, `mp/pay` (USSD push: PENDING, or a business decline answered
 * HTTP 417 with a body naming the reason; `orderId` at most 20 characters),
 * `mp/paymentstatus/{payToken}`, the same three for `cashin`, and a POST to `notifUrl` when a
 * transaction completes (once, no retry). The fault modes and latencies (`latencyMs`: token,
 * `init`, `pay`, status) of `simulator-http.ts` apply; `moved()` lists the money moved. Test and staging tooling only: production code never imports it.
 *
 * Orange publishes no test numbers, so these triggers are the simulator's own (last three digits
 * of `subscriberMsisdn`, see `ORANGE_TRIGGERS` and docs/going-live.md):
 * 601 insufficient balance (60019, 417 at once) · 602 unknown beneficiary (417) · 603 blocked
 * user (417) · 604 above the maximum amount (417) · 605 the customer cancels ·
 * 606 the customer never answers (EXPIRED) · 607 stays PENDING · 608 insufficient balance at
 * confirmation · 609 wrong PIN (417) · 198 SUCCESSFULL only after `lateDecisionMs` or
 * `decideLate()` (Orange paying after Kolo's deadline) · any other number: SUCCESSFULL after
 * `decisionDelayMs`.
 * The notification body is not published by Orange: the simulator sends the transaction object.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  answerFault,
  CALLBACK_SETTING_RULES,
  createSimCore,
  SIM_COMMON_DEFAULTS,
  SIM_LATE_DECISION_MS,
  SIM_LATE_SUFFIX,
  decisionDelayOf,
  faultHits,
  latencyOf,
  mergeSimOptions,
  type SimFaultRates,
  hold,
  latencyRules,
  parseBasic,
  sendJson,
  type SimCommonOptions,
  type SimHandle,
  type SimLatency,
  type SimMovement,
  type SimRequest,
} from '../../simulator-http.ts';
import { stringify } from 'csv-stringify/sync';
import { createSimStatement, type SimStatement } from '../../sim-statement.ts';
import { ORANGE_STATEMENT_COLUMNS, orangeStatementTime } from '../orange-statement-csv.ts';

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface OrangeSimulatorOptions extends SimCommonOptions {
  consumerKey: string;
  consumerSecret: string;
  apiUsername: string;
  apiPassword: string;
  channelMsisdn: string;
  pin: string;
  /** When larger than `decisionDelayMs`: each decision comes after a uniform draw between the two. */
  decisionDelayMaxMs?: number;
  /** Random faults of the money-moving call (`simulator-http.ts`); unset: none. */
  faultRates?: SimFaultRates | null;
  /** How long a `…198` payment stays PENDING before succeeding, unless `decideLate()` comes first. */
  lateDecisionMs: number;
  /** A payToken never paid becomes EXPIRED after this (Orange: at least 7 minutes). */
  payTokenTtlMs: number;
  tokenTtlSeconds: number;
  /** Waits before handling tokens, `init` (prepare), `pay` (initiate) and status queries. */
  latencyMs: SimLatency;
}

/** Default credentials, documented in docs/going-live.md, for rehearsals. */
export const ORANGE_SIM_DEFAULTS: OrangeSimulatorOptions = {
  ...SIM_COMMON_DEFAULTS,
  consumerKey: 'sim-orange-consumer-key',
  consumerSecret: 'sim-orange-consumer-secret',
  apiUsername: 'SIMCHANNELUSER',
  apiPassword: 'sim-channel-password',
  channelMsisdn: '691000000',
  pin: '2222',
  lateDecisionMs: SIM_LATE_DECISION_MS,
  payTokenTtlMs: 7 * 60_000,
  tokenTtlSeconds: 3600,
};

/** What a trigger does: fail at `pay`, settle later to a status, or stay pending. */
type Trigger =
  | { kind: 'FAIL_AT_ONCE'; code: string | null; message: string }
  | { kind: 'SETTLE'; status: 'CANCELLED' | 'EXPIRED' | 'FAILED'; code: string; message: string }
  | { kind: 'PENDING_FOREVER' };

/** Simulator-defined triggers by the last three digits of the subscriber number. */
export const ORANGE_TRIGGERS: Record<string, Trigger> = {
  '601': { kind: 'FAIL_AT_ONCE', code: '60019', message: 'Le solde du compte du payeur est insuffisant' },
  '602': { kind: 'FAIL_AT_ONCE', code: '60012', message: 'Beneficiaire introuvable' },
  '603': { kind: 'FAIL_AT_ONCE', code: '60013', message: 'Utilisateur bloque' },
  '604': { kind: 'FAIL_AT_ONCE', code: '60014', message: 'Vous avez saisi un montant superieur au montant maximum autorise' },
  '605': { kind: 'SETTLE', status: 'CANCELLED', code: '60021', message: 'Transaction annulee par le client' },
  '606': { kind: 'SETTLE', status: 'EXPIRED', code: '60022', message: 'Transaction expiree' },
  '607': { kind: 'PENDING_FOREVER' },
  '608': { kind: 'SETTLE', status: 'FAILED', code: '60019', message: 'Le solde du compte du payeur est insuffisant' },
  '609': { kind: 'FAIL_AT_ONCE', code: null, message: 'Code PIN incorrect' },
};

/** Longest `orderId` Orange accepts (spreeloop/core-ts's request schema). */
const ORDER_ID_MAX = 20;

type Flow = 'mp' | 'cashin';

/** A payment as the simulator stores it (the `data` object of Orange's answers). */
export interface OrangeSimTransaction {
  flow: Flow;
  payToken: string;
  /** The `orderId` of its `pay` (null before it). */
  orderId: string | null;
  createdAtMs: number;
  data: Record<string, unknown>;
}

/** A running simulator with its in-process controls. */
export interface OrangeSimulator extends SimHandle<OrangeSimulatorOptions> {
  transactions: Map<string, OrangeSimTransaction>;
  expireTokens(): void;
  /** Makes every pending `…198` decision now (also `POST /_simulator/decide-late`); returns how many. */
  decideLate(): number;
  /** The money Orange moved: one row per SUCCESSFULL payment or cash-in, in creation order. */
  moved(): SimMovement[];
  /** The wallet's statement, from `moved()` plus planted discrepancies (`POST /_simulator/plant`). */
  statement: SimStatement;
  /** The portal's statement export of the statement's rows (also `GET /_simulator/statement.csv`). */
  statementCsv(): string;
}

const FAULT_INVALID_CREDENTIALS = {
  fault: { code: 900901, message: 'Invalid Credentials', description: 'Invalid Credentials. Make sure you have given the correct access token' },
};
const PREFIX = '/omcoreapis/1.0.2';

/** Starts the simulator. `overrides` are merged over `ORANGE_SIM_DEFAULTS`. */
export async function startOrangeSimulator(overrides: Partial<OrangeSimulatorOptions> = {}): Promise<OrangeSimulator> {
  const options = mergeSimOptions(ORANGE_SIM_DEFAULTS, overrides);
  const tokens = new Map<string, number>();
  const transactions = new Map<string, OrangeSimTransaction>();
  const core = createSimCore(options);
  const { state, decisions, sender, later } = core;
  const xAuthToken = () => Buffer.from(`${options.apiUsername}:${options.apiPassword}`).toString('base64');

  /** The movement of a SUCCESSFULL transaction. */
  const movementOf = (tx: OrangeSimTransaction): SimMovement => ({
    reference: String(tx.orderId),
    operatorReference: tx.payToken,
    direction: tx.flow === 'mp' ? 'PAY_IN' : 'PAY_OUT',
    amount: Number(tx.data.amount),
    // The OM API serves Cameroon: francs CFA (XAF), whole units.
    currency: 'XAF',
    msisdn: String(tx.data.subscriberMsisdn),
    operatorTransactionId: String(tx.data.txnid),
  });
  const moved = (): SimMovement[] => [...transactions.values()].filter((tx) => tx.data.status === 'SUCCESSFULL').map(movementOf);

  const statement = createSimStatement({
    nowMs: () => options.nowMs(),
    newId: () => `MP${randomBytes(6).toString('hex').toUpperCase()}`,
    requestOf: (reference) => {
      const tx = [...transactions.values()].find((x) => x.orderId === reference);
      return tx ? { direction: tx.flow === 'mp' ? 'PAY_IN' : 'PAY_OUT', amount: Number(tx.data.amount), currency: 'XAF', msisdn: String(tx.data.subscriberMsisdn) } : null;
    },
  });
  const TYPES = { PAYMENT: 'Paiement marchand', REVERSAL: 'Annulation', ADJUSTMENT: 'Ajustement' } as const;
  /** The export: ORANGE_STATEMENT_COLUMNS, `;`-separated, amounts signed, times in Cameroon time. */
  const statementCsv = () =>
    stringify(
      statement.rows().map((r) => {
        const { date, time } = orangeStatementTime(r.at);
        const type = r.kind === 'PAYMENT' && r.amount < 0 ? 'Cash in' : TYPES[r.kind];
        return [date, time, r.id, type, 'Succès', r.msisdn, String(r.amount), r.currency, r.reference ?? ''];
      }),
      { header: true, columns: [...ORANGE_STATEMENT_COLUMNS], delimiter: ';' },
    );

  const notify = (tx: OrangeSimTransaction) => {
    const url = tx.data.notifUrl;
    if (typeof url === 'string' && url !== '') sender.send(url, 'POST', JSON.stringify(tx.data));
  };

  const settle = (tx: OrangeSimTransaction, status: string, code: string, message: string) => {
    if (tx.data.status !== 'PENDING') return;
    Object.assign(tx.data, { status, confirmtxnstatus: code, confirmtxnmessage: message });
    if (status === 'SUCCESSFULL') {
      tx.data.txnid = `${tx.flow === 'mp' ? 'MP' : 'CI'}${randomBytes(8).toString('hex').toUpperCase()}`;
      statement.record(movementOf(tx));
    }
    notify(tx);
  };

  const checkApiAuth = (h: Record<string, string>): { status: number; body: unknown } | null => {
    const m = /^Bearer (.+)$/.exec(h.authorization ?? '');
    const expiresAt = m ? tokens.get(m[1]!) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) return { status: 401, body: FAULT_INVALID_CREDENTIALS };
    if (h['x-auth-token'] !== xAuthToken()) return { status: 403, body: { message: 'X-AUTH-TOKEN invalide', data: null } };
    return null;
  };

  const handleToken = (req: SimRequest, res: http.ServerResponse) => {
    const fault = faultHits(state, 'token');
    if (fault) return answerFault(res, fault, { fault: { code: 101503, message: 'Runtime Error', description: 'Error connecting to the back end' } });
    const basic = parseBasic(req.headers.authorization);
    if (!basic || basic.user !== options.consumerKey || basic.password !== options.consumerSecret) {
      return sendJson(res, 401, { error_description: 'Client Authentication failed.', error: 'invalid_client' });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') || new URLSearchParams(req.body).get('grant_type') !== 'client_credentials') {
      return sendJson(res, 400, { error_description: 'Unsupported grant_type value', error: 'unsupported_grant_type' });
    }
    const token = randomBytes(16).toString('hex');
    tokens.set(token, Date.now() + options.tokenTtlSeconds * 1000);
    return sendJson(res, 200, { access_token: token, scope: 'am_application_scope default', token_type: 'Bearer', expires_in: options.tokenTtlSeconds });
  };

  const handleInit = (req: SimRequest, res: http.ServerResponse, flow: Flow) => {
    const denied = checkApiAuth(req.headers);
    if (denied) return sendJson(res, denied.status, denied.body);
    const fault = faultHits(state, 'prepare');
    if (fault) return answerFault(res, fault, { fault: { code: 101503, message: 'Runtime Error', description: 'Error connecting to the back end' } });
    const payToken = `${flow === 'mp' ? 'MP' : 'CI'}${new Date().toISOString().slice(2, 10).replace(/-/g, '')}${randomBytes(10).toString('hex').toUpperCase()}`;
    transactions.set(payToken, { flow, payToken, orderId: null, createdAtMs: Date.now(), data: { payToken, status: 'INITIATED' } });
    const what = flow === 'mp' ? 'Payment request' : 'Cashin request';
    return sendJson(res, 200, { message: `${what} successfully initiated`, data: { payToken } });
  };

  const handlePay = (req: SimRequest, res: http.ServerResponse, flow: Flow) => {
    const denied = checkApiAuth(req.headers);
    if (denied) return sendJson(res, denied.status, denied.body);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, { message: 'Corps de requete invalide', data: null });
    }
    const fields = ['notifUrl', 'channelUserMsisdn', 'amount', 'subscriberMsisdn', 'pin', 'orderId', 'description', 'payToken'];
    const missing = fields.filter((f) => typeof body[f] !== 'string');
    if (missing.length > 0) return sendJson(res, 400, { message: `Champs manquants ou invalides : ${missing.join(', ')}`, data: null });
    const subscriber = body.subscriberMsisdn as string;
    if (!/^6\d{8}$/.test(subscriber) || !/^[1-9]\d*$/.test(body.amount as string) || (body.orderId as string).length > ORDER_ID_MAX) {
      return sendJson(res, 400, { message: 'subscriberMsisdn, amount ou orderId invalide', data: null });
    }
    if (body.channelUserMsisdn !== options.channelMsisdn || body.pin !== options.pin) {
      return sendJson(res, 403, { message: 'channelUserMsisdn ou pin invalide', data: null });
    }
    const tx = transactions.get(body.payToken as string);
    if (!tx || tx.flow !== flow) return sendJson(res, 400, { message: 'payToken invalide', data: null });
    if (tx.data.status !== 'INITIATED') return sendJson(res, 400, { message: 'payToken deja utilise', data: null });
    const fault = faultHits(state, 'initiate', options.faultRates);
    if (fault && !fault.landed) return answerFault(res, fault, { fault: { code: 101503, message: 'Runtime Error', description: 'Error connecting to the back end' } });
    const suffix = subscriber.slice(-3);
    const trigger = ORANGE_TRIGGERS[suffix];
    tx.orderId = body.orderId as string;
    const now = new Date().toISOString();
    tx.data = {
      id: transactions.size,
      createtime: now,
      subscriberMsisdn: subscriber,
      amount: Number(body.amount),
      payToken: tx.payToken,
      txnid: null,
      txnmode: body.orderId,
      inittxnmessage: 'Paiement en attente de confirmation par le client',
      inittxnstatus: '200',
      confirmtxnstatus: null,
      confirmtxnmessage: null,
      status: 'PENDING',
      notifUrl: body.notifUrl,
      description: body.description,
      channelUserMsisdn: body.channelUserMsisdn,
    };
    if (trigger?.kind === 'FAIL_AT_ONCE') {
      Object.assign(tx.data, { status: 'FAILED', inittxnstatus: trigger.code, inittxnmessage: trigger.message });
    } else if (suffix === SIM_LATE_SUFFIX) {
      later(options.lateDecisionMs, () => settle(tx, 'SUCCESSFULL', '200', `Paiement de ${String(body.amount)} FCFA effectue avec succes`), true);
    } else if (trigger?.kind === 'SETTLE') {
      later(decisionDelayOf(options), () => settle(tx, trigger.status, trigger.code, trigger.message));
    } else if (!trigger) {
      later(decisionDelayOf(options), () => settle(tx, 'SUCCESSFULL', '200', `Paiement de ${String(body.amount)} FCFA effectue avec succes`));
    }
    if (fault) return answerFault(res, fault, { fault: { code: 101503, message: 'Runtime Error', description: 'Error connecting to the back end' } });
    // A business decline (wrong PIN, insufficient funds…) is HTTP 417 with the reason
    // (spreeloop/core-ts).
    if (tx.data.status === 'FAILED') return sendJson(res, 417, { message: String(tx.data.inittxnmessage), data: tx.data });
    return sendJson(res, 200, { message: 'Paiement en attente de confirmation', data: tx.data });
  };

  const handleStatus = (req: SimRequest, res: http.ServerResponse, flow: Flow, payToken: string) => {
    const denied = checkApiAuth(req.headers);
    if (denied) return sendJson(res, denied.status, denied.body);
    const fault = faultHits(state, 'status');
    if (fault) return answerFault(res, fault, { fault: { code: 101503, message: 'Runtime Error', description: 'Error connecting to the back end' } });
    const tx = transactions.get(payToken);
    if (!tx || tx.flow !== flow) return sendJson(res, 404, { message: 'Transaction introuvable', data: null });
    if (tx.data.status === 'INITIATED' && Date.now() - tx.createdAtMs >= options.payTokenTtlMs) tx.data.status = 'EXPIRED';
    return sendJson(res, 200, { message: 'Transaction retrieved successfully', data: tx.data });
  };

  const expireTokens = () => {
    for (const k of tokens.keys()) tokens.set(k, 0);
    return tokens.size;
  };

  const route = async (req: SimRequest, res: http.ServerResponse) => {
    const path = req.path;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/token') {
      await hold(latencyOf(options.latencyMs, 'token'), later);
      return handleToken(req, res);
    }
    if (req.method === 'POST' && (m = new RegExp(`^${PREFIX}/(mp|cashin)/(init|pay)$`).exec(path))) {
      const [flow, step] = [m[1] as Flow, m[2]!];
      await hold(latencyOf(options.latencyMs, step === 'init' ? 'prepare' : 'initiate'), later);
      return step === 'init' ? handleInit(req, res, flow) : handlePay(req, res, flow);
    }
    if (req.method === 'GET' && (m = new RegExp(`^${PREFIX}/(mp|cashin)/paymentstatus/([^/]+)$`).exec(path))) {
      const [flow, payToken] = [m[1] as Flow, decodeURIComponent(m[2]!)];
      await hold(latencyOf(options.latencyMs, 'status'), later);
      return handleStatus(req, res, flow, payToken);
    }
    return sendJson(res, 404, { fault: { code: 404, type: 'Status report', message: 'Not Found', description: 'The requested resource is not available.' } });
  };

  return core.serve(
    route,
    {
      settings: {
        decisionDelayMs: 'ms',
        lateDecisionMs: 'ms',
        payTokenTtlMs: 'ms',
        ...CALLBACK_SETTING_RULES,
        ...latencyRules(['token', 'prepare', 'initiate', 'status']),
      },
      decideLate: decisions.decideLate,
      expireTokens,
      moved,
      transactions: () => [...transactions.values()].map((t) => t.data),
      statement,
      statementCsv,
    },
    { transactions, expireTokens, decideLate: decisions.decideLate, moved, statement, statementCsv },
  );
}
