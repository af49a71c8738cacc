/**
 * A standalone Wave simulator (`kolo simulate wave --port N`), following Wave's Checkout, Payout
 * and Webhook APIs (https://docs.wave.com): static bearer API keys bound to one wallet (SN or CI)
 * and one API (Checkout or Payout), Wave's `{code, message}` errors (`missing-auth-header`,
 * `no-matching-api-key`, `authorization-error`, `request-validation-error`,
 * `checkout-session-not-found`, `idempotency-mismatch`, …); Checkout sessions
 * (`POST /v1/checkout/sessions`, `GET …/:id`, `GET …/search?client_reference=`,
 * `POST …/:id/expire`) whose `wave_launch_url` is a page served here (`/c/:id`) where the customer
 * pays, then is sent to `success_url` (or `error_url`); payouts (`POST /v1/payout` with
 * `idempotency-key`: same key and body replayed, another body refused; `GET /v1/payout/:id`,
 * `GET /v1/payouts/search?client_reference=`); webhooks (`checkout.session.completed`,
 * `checkout.session.payment_failed`) posted to `webhookUrl`, signed
 * `Wave-Signature: t=<unix>,v1=<HMAC-SHA256(secret, t + body)>`. Test and staging tooling only.
 *
 * Wave has no public sandbox nor test numbers, so these triggers are the simulator's own (last
 * three digits of the payer's `restrict_payer_mobile`, or of the payout `mobile`, see
 * `WAVE_TRIGGERS` and docs/going-live.md): 601 insufficient funds · 603 blocked account ·
 * 604 inactive recipient (payout) · 605 limit exceeded · 602 `recipient-account-blocked` (payout) ·
 * 606 payout stays `processing` for `decisionDelayMs`, then succeeds · 198 Wave pays only after
 * `lateDecisionMs` or `decideLate()` (after Kolo's deadline): the payout stays `processing`, the
 * session is paid by the simulator itself · any other number: paid. A payout above the wallet's
 * balance (a setting) fails with `insufficient-funds`. The fault modes and latencies (`latencyMs`:
 * creations, status reads and searches) of `simulator-http.ts` apply; `moved()` lists the money moved.
 * `GET /v1/transactions?date=` (the Balance & Reconciliation API) lists the wallet's statement,
 * built from what it moved plus the discrepancies planted with `POST /_simulator/plant`
 * (`sim-statement.ts`).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { waveSignature } from '../wave-transformers.ts';
import {
  answerFault,
  escapeHtml,
  CALLBACK_SETTING_RULES,
  createSimCore,
  SIM_COMMON_DEFAULTS,
  SIM_LATE_DECISION_MS,
  SIM_LATE_SUFFIX,
  faultHits,
  hold,
  latencyRules,
  mergeSimOptions,
  parseJsonObject,
  sendJson,
  type SimCommonOptions,
  type SimHandle,
  type SimLatency,
  type SimMovement,
  type SimRequest,
} from '../../simulator-http.ts';
import { createSimStatement, type SimStatement } from '../../sim-statement.ts';

/** A simulated business wallet: its two API keys and balance (XOF). */
export interface WaveSimWallet {
  checkoutApiKey: string;
  payoutApiKey: string;
  balance: number;
}

/** Simulator settings (mutable at run time through `simulator.options`). */
export interface WaveSimulatorOptions extends SimCommonOptions {
  wallets: Record<'SN' | 'CI', WaveSimWallet>;
  /** Where webhooks go (the Business Portal setting); null: none sent. */
  webhookUrl: string | null;
  webhookSecret: string;
  /** `valid` signs properly; `invalid` signs with another secret; `missing` sends no header. */
  webhookSignature: 'valid' | 'invalid' | 'missing';
  /** How long a `…198` session or payout waits before Wave pays it, unless `decideLate()` comes first. */
  lateDecisionMs: number;
  /** Waits before handling session and payout creations (initiate) and their reads and searches (status). */
  latencyMs: SimLatency;
}

/** Default keys and secret (shaped like Wave's), documented in docs/going-live.md, for rehearsals. */
export const WAVE_SIM_DEFAULTS: WaveSimulatorOptions = {
  ...SIM_COMMON_DEFAULTS,
  wallets: {
    SN: { checkoutApiKey: 'wave_sn_prod_simcheckout0000000000000000', payoutApiKey: 'wave_sn_prod_simpayout00000000000000000', balance: 10_000_000 },
    CI: { checkoutApiKey: 'wave_ci_prod_simcheckout0000000000000000', payoutApiKey: 'wave_ci_prod_simpayout00000000000000000', balance: 10_000_000 },
  },
  webhookUrl: null,
  webhookSecret: 'wave_sn_WHS_simwebhooksecret000000000000',
  webhookSignature: 'valid',
  lateDecisionMs: SIM_LATE_DECISION_MS,
};

/** Simulator-defined outcomes by the last three digits of the customer's number. */
export const WAVE_TRIGGERS: Record<string, { code: string; message: string } | 'PROCESSING'> = {
  '601': { code: 'insufficient-funds', message: 'The payer does not have enough funds' },
  '602': { code: 'recipient-account-blocked', message: 'The recipient account is blocked' },
  '603': { code: 'blocked-account', message: 'The account is blocked' },
  '604': { code: 'recipient-account-inactive', message: 'The recipient account is inactive' },
  '605': { code: 'recipient-limit-exceeded', message: 'The recipient limit is exceeded' },
  '606': 'PROCESSING',
};

/** A running simulator with its in-process controls. */
export interface WaveSimulator extends SimHandle<WaveSimulatorOptions> {
  sessions: Map<string, Record<string, unknown>>;
  payouts: Map<string, Record<string, unknown>>;
  /** The customer pays session `id` on the launch page (what the page's button does). */
  pay(id: string): { redirect: string };
  /** Makes every pending `…198` decision now (also `POST /_simulator/decide-late`); returns how many. */
  decideLate(): number;
  /** The money Wave moved: one row per succeeded session (pay-in) or payout, in creation order. */
  moved(): SimMovement[];
  /** The wallet's transaction list (`GET /v1/transactions`), from `moved()` plus planted discrepancies. */
  statement: SimStatement;
}

const err = (code: string, message: string, details: unknown[] = []) => ({ code, message, details });
const E164 = /^\+\d{8,15}$/;
const AMOUNT = /^[1-9]\d{0,11}$/;

/** Starts the simulator. `overrides` are merged over `WAVE_SIM_DEFAULTS`. */
export async function startWaveSimulator(overrides: Partial<WaveSimulatorOptions> = {}): Promise<WaveSimulator> {
  const options: WaveSimulatorOptions = {
    ...mergeSimOptions(WAVE_SIM_DEFAULTS, overrides),
    wallets: structuredClone(overrides.wallets ?? WAVE_SIM_DEFAULTS.wallets),
  };
  const sessions = new Map<string, Record<string, unknown>>();
  const payouts = new Map<string, Record<string, unknown>>();
  const idempotency = new Map<string, { body: string; payoutId: string }>();
  const core = createSimCore(options);
  const { state, decisions, sender, later } = core;
  let baseUrl = '';

  const digits = (mobile: unknown) => String(mobile ?? '').replace(/^\+/, '');
  /** The movement of a succeeded checkout session (a pay-in). */
  const sessionMovement = (s: Record<string, unknown>): SimMovement => ({
    reference: String(s.client_reference),
    operatorReference: String(s.id),
    direction: 'PAY_IN',
    amount: Number(s.amount),
    currency: String(s.currency),
    msisdn: digits(s.restrict_payer_mobile),
    operatorTransactionId: String(s.transaction_id),
  });
  /** The movement of a succeeded payout. */
  const payoutMovement = (p: Record<string, unknown>): SimMovement => ({
    reference: String(p.client_reference),
    operatorReference: String(p.id),
    direction: 'PAY_OUT',
    // What the recipient received; Wave also took its fee from our wallet.
    amount: Number(p.receive_amount),
    currency: String(p.currency),
    msisdn: digits(p.mobile),
    operatorTransactionId: String(p.id),
  });
  const moved = (): SimMovement[] => [
    ...[...sessions.values()].filter((s) => s.payment_status === 'succeeded').map(sessionMovement),
    ...[...payouts.values()].filter((p) => p.status === 'succeeded').map(payoutMovement),
  ];

  const statement = createSimStatement({
    nowMs: () => options.nowMs(),
    requestOf: (reference) => {
      const session = [...sessions.values()].find((x) => x.client_reference === reference);
      if (session) return { direction: 'PAY_IN', amount: Number(session.amount), currency: String(session.currency), msisdn: digits(session.restrict_payer_mobile) };
      const payout = [...payouts.values()].find((x) => x.client_reference === reference);
      return payout ? { direction: 'PAY_OUT', amount: Number(payout.receive_amount), currency: String(payout.currency), msisdn: digits(payout.mobile) } : null;
    },
  });

  /**
   * `GET /v1/transactions?date=YYYY-MM-DD[&after=<cursor>]`: the day's rows of the statement, 50 a
   * page; either of the wallet's keys (the simulator grants both the Balance API).
   */
  const listTransactions = (req: SimRequest, res: http.ServerResponse, url: URL) => {
    const who = authenticate(req, 'checkout');
    const byPayoutKey = 'status' in who ? authenticate(req, 'payout') : who;
    if ('status' in byPayoutKey) return sendJson(res, byPayoutKey.status, byPayoutKey.body);
    const date = url.searchParams.get('date') ?? '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return sendJson(res, 400, err('request-validation-error', 'Request validation error', [{ loc: ['date'], msg: 'invalid' }]));
    const day = statement.rows().filter((r) => r.at.toISOString().slice(0, 10) === date);
    const start = Number(url.searchParams.get('after') ?? '0') || 0;
    const page = day.slice(start, start + 50);
    return sendJson(res, 200, {
      page_info: { start_cursor: String(start), end_cursor: String(start + page.length), has_next_page: start + page.length < day.length },
      date,
      items: page.map((r) => ({
        timestamp: r.at.toISOString(),
        transaction_id: r.id,
        transaction_type: r.kind === 'ADJUSTMENT' ? 'adjustment' : r.amount > 0 ? 'merchant_payment' : 'payout',
        amount: String(r.amount),
        fee: '0',
        currency: r.currency,
        counterparty_mobile: r.msisdn ? `+${r.msisdn}` : null,
        client_reference: r.reference,
        is_reversal: r.kind === 'REVERSAL',
        reversed_transaction_id: r.reversalOf,
      })),
    });
  };

  /** The wallet and API a bearer key belongs to, or an error answer. */
  const authenticate = (req: SimRequest, api: 'checkout' | 'payout'): { country: 'SN' | 'CI' } | { status: number; body: unknown } => {
    const header = req.headers.authorization;
    if (!header) return { status: 401, body: err('missing-auth-header', 'The Authorization header is missing') };
    const m = /^Bearer (\S+)$/.exec(header);
    if (!m) return { status: 401, body: err('invalid-auth', 'The Authorization header is malformed') };
    for (const country of ['SN', 'CI'] as const) {
      const w = options.wallets[country];
      if (m[1] === (api === 'checkout' ? w.checkoutApiKey : w.payoutApiKey)) return { country };
      if (m[1] === w.checkoutApiKey || m[1] === w.payoutApiKey) return { status: 403, body: err('authorization-error', `This API key is not allowed to use the ${api} API`) };
    }
    return { status: 401, body: err('no-matching-api-key', 'No API key matches the one provided') };
  };

  /** The body as a JSON object; null when it is not one or not sent as `application/json`. */
  const parse = (req: SimRequest): Record<string, unknown> | null =>
    (req.headers['content-type'] ?? '').startsWith('application/json') ? parseJsonObject(req.body) : null;

  const webhook = (type: string, data: Record<string, unknown>) => {
    if (!options.webhookUrl) return;
    const body = JSON.stringify({ id: `AE_${randomBytes(8).toString('hex')}`, type, data: publicSession(data) });
    const unix = Math.floor(options.nowMs() / 1000);
    const headers: Record<string, string> =
      options.webhookSignature === 'missing'
        ? {}
        : { 'Wave-Signature': waveSignature(body, options.webhookSignature === 'valid' ? options.webhookSecret : 'not-the-secret', unix) };
    sender.send(options.webhookUrl, 'POST', body, headers);
  };

  /** The session as Wave shows it (without the simulator's own fields). */
  const publicSession = (s: Record<string, unknown>) => {
    const { wallet: _wallet, ...rest } = s;
    return rest;
  };

  const handleCreateSession = (req: SimRequest, res: http.ServerResponse) => {
    const who = authenticate(req, 'checkout');
    if ('status' in who) return sendJson(res, who.status, who.body);
    const body = parse(req);
    if (!body) return sendJson(res, 400, err('request-not-json', 'The request body is not JSON'));
    const problems: string[] = [];
    if (typeof body.amount !== 'string' || !AMOUNT.test(body.amount)) problems.push('amount');
    if (body.currency !== 'XOF') problems.push('currency');
    for (const f of ['success_url', 'error_url']) if (typeof body[f] !== 'string' || !/^https?:\/\//.test(body[f] as string)) problems.push(f);
    if (body.client_reference !== undefined && (typeof body.client_reference !== 'string' || body.client_reference.length > 255)) problems.push('client_reference');
    if (body.restrict_payer_mobile !== undefined && (typeof body.restrict_payer_mobile !== 'string' || !E164.test(body.restrict_payer_mobile))) problems.push('restrict_payer_mobile');
    if (problems.length > 0) return sendJson(res, 400, err('request-validation-error', 'Request validation error', problems.map((p) => ({ loc: [p], msg: 'invalid' }))));
    const fault = faultHits(state, 'initiate');
    if (fault && !fault.landed) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
    const id = `cos-${randomBytes(7).toString('hex')}`;
    const now = new Date();
    const session: Record<string, unknown> = {
      id,
      amount: body.amount,
      currency: 'XOF',
      checkout_status: 'open',
      payment_status: 'processing',
      client_reference: body.client_reference ?? null,
      business_name: `Kolo Simulated ${who.country}`,
      transaction_id: null,
      last_payment_error: null,
      success_url: body.success_url,
      error_url: body.error_url,
      restrict_payer_mobile: body.restrict_payer_mobile ?? null,
      wave_launch_url: `${baseUrl}/c/${id}`,
      when_created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      when_expires: new Date(now.getTime() + 30 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      when_completed: null,
      wallet: who.country,
    };
    sessions.set(id, session);
    if (String(session.restrict_payer_mobile ?? '').endsWith(SIM_LATE_SUFFIX)) later(options.lateDecisionMs, () => void pay(id), true);
    if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
    return sendJson(res, 200, publicSession(session));
  };

  const sessionFor = (req: SimRequest, res: http.ServerResponse, id: string) => {
    const who = authenticate(req, 'checkout');
    if ('status' in who) return void sendJson(res, who.status, who.body);
    const session = sessions.get(id);
    if (!session || session.wallet !== who.country) return void sendJson(res, 404, err('checkout-session-not-found', 'Checkout session not found'));
    if (session.checkout_status === 'open' && Date.parse(session.when_expires as string) <= Date.now()) session.checkout_status = 'expired';
    return session;
  };

  const pay = (id: string): { redirect: string } => {
    const session = sessions.get(id);
    if (!session) throw new Error(`no session ${id}`);
    if (session.checkout_status !== 'open') return { redirect: session.error_url as string };
    const trigger = WAVE_TRIGGERS[String(session.restrict_payer_mobile ?? '').slice(-3)];
    if (trigger && trigger !== 'PROCESSING') {
      // A failed attempt does not close the session: the customer may retry until it expires.
      session.last_payment_error = { code: trigger.code, message: trigger.message };
      webhook('checkout.session.payment_failed', session);
      return { redirect: session.error_url as string };
    }
    // The customer's payment lands in the wallet (Wave's own fee on checkouts is not simulated).
    options.wallets[session.wallet as 'SN' | 'CI'].balance += Number(session.amount);
    Object.assign(session, {
      checkout_status: 'complete',
      payment_status: 'succeeded',
      transaction_id: `T${randomBytes(8).toString('hex').toUpperCase()}`,
      when_completed: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    statement.record(sessionMovement(session));
    webhook('checkout.session.completed', session);
    return { redirect: session.success_url as string };
  };

  const launchPage = (res: http.ServerResponse, id: string) => {
    const session = sessions.get(id);
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end('<!doctype html><title>Wave</title><p>Session introuvable</p>');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Wave (simulateur)</title></head><body>
<h1>Wave — simulateur</h1>
<p>${escapeHtml(String(session.business_name))} vous demande <strong id="amount">${escapeHtml(String(session.amount))} F CFA</strong>.</p>
<form method="post" action="/c/${escapeHtml(id)}/pay"><button type="submit" id="wave-pay">Payer avec Wave</button></form>
<p><a id="wave-back" href="${escapeHtml(String(session.error_url))}">Retour</a></p>
</body></html>`);
  };

  const handleCreatePayout = (req: SimRequest, res: http.ServerResponse) => {
    const who = authenticate(req, 'payout');
    if ('status' in who) return sendJson(res, who.status, who.body);
    const key = req.headers['idempotency-key'];
    if (!key) return sendJson(res, 400, err('request-validation-error', 'The idempotency-key header is required'));
    const body = parse(req);
    if (!body) return sendJson(res, 400, err('request-not-json', 'The request body is not JSON'));
    const replay = idempotency.get(`${who.country}:${key}`);
    if (replay) {
      if (replay.body !== req.body) return sendJson(res, 409, err('idempotency-mismatch', 'The idempotency key was used with another request'));
      return sendJson(res, 200, payouts.get(replay.payoutId));
    }
    const problems: string[] = [];
    if (body.currency !== 'XOF') problems.push('currency');
    if (typeof body.receive_amount !== 'string' || !AMOUNT.test(body.receive_amount)) problems.push('receive_amount');
    if (typeof body.mobile !== 'string' || !E164.test(body.mobile)) problems.push('mobile');
    if (problems.length > 0) return sendJson(res, 400, err('request-validation-error', 'Request validation error', problems.map((p) => ({ loc: [p], msg: 'invalid' }))));
    const fault = faultHits(state, 'initiate');
    if (fault && !fault.landed) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
    const amount = Number(body.receive_amount);
    const fee = Math.ceil(amount / 100);
    const payout: Record<string, unknown> = {
      id: `pt-${randomBytes(7).toString('hex')}`,
      currency: 'XOF',
      receive_amount: body.receive_amount,
      fee: String(fee),
      mobile: body.mobile,
      name: body.name ?? null,
      national_id: body.national_id ?? null,
      client_reference: body.client_reference ?? null,
      payment_reason: body.payment_reason ?? null,
      status: 'processing',
      payout_error: null,
      timestamp: new Date().toISOString(),
      aggregated_merchant_id: null,
      batch_id: null,
    };
    const trigger = WAVE_TRIGGERS[(body.mobile as string).slice(-3)];
    const wallet = options.wallets[who.country];
    const settle = () => {
      if (amount + fee > wallet.balance) {
        Object.assign(payout, { status: 'failed', payout_error: { error_code: 'insufficient-funds', error_message: 'Insufficient funds in the wallet' } });
      } else {
        wallet.balance -= amount + fee;
        payout.status = 'succeeded';
        statement.record(payoutMovement(payout));
      }
    };
    if ((body.mobile as string).endsWith(SIM_LATE_SUFFIX)) later(options.lateDecisionMs, settle, true);
    else if (trigger === 'PROCESSING') later(options.decisionDelayMs, settle);
    else if (trigger) Object.assign(payout, { status: 'failed', payout_error: { error_code: trigger.code, error_message: trigger.message } });
    else settle();
    payouts.set(payout.id as string, payout);
    idempotency.set(`${who.country}:${key}`, { body: req.body, payoutId: payout.id as string });
    if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
    return sendJson(res, 200, payout);
  };

  const route = async (req: SimRequest, res: http.ServerResponse, url: URL) => {
    const path = req.path;
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/c\/([\w-]{1,40})$/.exec(path))) return launchPage(res, m[1]!);
    if (req.method === 'POST' && (m = /^\/c\/([\w-]{1,40})\/pay$/.exec(path))) {
      if (!sessions.has(m[1]!)) return sendJson(res, 404, err('checkout-session-not-found', 'Checkout session not found'));
      const { redirect } = pay(m[1]!);
      res.writeHead(303, { location: redirect });
      return void res.end();
    }
    // Wave's own API from here on (the launch page above is the customer's, never slow).
    if (req.method === 'POST' && (path === '/v1/checkout/sessions' || path === '/v1/payout')) await hold(options.latencyMs.initiate, later);
    else if (req.method === 'GET' && path.startsWith('/v1/')) await hold(options.latencyMs.status, later);
    if (req.method === 'POST' && path === '/v1/checkout/sessions') return handleCreateSession(req, res);
    if (req.method === 'GET' && path === '/v1/balance') {
      const who = authenticate(req, 'payout');
      if ('status' in who) return sendJson(res, who.status, who.body);
      return sendJson(res, 200, { amount: String(options.wallets[who.country].balance), currency: 'XOF' });
    }
    if (req.method === 'GET' && path === '/v1/checkout/sessions/search') {
      const who = authenticate(req, 'checkout');
      if ('status' in who) return sendJson(res, who.status, who.body);
      const fault = faultHits(state, 'status');
      if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
      const ref = url.searchParams.get('client_reference');
      return sendJson(res, 200, { result: [...sessions.values()].filter((s) => s.wallet === who.country && s.client_reference === ref).map(publicSession) });
    }
    if (req.method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([\w-]{1,40})$/.exec(path))) {
      const fault = faultHits(state, 'status');
      if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
      const session = sessionFor(req, res, m[1]!);
      if (session) return sendJson(res, 200, publicSession(session));
      return;
    }
    if (req.method === 'POST' && (m = /^\/v1\/checkout\/sessions\/([\w-]{1,40})\/expire$/.exec(path))) {
      const session = sessionFor(req, res, m[1]!);
      if (!session) return;
      if (session.checkout_status === 'open') session.checkout_status = 'expired';
      return sendJson(res, 200, publicSession(session));
    }
    if (req.method === 'POST' && path === '/v1/payout') return handleCreatePayout(req, res);
    if (req.method === 'GET' && path === '/v1/transactions') return listTransactions(req, res, url);
    if (req.method === 'GET' && path === '/v1/payouts/search') {
      const who = authenticate(req, 'payout');
      if ('status' in who) return sendJson(res, who.status, who.body);
      const fault = faultHits(state, 'status');
      if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
      const ref = url.searchParams.get('client_reference');
      return sendJson(res, 200, { result: [...payouts.values()].filter((p) => p.client_reference === ref) });
    }
    if (req.method === 'GET' && (m = /^\/v1\/payout\/([\w-]{1,40})$/.exec(path))) {
      const who = authenticate(req, 'payout');
      if ('status' in who) return sendJson(res, who.status, who.body);
      const fault = faultHits(state, 'status');
      if (fault) return answerFault(res, fault, err('internal-server-error', 'Internal server error'));
      const payout = payouts.get(m[1]!);
      return payout ? sendJson(res, 200, payout) : sendJson(res, 404, err('not-found', 'Payout not found'));
    }
    return sendJson(res, 404, err('not-found', 'Not found'));
  };

  const simulator = await core.serve(
    route,
    {
      settings: {
        decisionDelayMs: 'ms',
        lateDecisionMs: 'ms',
        webhookSignature: ['valid', 'invalid', 'missing'],
        ...CALLBACK_SETTING_RULES,
        ...latencyRules(['initiate', 'status']),
      },
      decideLate: decisions.decideLate,
      moved,
      transactions: () => ({ sessions: [...sessions.values()].map(publicSession), payouts: [...payouts.values()] }),
      statement,
    },
    { sessions, payouts, pay, decideLate: decisions.decideLate, moved, statement },
  );
  baseUrl = simulator.url;
  return simulator;
}
