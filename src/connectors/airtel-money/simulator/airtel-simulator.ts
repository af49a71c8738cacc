/**
 * A standalone Airtel Africa Open API simulator (`kolo simulate airtel --port N`), following the
 * published contract (https://developers.airtel.africa/documentation): client-credentials tokens
 * lasting `tokenTtlSeconds` (180, as observed) by its own clock (`now`, injectable), `X-Country`
 * and `X-Currency` checked against its markets, collections by USSD push
 * (`POST /merchant/v1/payments/`), disbursements (`POST /standard/v1/disbursements/`, the PIN
 * RSA-encrypted with the simulator's public key: `publicKey`, base64 DER), enquiries
 * (`GET /standard/v1/payments/{id}`, `…/disbursements/{id}`) answering `TIP`, `TS`, `TF`, `TA`,
 * and callbacks `{transaction: {id, message, status_code, airtel_money_id}, hash}` to
 * `callbackUrl` when set (hash: HMAC-SHA256 of the transaction with `callbackKey`), and the
 * wallet's balance (`GET /standard/v1/users/balance`, per `X-Country`: `balances`, major units,
 * moved by what it did — a successful collection credits it, a disbursement debits it when
 * accepted and is given back if it fails; a refund debits it), refunds
 * (`POST /standard/v1/payments/refund` by `airtel_money_id`: a successful collection, once, in
 * full; asked again, the same SUCCESS; `refundFaults` lose or refuse answers). A disbursement the balance cannot pay is refused
 * `DP00900001007` (not enough balance), recorded `TF`, and nothing moves.
 *
 * Outcomes by the last three digits of the number (fault modes): …101 `TF` (insufficient
 * funds), …102 `TA` first, `TS` after `ambiguousForMs` (the money waited), …103 `TIP` forever,
 * anything else `TS` after `decisionDelayMs`. `forgeHashes` signs callbacks with a wrong key.
 * `expireTokens()` makes every token issued so far expired (401 on its next use);
 * `GET /_simulator/public-key` gives the key to configure Kolo with. Test and
 * rehearsal tooling only: production code never imports it.
 */
import { constants, createHmac, generateKeyPairSync, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { createSimCore, SIM_COMMON_DEFAULTS, sendJson, type SimListenOptions, type SimMovement, type SimRequest } from '../../simulator-http.ts';

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface AirtelSimulatorOptions extends SimListenOptions {
  clientId: string;
  clientSecret: string;
  /** The disbursement wallet's PIN the encrypted `pin` must carry. */
  pin: string;
  /** Country → currency of the markets it serves. */
  markets: Record<string, string>;
  tokenTtlSeconds: number;
  decisionDelayMs: number;
  /** How long a …102 transaction stays `TA` before turning `TS`. */
  ambiguousForMs: number;
  /** The application's callback URL (one per application, as on Airtel's portal); null: none. */
  callbackUrl: string | null;
  /** Callback authentication key; null: callbacks carry no hash. */
  callbackKey: string | null;
  /** Sign callbacks with a wrong key (a forged callback). */
  forgeHashes: boolean;
  /** The simulator's clock, milliseconds (token expiry). */
  now: () => number;
  /** Country → the wallet's balance, major units (XAF: whole francs); a test may set it. */
  balances: Record<string, number>;
  /**
   * Faults of the next refund requests, one consumed per request: `LOST_ANSWER` refunds, then
   * answers 500 (the answer lost); `UNAVAILABLE` answers 503 and does nothing.
   */
  refundFaults: Array<'LOST_ANSWER' | 'UNAVAILABLE'>;
}

/** Defaults, documented in docs/going-live.md for rehearsals. */
export const AIRTEL_SIM_DEFAULTS: AirtelSimulatorOptions = {
  host: SIM_COMMON_DEFAULTS.host,
  port: SIM_COMMON_DEFAULTS.port,
  clientId: 'sim-airtel-client-id',
  clientSecret: 'sim-airtel-client-secret',
  pin: '1234',
  markets: { CG: 'XAF', GA: 'XAF', TD: 'XAF' },
  tokenTtlSeconds: 180,
  decisionDelayMs: 2000,
  ambiguousForMs: 10_000,
  callbackUrl: null,
  callbackKey: null,
  forgeHashes: false,
  now: () => Date.now(),
  balances: { CG: 10_000_000, GA: 10_000_000, TD: 10_000_000 },
  refundFaults: [],
};

/** One transaction the simulator holds. */
export interface AirtelSimTransaction {
  kind: 'PAY_IN' | 'PAY_OUT';
  id: string;
  reference: string;
  msisdn: string;
  amount: number;
  country: string;
  currency: string;
  status: 'TIP' | 'TS' | 'TF' | 'TA';
  message: string;
  airtelMoneyId: string;
  /** Set once the collection is refunded (`POST /standard/v1/payments/refund`): the refund's own id. */
  refundId?: string;
}

/** A running Airtel simulator. */
export interface AirtelSimulator {
  url: string;
  options: AirtelSimulatorOptions;
  /** Airtel's RSA public key for the PIN, base64 DER (what the portal shows). */
  publicKey: string;
  requests: SimRequest[];
  transactions: Map<string, AirtelSimTransaction>;
  /** Tokens issued so far. */
  tokensIssued(): number;
  /** Every token issued so far expires now. */
  expireTokens(): void;
  moved(): SimMovement[];
  close(): Promise<void>;
}

/** RSA private decryption of PKCS#1 v1.5 padding, unpadded by hand (Node refuses the padding mode for decryption). */
function decryptPkcs1(privateKey: KeyObject, base64: string): string | null {
  try {
    const raw = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(base64, 'base64'));
    if (raw[0] !== 0x00 || raw[1] !== 0x02) return null;
    const end = raw.indexOf(0x00, 2);
    return end < 10 ? null : raw.subarray(end + 1).toString('utf8');
  } catch {
    return null;
  }
}

const ok = (transaction: unknown) => ({ data: { transaction }, status: { code: '200', message: 'SUCCESS', result_code: 'ESB000010', response_code: 'DP00800001006', success: true } });
const refused = (code: string, message: string) => ({ status: { code, message, result_code: 'ESB000001', success: false } });

/** Starts the simulator. `overrides` are merged over `AIRTEL_SIM_DEFAULTS`. */
export async function startAirtelSimulator(overrides: Partial<AirtelSimulatorOptions> & { decisionDelayMs?: number; webhookUrl?: string | undefined } = {}): Promise<AirtelSimulator> {
  const { webhookUrl, ...rest } = overrides;
  const options: AirtelSimulatorOptions = { ...AIRTEL_SIM_DEFAULTS, ...rest, ...(webhookUrl ? { callbackUrl: webhookUrl } : {}) };
  options.balances = { ...(rest.balances ?? AIRTEL_SIM_DEFAULTS.balances) };
  options.refundFaults = [...(rest.refundFaults ?? [])];
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const tokens = new Map<string, number>();
  let issued = 0;
  const transactions = new Map<string, AirtelSimTransaction>();
  const core = createSimCore(options);
  const { decisions } = core;

  const callback = (t: AirtelSimTransaction) => {
    if (!options.callbackUrl || (t.status !== 'TS' && t.status !== 'TF')) return;
    const transaction = { id: t.id, message: t.message, status_code: t.status, airtel_money_id: t.airtelMoneyId };
    const key = options.forgeHashes ? 'forged-key' : options.callbackKey;
    const body = { transaction, ...(key ? { hash: createHmac('sha256', key).update(JSON.stringify(transaction)).digest('base64') } : {}) };
    void fetch(options.callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).catch(() => undefined);
  };
  const settle = (t: AirtelSimTransaction, status: AirtelSimTransaction['status'], message: string) => {
    // The wallet moves with what happened: a collection is credited when it succeeds; a
    // disbursement, debited when accepted, is given back when it fails.
    if (t.status !== 'TS' && t.status !== 'TF') {
      if (status === 'TS' && t.kind === 'PAY_IN') options.balances[t.country] = (options.balances[t.country] ?? 0) + t.amount;
      if (status === 'TF' && t.kind === 'PAY_OUT') options.balances[t.country] = (options.balances[t.country] ?? 0) + t.amount;
    }
    t.status = status;
    t.message = message;
    callback(t);
  };
  const decide = (t: AirtelSimTransaction) => {
    const suffix = t.msisdn.slice(-3);
    if (suffix === '103') return;
    if (suffix === '101') return decisions.later(options.decisionDelayMs, () => settle(t, 'TF', 'Insufficient funds'));
    if (suffix === '102') {
      decisions.later(options.decisionDelayMs, () => settle(t, 'TA', 'Transaction ambiguous'));
      return decisions.later(options.decisionDelayMs + options.ambiguousForMs, () => settle(t, 'TS', 'Transaction successful'));
    }
    decisions.later(options.decisionDelayMs, () => settle(t, 'TS', 'Transaction successful'));
  };

  /** A business call's token and market headers; null when accepted. */
  const checkCall = (h: Record<string, string>): { status: number; body: unknown } | null => {
    const m = /^Bearer (.+)$/.exec(h.authorization ?? '');
    const expiresAt = m ? tokens.get(m[1]!) : undefined;
    if (expiresAt === undefined || expiresAt <= options.now()) return { status: 401, body: refused('401', 'Invalid or expired access token') };
    const currency = options.markets[h['x-country'] ?? ''];
    if (!currency) return { status: 400, body: refused('400', 'Invalid X-Country') };
    if (h['x-currency'] !== currency) return { status: 400, body: refused('400', 'Invalid X-Currency') };
    return null;
  };

  const route = (req: SimRequest, res: http.ServerResponse) => {
    const { body, headers: h, path } = req;
    let json: Record<string, any> = {};
    try {
      json = body ? JSON.parse(body) : {};
    } catch {
      return sendJson(res, 400, refused('400', 'Malformed JSON'));
    }
    // Rehearsal helper (not Airtel's): the key to set as AIRTEL_MONEY_PUBLIC_KEY.
    if (req.method === 'GET' && path === '/_simulator/public-key') return sendJson(res, 200, { publicKey });
    if (req.method === 'POST' && path === '/auth/oauth2/token') {
      if (json.client_id !== options.clientId || json.client_secret !== options.clientSecret || json.grant_type !== 'client_credentials') {
        return sendJson(res, 401, { error: 'invalid_client', error_description: 'Invalid client credentials' });
      }
      const token = randomBytes(16).toString('hex');
      tokens.set(token, options.now() + options.tokenTtlSeconds * 1000);
      issued += 1;
      return sendJson(res, 200, { access_token: token, expires_in: String(options.tokenTtlSeconds), token_type: 'bearer' });
    }
    const refusal = checkCall(h);
    if (refusal) return sendJson(res, refusal.status, refusal.body);
    const country = h['x-country']!;
    const currency = h['x-currency']!;
    const isCollection = req.method === 'POST' && path === '/merchant/v1/payments/';
    const isDisbursement = req.method === 'POST' && path === '/standard/v1/disbursements/';
    if (isCollection || isDisbursement) {
      const msisdn = String(isCollection ? json.subscriber?.msisdn : json.payee?.msisdn);
      const id = json.transaction?.id;
      const amount = json.transaction?.amount;
      if (typeof id !== 'string' || !/^\d{6,12}$/.test(msisdn) || typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) {
        return sendJson(res, 400, refused('400', 'Invalid request'));
      }
      if (transactions.has(id)) return sendJson(res, 400, refused('400', 'Duplicate transaction id'));
      if (isDisbursement && decryptPkcs1(keys.privateKey, String(json.pin)) !== options.pin) {
        return sendJson(res, 200, { data: { transaction: { id, status: 'TF', message: 'Invalid PIN' } }, status: { code: '200', message: 'Invalid PIN', result_code: 'DP00900001012', success: false } });
      }
      const short = isDisbursement && (options.balances[country] ?? 0) < amount;
      const t: AirtelSimTransaction = {
        kind: isCollection ? 'PAY_IN' : 'PAY_OUT',
        id,
        reference: String(json.reference ?? ''),
        msisdn,
        amount,
        country,
        currency,
        status: 'TIP',
        message: 'In progress',
        airtelMoneyId: `MP${randomBytes(5).toString('hex').toUpperCase()}`,
      };
      transactions.set(id, t);
      if (short) {
        t.status = 'TF';
        t.message = 'Not enough balance';
        return sendJson(res, 200, { data: { transaction: { id, status: 'TF', message: t.message } }, status: { code: '200', message: t.message, result_code: 'ESB000001', response_code: 'DP00900001007', success: false } });
      }
      if (isDisbursement) options.balances[country] = (options.balances[country] ?? 0) - amount;
      decide(t);
      return sendJson(res, 200, ok({ id, status: isCollection ? 'Success.' : 'TIP' }));
    }
    if (req.method === 'POST' && path === '/standard/v1/payments/refund') {
      const moneyId = json.transaction?.airtel_money_id;
      const t = [...transactions.values()].find((c) => c.kind === 'PAY_IN' && c.airtelMoneyId === moneyId && c.country === country);
      if (!t) return sendJson(res, 400, refused('400', 'Transaction not found'));
      if (t.status !== 'TS') return sendJson(res, 400, refused('400', 'Transaction not refundable'));
      const fault = options.refundFaults.shift();
      if (fault === 'UNAVAILABLE') return sendJson(res, 503, refused('503', 'Service unavailable'));
      // A payment is refunded once: asked again, the refund answers what it did.
      if (!t.refundId) {
        t.refundId = `RF${randomBytes(5).toString('hex').toUpperCase()}`;
        options.balances[country] = (options.balances[country] ?? 0) - t.amount;
      }
      if (fault === 'LOST_ANSWER') return sendJson(res, 500, refused('500', 'Internal error'));
      return sendJson(res, 200, { data: { transaction: { airtel_money_id: t.refundId, status: 'SUCCESS' } }, status: { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true } });
    }
    if (req.method === 'GET' && path === '/standard/v1/users/balance') {
      return sendJson(res, 200, { data: { balance: (options.balances[country] ?? 0).toFixed(2), currency, account_status: 'Active' }, status: { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true } });
    }
    const enquiry = /^\/standard\/v1\/(payments|disbursements)\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && enquiry) {
      const t = transactions.get(decodeURIComponent(enquiry[2]!));
      if (!t || (t.kind === 'PAY_IN') !== (enquiry[1] === 'payments')) return sendJson(res, 404, refused('404', 'Transaction not found'));
      const answer = ok({ airtel_money_id: t.airtelMoneyId, id: t.id, message: t.message, status: t.status });
      // A disbursement refused for want of balance keeps saying why.
      if (t.kind === 'PAY_OUT' && t.status === 'TF' && t.message === 'Not enough balance') answer.status.response_code = 'DP00900001007';
      return sendJson(res, 200, answer);
    }
    return sendJson(res, 404, refused('404', 'Not found'));
  };

  return core.serve(route, null, {
    publicKey,
    transactions,
    tokensIssued: () => issued,
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    moved: () => [
      ...[...transactions.values()]
        .filter((t) => t.status === 'TS')
        .map((t) => ({ reference: t.reference, operatorReference: t.id, direction: t.kind, amount: t.amount, currency: t.currency, msisdn: t.msisdn, operatorTransactionId: t.airtelMoneyId })),
      // A refund pays the collection's payer back; Airtel knows it by the collection's ids only.
      ...[...transactions.values()]
        .filter((t) => t.refundId)
        .map((t) => ({ reference: t.reference, operatorReference: t.id, direction: 'PAY_OUT' as const, amount: t.amount, currency: t.currency, msisdn: t.msisdn, operatorTransactionId: t.refundId! })),
    ],
  });
}
