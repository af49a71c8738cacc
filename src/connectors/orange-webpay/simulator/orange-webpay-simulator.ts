/**
 * A standalone Orange Money Web Payment simulator (`kolo simulate orange-webpay --port N`),
 * following Orange's "OM WebPay" contract (reference/operators.md §2A): the OAuth token
 * (`POST /oauth/v3/token`, Basic client id:secret, `expires_in` 7776000), the web payment's
 * creation (`POST /orange-money-webpay/{country|dev}/v1/webpayment`: the country's merchant key
 * and currency — `OUV` on `dev` —, an `order_id` used once, at most 30 characters, URLs at most
 * 120 → `201 {status, message, pay_token, payment_url, notif_token}`), its status
 * (`POST …/transactionstatus` `{order_id, amount, pay_token}` → `201 {status, order_id, txnid}`;
 * a body without `order_id` → 400 "Missing body field OrderId", as integrators report), and the
 * **payment page** at `payment_url` (`/payment/pay_token/<pay_token>`): the customer types the
 * OTP (`options.otp`, shown on the page as the SMS would bring it) and confirms, or cancels.
 * Confirmed with the right OTP, the payment is SUCCESS (after `decisionDelayMs` of PENDING);
 * with another, FAILED; either way Orange posts `{status, notif_token, txnid}` to `notif_url`
 * once, without retry, and sends the customer to `return_url` (cancel: `cancel_url`). A payment
 * not confirmed within `paymentValidityMs` is EXPIRED. Test and staging tooling only.
 *
 * Fault modes (`options.notification`, `POST /_simulator/settings`): `sent`; `never` (the
 * notification is lost, as integrators report); `wrong-token` (posted with a notif_token that is
 * not the payment's). `expire(payToken)` expires a payment now. The fault switch of
 * `simulator-http.ts` (`POST /_simulator/fault`: 5xx or timeout) applies to `initiate` (the
 * creation) and `status`.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  answerFault,
  escapeHtml,
  CALLBACK_SETTING_RULES,
  createSimCore,
  faultHits,
  mergeSimOptions,
  parseBasic,
  parseJsonObject,
  SIM_COMMON_DEFAULTS,
  sendJson,
  type SimCallbackOptions,
  type SimHandle,
  type SimListenOptions,
  type SimMovement,
  type SimRequest,
} from '../../simulator-http.ts';

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface OrangeWebpaySimulatorOptions extends SimListenOptions {
  clientId: string;
  clientSecret: string;
  /** Merchant key of each country's wallet (also accepted on `dev`). */
  merchantKeys: Record<string, string>;
  /** The OTP the customer receives by SMS (shown on the payment page). */
  otp: string;
  /** How long a payment may wait for the customer before it is EXPIRED, milliseconds. */
  paymentValidityMs: number;
  /** How long a confirmed payment stays PENDING before SUCCESS, milliseconds. */
  decisionDelayMs: number;
  /** `sent`: the notification is posted; `never`: it is lost; `wrong-token`: posted with another notif_token. */
  notification: 'sent' | 'never' | 'wrong-token';
  callbacks: SimCallbackOptions;
}

/** The markets' currencies (the simulator checks the creation's currency against them). */
const MARKET_CURRENCY: Readonly<Record<string, string>> = { ci: 'XOF', sn: 'XOF', ml: 'XOF', bf: 'XOF', gn: 'GNF', mg: 'MGA', cm: 'XAF' };

/** Default credentials (shaped like Orange's), documented in docs/going-live.md, for rehearsals. */
export const ORANGE_WEBPAY_SIM_DEFAULTS: OrangeWebpaySimulatorOptions = {
  host: SIM_COMMON_DEFAULTS.host,
  port: SIM_COMMON_DEFAULTS.port,
  clientId: 'owp-sim-client-id-0000',
  clientSecret: 'owp-sim-client-secret-0000',
  merchantKeys: Object.fromEntries(Object.keys(MARKET_CURRENCY).map((cc) => [cc.toUpperCase(), `sim${cc}merchantkey00`])),
  otp: '123456',
  paymentValidityMs: 10 * 60_000,
  decisionDelayMs: 0,
  notification: 'sent',
  callbacks: SIM_COMMON_DEFAULTS.callbacks,
};

/** One web payment as the simulator keeps it. */
export interface OrangeWebpaySimPayment {
  payToken: string;
  notifToken: string;
  country: string;
  orderId: string;
  amount: number;
  currency: string;
  returnUrl: string;
  cancelUrl: string;
  notifUrl: string;
  reference: string;
  status: 'INITIATED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'EXPIRED';
  txnid: string | null;
  createdAtMs: number;
}

/** A running simulator with its in-process controls. */
export interface OrangeWebpaySimulator extends SimHandle<OrangeWebpaySimulatorOptions> {
  payments: Map<string, OrangeWebpaySimPayment>;
  /** Expires the payment `payToken` now (its page and status say EXPIRED). */
  expire(payToken: string): void;
  /** The money Orange moved: one row per SUCCESS payment, in creation order. */
  moved(): SimMovement[];
}

const URL_MAX = 120;
const fault500 = { code: 500, message: 'Internal Server Error', description: 'simulated' };

/** Starts the simulator. `overrides` are merged over `ORANGE_WEBPAY_SIM_DEFAULTS`. */
export async function startOrangeWebpaySimulator(overrides: Partial<OrangeWebpaySimulatorOptions> = {}): Promise<OrangeWebpaySimulator> {
  const options: OrangeWebpaySimulatorOptions = {
    ...mergeSimOptions(ORANGE_WEBPAY_SIM_DEFAULTS, overrides),
    merchantKeys: { ...ORANGE_WEBPAY_SIM_DEFAULTS.merchantKeys, ...overrides.merchantKeys },
  };
  const tokens = new Set<string>();
  const payments = new Map<string, OrangeWebpaySimPayment>();
  const orderIds = new Set<string>();
  const core = createSimCore(options);
  const { state, decisions, sender } = core;
  let baseUrl = '';

  /** The payment's status now: an INITIATED payment past its validity is EXPIRED. */
  const current = (p: OrangeWebpaySimPayment): OrangeWebpaySimPayment => {
    if (p.status === 'INITIATED' && Date.now() - p.createdAtMs >= options.paymentValidityMs) p.status = 'EXPIRED';
    return p;
  };

  const moved = (): SimMovement[] =>
    [...payments.values()]
      .filter((p) => p.status === 'SUCCESS')
      .map((p) => ({ reference: p.orderId, operatorReference: p.payToken, direction: 'PAY_IN' as const, amount: p.amount, currency: p.currency, msisdn: '', operatorTransactionId: p.txnid! }));

  /** Posts the notification of a decided payment (per `options.notification`). */
  const notify = (p: OrangeWebpaySimPayment) => {
    if (options.notification === 'never') return;
    const notifToken = options.notification === 'wrong-token' ? randomBytes(16).toString('hex') : p.notifToken;
    sender.send(p.notifUrl, 'POST', JSON.stringify({ status: p.status, notif_token: notifToken, txnid: p.txnid }));
  };

  const decide = (p: OrangeWebpaySimPayment, status: 'SUCCESS' | 'FAILED') => {
    if (p.status !== 'PENDING') return;
    p.status = status;
    p.txnid = `MP${new Date().toISOString().slice(2, 10).replace(/-/g, '')}.${randomBytes(4).toString('hex').toUpperCase()}`;
    notify(p);
  };

  const isBearer = (req: SimRequest) => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    return m !== null && tokens.has(m[1]!);
  };

  const handleToken = (req: SimRequest, res: http.ServerResponse) => {
    const basic = parseBasic(req.headers.authorization);
    if (!basic || basic.user !== options.clientId || basic.password !== options.clientSecret) {
      return sendJson(res, 401, { error: 'invalid_client', error_description: 'The requested service needs credentials, but the ones provided were invalid.' });
    }
    if (!/grant_type=client_credentials/.test(req.body)) return sendJson(res, 400, { error: 'unsupported_grant_type' });
    const token = randomBytes(18).toString('hex');
    tokens.add(token);
    return sendJson(res, 200, { token_type: 'Bearer', access_token: token, expires_in: 7776000 });
  };

  const handleCreate = (req: SimRequest, res: http.ServerResponse, market: string) => {
    if (!isBearer(req)) return sendJson(res, 401, { code: 42, message: 'Expired credentials', description: 'The requested service needs credentials, but the ones provided were expired.' });
    const body = parseJsonObject(req.body);
    if (!body) return sendJson(res, 400, { code: 400, message: 'Bad Request', description: 'The body is not JSON' });
    const isDev = market === 'dev';
    const country = isDev ? Object.entries(options.merchantKeys).find(([, key]) => key === body.merchant_key)?.[0] : market.toUpperCase();
    if (!country || options.merchantKeys[country] !== body.merchant_key) return sendJson(res, 403, { code: 403, message: 'Forbidden', description: 'Invalid merchant key' });
    const problems: string[] = [];
    if (body.currency !== (isDev ? 'OUV' : MARKET_CURRENCY[market])) problems.push('currency');
    if (!Number.isInteger(body.amount) || (body.amount as number) <= 0) problems.push('amount');
    if (typeof body.order_id !== 'string' || body.order_id.length === 0 || body.order_id.length > 30) problems.push('order_id');
    if (typeof body.reference !== 'string' || body.reference.length > 30) problems.push('reference');
    for (const f of ['return_url', 'cancel_url', 'notif_url']) {
      if (typeof body[f] !== 'string' || !/^https?:\/\//.test(body[f] as string) || (body[f] as string).length > URL_MAX) problems.push(f);
    }
    if (body.lang !== 'fr' && body.lang !== 'en') problems.push('lang');
    if (problems.length > 0) return sendJson(res, 400, { code: 400, message: 'Bad Request', description: `Invalid body field(s): ${problems.join(', ')}` });
    if (orderIds.has(body.order_id as string)) return sendJson(res, 403, { code: 403, message: 'Forbidden', description: 'order_id already used' });
    const fault = faultHits(state, 'initiate');
    if (fault && !fault.landed) return answerFault(res, fault, fault500);
    const payToken = `v1${randomBytes(16).toString('hex')}`;
    const payment: OrangeWebpaySimPayment = {
      payToken,
      notifToken: randomBytes(16).toString('hex'),
      country,
      orderId: body.order_id as string,
      amount: body.amount as number,
      currency: body.currency as string,
      returnUrl: body.return_url as string,
      cancelUrl: body.cancel_url as string,
      notifUrl: body.notif_url as string,
      reference: body.reference as string,
      status: 'INITIATED',
      txnid: null,
      createdAtMs: Date.now(),
    };
    orderIds.add(payment.orderId);
    payments.set(payToken, payment);
    if (fault) return answerFault(res, fault, fault500);
    return sendJson(res, 201, { status: 201, message: 'OK', pay_token: payToken, payment_url: `${baseUrl}/payment/pay_token/${payToken}`, notif_token: payment.notifToken });
  };

  const handleStatus = (req: SimRequest, res: http.ServerResponse) => {
    if (!isBearer(req)) return sendJson(res, 401, { code: 42, message: 'Expired credentials', description: 'The requested service needs credentials, but the ones provided were expired.' });
    const body = parseJsonObject(req.body);
    if (!body || typeof body.order_id !== 'string') return sendJson(res, 400, { code: 400, message: 'Missing body field OrderId' });
    const fault = faultHits(state, 'status');
    if (fault) return answerFault(res, fault, fault500);
    const p = typeof body.pay_token === 'string' ? payments.get(body.pay_token) : undefined;
    if (!p || p.orderId !== body.order_id || p.amount !== body.amount) return sendJson(res, 400, { code: 400, message: 'Bad Request', description: 'No transaction for this order_id, amount and pay_token' });
    current(p);
    return sendJson(res, 201, { status: p.status, order_id: p.orderId, txnid: p.txnid });
  };

  const page = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Orange Money (simulateur)</title></head><body>
<h1>Orange Money — simulateur</h1>
${body}
</body></html>`);
  };

  const paymentPage = (res: http.ServerResponse, payToken: string, error?: string) => {
    const p = payments.get(payToken);
    if (!p) return page(res, 404, '<p>Paiement introuvable.</p>');
    current(p);
    if (p.status === 'EXPIRED') return page(res, 410, `<p>Ce paiement a expiré.</p><p><a href="${escapeHtml(p.cancelUrl)}">Retour au marchand</a></p>`);
    if (p.status !== 'INITIATED') return page(res, 409, `<p>Ce paiement est déjà traité.</p><p><a href="${escapeHtml(p.returnUrl)}">Retour au marchand</a></p>`);
    return page(
      res,
      200,
      `<p>${escapeHtml(p.reference)} vous demande <strong id="amount">${p.amount} ${escapeHtml(p.currency)}</strong>.</p>
<p>Code reçu par SMS (simulateur) : <code id="otp-hint">${escapeHtml(options.otp)}</code></p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/payment/pay_token/${escapeHtml(payToken)}/confirm">
<label for="otp">Code OTP</label> <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Confirmer le paiement</button>
</form>
<p><a href="${escapeHtml(p.cancelUrl)}">Annuler</a></p>`,
    );
  };

  const confirm = (req: SimRequest, res: http.ServerResponse, payToken: string) => {
    const p = payments.get(payToken);
    if (!p) return page(res, 404, '<p>Paiement introuvable.</p>');
    current(p);
    if (p.status !== 'INITIATED') return paymentPage(res, payToken);
    const otp = new URLSearchParams(req.body).get('otp') ?? '';
    p.status = 'PENDING';
    const verdict = otp === options.otp ? 'SUCCESS' : 'FAILED';
    if (options.decisionDelayMs > 0) decisions.later(options.decisionDelayMs, () => decide(p, verdict));
    else decide(p, verdict);
    res.writeHead(303, { location: p.returnUrl });
    res.end();
  };

  const route = (req: SimRequest, res: http.ServerResponse) => {
    const path = req.path;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/oauth/v3/token') return handleToken(req, res);
    if (req.method === 'GET' && (m = /^\/payment\/pay_token\/(\w{1,64})$/.exec(path))) return paymentPage(res, m[1]!);
    if (req.method === 'POST' && (m = /^\/payment\/pay_token\/(\w{1,64})\/confirm$/.exec(path))) return confirm(req, res, m[1]!);
    if (req.method === 'POST' && (m = /^\/orange-money-webpay\/(dev|ci|sn|ml|bf|gn|mg|cm)\/v1\/webpayment$/.exec(path))) return handleCreate(req, res, m[1]!);
    if (req.method === 'POST' && /^\/orange-money-webpay\/(dev|ci|sn|ml|bf|gn|mg|cm)\/v1\/transactionstatus$/.test(path)) return handleStatus(req, res);
    return sendJson(res, 404, { code: 404, message: 'Resource not found' });
  };

  const simulator = await core.serve(
    route,
    {
      settings: { decisionDelayMs: 'ms', paymentValidityMs: 'ms', notification: ['sent', 'never', 'wrong-token'], ...CALLBACK_SETTING_RULES },
      moved,
      transactions: () => [...payments.values()].map(current),
    },
    {
      payments,
      expire(payToken: string) {
        const p = payments.get(payToken);
        if (p && p.status === 'INITIATED') p.status = 'EXPIRED';
      },
      moved,
    },
  );
  baseUrl = simulator.url;
  return simulator;
}
