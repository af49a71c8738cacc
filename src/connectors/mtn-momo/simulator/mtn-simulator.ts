/**
 * A standalone MTN MoMo Open API simulator (`kolo simulate mtn --port N`), faithful to the
 * published contract (https://momodeveloper.mtn.com/api-documentation): sandbox API-user
 * provisioning (`/v1_0/apiuser`), per-product tokens (`POST /{product}/token/`, Basic API user:key
 * and subscription key), `requesttopay` and `transfer` with `X-Reference-Id` (UUIDv4, 409
 * `RESOURCE_ALREADY_EXIST` on reuse), status GETs, `accountholder/msisdn/{n}/active`, callbacks
 * (PUT by default, body = the status GET's) to `X-Callback-Url`, and MTN's sandbox numbers (its
 * "Sandbox Use Cases" page, https://momodeveloper.mtn.com/content/html_widgets/881wm.html). Test
 * and staging tooling only: production code never imports it.
 *
 * Scenarios by number: MTN's `46733123450`…`46733123464` as MTN documents them, and, so that
 * numbers valid in a real market rehearse the same cases, any other number ending in 450…464
 * behaves like the MTN number with the same last three digits (e.g. `237677000457`); a number
 * ending in 198 (the simulator's own, `SIM_LATE_SUFFIX`) succeeds only after `lateDecisionMs` or
 * `decideLate()`: MTN paying after Kolo's deadline. Every other number succeeds after
 * `decisionDelayMs`. The callback is sent once, without retry (MTN's callback pages), and the
 * fault modes and latencies (`latencyMs`: token, account-holder check, initiation, status) of
 * `simulator-http.ts` apply; `moved()` lists the money moved.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { MTN_MARKETS } from '../mtn-markets.ts';
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
import { MTN_STATEMENT_COLUMNS } from '../mtn-statement-csv.ts';

/** Credentials of one product in the simulator. */
export interface MtnSimProduct {
  apiUser: string;
  apiKey: string;
  subscriptionKey: string;
}

/** Simulator settings (all mutable at run time through `simulator.options`). */
export interface MtnSimulatorOptions extends SimCommonOptions {
  collection: MtnSimProduct;
  disbursement: MtnSimProduct;
  /** Accepted `X-Target-Environment` values; `sandbox` demands EUR. */
  targetEnvironments: string[];
  /** `providerCallbackHost` of the API user: callback hosts must equal it; null accepts any. */
  providerCallbackHost: string | null;
  /** When larger than `decisionDelayMs`: each decision comes after a uniform draw between the two. */
  decisionDelayMaxMs?: number;
  /** Random faults of the money-moving call (`simulator-http.ts`); unset: none. */
  faultRates?: SimFaultRates | null;
  /** How long `…454` (PayerDelayed / PayeeDelayed) stays PENDING before succeeding (MTN observed ~25 s). */
  delayedMs: number;
  /** How long a `…198` request stays PENDING before succeeding, unless `decideLate()` comes first. */
  lateDecisionMs: number;
  tokenTtlSeconds: number;
  /** Callback method: MTN's API description says PUT, its newer page POST. */
  callbackMethod: 'PUT' | 'POST';
  /** `reason` as a plain string (current platform) or `{code, message}` (original swagger). */
  reasonShape: 'string' | 'object';
  /** Waits before handling tokens, account-holder checks, initiations and status queries. */
  latencyMs: SimLatency;
  /**
   * Each product account's balance, base units of the market currency: collection grows with
   * each successful request-to-pay, disbursement shrinks with each successful transfer; a
   * transfer the disbursement balance cannot cover fails `NOT_ENOUGH_FUNDS`. Served by
   * `GET /{product}/v1_0/account/balance`; tests set or raise it here.
   */
  balances: Record<'collection' | 'disbursement', number>;
}

/** Default credentials, documented in docs/going-live.md, for rehearsals. */
export const MTN_SIM_DEFAULTS: MtnSimulatorOptions = {
  ...SIM_COMMON_DEFAULTS,
  collection: { apiUser: '0b1f5a8e-3c2d-4e6f-9a7b-8c9d0e1f2a3b', apiKey: 'sim-collection-api-key-0000000000', subscriptionKey: 'sim-collection-subscription-key' },
  disbursement: { apiUser: '6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f', apiKey: 'sim-disbursement-api-key-00000000', subscriptionKey: 'sim-disbursement-subscription-key' },
  targetEnvironments: ['sandbox', 'mtncameroon'],
  providerCallbackHost: null,
  delayedMs: 25_000,
  lateDecisionMs: SIM_LATE_DECISION_MS,
  tokenTtlSeconds: 3600,
  callbackMethod: 'PUT',
  reasonShape: 'string',
  balances: { collection: 0, disbursement: 1_000_000_000_000 },
};

/**
 * Market currency per target environment (`mtn-markets.ts`, plus Rwanda's from SDK code);
 * `sandbox` is EUR only. A request in another currency is refused as MTN refuses it.
 */
const ENVIRONMENT_CURRENCY: Record<string, string> = {
  sandbox: 'EUR',
  mtnrwanda: 'RWF',
  ...Object.fromEntries(MTN_MARKETS.map((m) => [m.targetEnvironment, m.currency])),
};

type Product = 'collection' | 'disbursement';

/** Currencies whose MTN amount is already in base units. */
const ZERO_DECIMAL_CURRENCIES = new Set(['XAF', 'XOF', 'UGX', 'RWF', 'GNF']);

/** What a scenario does: succeed (after a delay), fail with a reason, or stay pending. */
type Scenario = { kind: 'SUCCEED'; afterMs?: 'delayed' | 'late' } | { kind: 'FAIL'; reason: string } | { kind: 'PENDING_FOREVER' };

const fail = (reason: string): Scenario => ({ kind: 'FAIL', reason });

/** RequestToPay (payer) column of MTN's Sandbox Use Cases, with each number's reason. */
export const MTN_REQUEST_TO_PAY_SCENARIOS: Record<string, Scenario> = {
  '46733123450': fail('INTERNAL_PROCESSING_ERROR'),
  '46733123451': fail('APPROVAL_REJECTED'),
  '46733123452': fail('EXPIRED'),
  '46733123453': { kind: 'PENDING_FOREVER' },
  '46733123454': { kind: 'SUCCEED', afterMs: 'delayed' },
  '46733123455': fail('PAYER_NOT_FOUND'),
  '46733123456': fail('PAYEE_NOT_ALLOWED_TO_RECEIVE'),
  '46733123457': fail('NOT_ALLOWED'),
  '46733123458': fail('NOT_ALLOWED_TARGET_ENVIRONMENT'),
  '46733123459': fail('INVALID_CALLBACK_URL_HOST'),
  '46733123460': fail('INVALID_CURRENCY'),
  '46733123461': fail('INTERNAL_PROCESSING_ERROR'),
  '46733123462': fail('SERVICE_UNAVAILABLE'),
  '46733123463': fail('COULD_NOT_PERFORM_TRANSACTION'),
  '46733123464': fail('TRANSFERTYPE_UNKNOWN'),
};

/** Transfer (payee) column: shifted from 455 on, as MTN publishes it. */
export const MTN_TRANSFER_SCENARIOS: Record<string, Scenario> = {
  '46733123450': fail('INTERNAL_PROCESSING_ERROR'),
  '46733123451': fail('APPROVAL_REJECTED'),
  '46733123452': fail('EXPIRED'),
  '46733123453': { kind: 'PENDING_FOREVER' },
  '46733123454': { kind: 'SUCCEED', afterMs: 'delayed' },
  '46733123455': fail('NOT_ENOUGH_FUNDS'),
  '46733123456': fail('PAYER_LIMIT_REACHED'),
  '46733123457': fail('PAYEE_NOT_FOUND'),
  '46733123458': fail('NOT_ALLOWED'),
  '46733123459': fail('NOT_ALLOWED_TARGET_ENVIRONMENT'),
  '46733123460': fail('INVALID_CALLBACK_URL_HOST'),
  '46733123461': fail('INVALID_CURRENCY'),
  '46733123462': fail('INTERNAL_PROCESSING_ERROR'),
  '46733123463': fail('SERVICE_UNAVAILABLE'),
  '46733123464': fail('TRANSFERTYPE_UNKNOWN'),
};

/** Account-holder `active` column (Sandbox Use Cases): HTTP status and body per number; others `{result:true}`. */
export const MTN_ACCOUNT_HOLDER_SCENARIOS: Record<string, { status: number; body: unknown }> = {
  '46733123450': { status: 404, body: { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' } },
  '46733123451': { status: 200, body: { result: false } },
  '46733123452': { status: 500, body: { code: 'NOT_ALLOWED', message: 'Authorization failed. Insufficient permissions.' } },
  '46733123453': { status: 500, body: { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT', message: 'Access to target environment is forbidden.' } },
  '46733123454': { status: 500, body: { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' } },
  '46733123455': { status: 503, body: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable.' } },
};

/** The MTN sandbox number a party id rehearses: itself, or `4673312345x`/`…46x` by its last three digits. */
export function mtnScenarioNumber(partyId: string): string {
  if (/^467331234[56]\d$/.test(partyId)) return partyId;
  const last3 = partyId.slice(-3);
  const n = Number(last3);
  return /^\d{3}$/.test(last3) && n >= 450 && n <= 464 ? `46733123${last3}` : partyId;
}

/** A request-to-pay or transfer as the simulator stores it. */
export interface MtnSimResource {
  product: Product;
  referenceId: string;
  body: Record<string, unknown>;
  status: 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  reason: string | null;
  financialTransactionId: string | null;
  callbackUrl: string | null;
}

/** A running simulator with its in-process controls. */
export interface MtnSimulator extends SimHandle<MtnSimulatorOptions> {
  resources: Map<string, MtnSimResource>;
  /** Expires every issued token now (also `POST /_simulator/expire-tokens`). */
  expireTokens(): void;
  /** Makes every pending `…198` decision now (also `POST /_simulator/decide-late`); returns how many. */
  decideLate(): number;
  /** The money MTN moved: one row per SUCCESSFUL request-to-pay or transfer, in creation order. */
  moved(): SimMovement[];
  /** The wallet's statement, from `moved()` plus planted discrepancies (`POST /_simulator/plant`). */
  statement: SimStatement;
  /** The partner portal's statement export of the statement's rows (also `GET /_simulator/statement.csv`). */
  statementCsv(): string;
}

const APIM_BAD_SUBSCRIPTION = {
  statusCode: 401,
  message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
};
const APIM_BAD_TOKEN = { statusCode: 401, message: 'Access denied due to invalid or expired access token.' };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** Characters MTN refuses in messages and notes (an apostrophe, among others, gives 400). */
const FORBIDDEN_NOTE_CHARS = /['"<>&\\]/;

/**
 * Starts the simulator. `overrides` are merged over `MTN_SIM_DEFAULTS`; `market` (a country of
 * `MTN_MARKETS`, e.g. `UG`) makes it one market's: it accepts that market's
 * `X-Target-Environment` only (and so that market's currency only), as each market's API does.
 */
export async function startMtnSimulator(overrides: Partial<MtnSimulatorOptions> & { market?: string } = {}): Promise<MtnSimulator> {
  const { market: country, ...rest } = overrides;
  const market = country === undefined ? null : MTN_MARKETS.find((m) => m.country === country);
  if (market === undefined) throw new Error(`unknown MTN market ${country}`);
  const options: MtnSimulatorOptions = {
    ...mergeSimOptions(MTN_SIM_DEFAULTS, { ...(market ? { targetEnvironments: [market.targetEnvironment] } : {}), ...rest }),
    balances: { ...MTN_SIM_DEFAULTS.balances, ...rest.balances },
  };
  const tokens = new Map<string, { product: Product; expiresAtMs: number; callbackHost: string | null | undefined }>();
  /** Sandbox API users provisioned through `/v1_0/apiuser`, by id. */
  const apiUsers = new Map<string, { product: Product; providerCallbackHost: string; apiKey: string | null }>();
  const resources = new Map<string, MtnSimResource>();
  const core = createSimCore(options);
  const { state, decisions, sender, later } = core;

  const statusBody = (r: MtnSimResource) => {
    const party = r.product === 'collection' ? { payer: r.body.payer } : { payee: r.body.payee };
    return {
      ...(r.financialTransactionId ? { financialTransactionId: r.financialTransactionId } : {}),
      externalId: r.body.externalId,
      amount: r.body.amount,
      currency: r.body.currency,
      ...party,
      payerMessage: r.body.payerMessage,
      payeeNote: r.body.payeeNote,
      status: r.status,
      ...(r.status === 'FAILED' && r.reason
        ? { reason: options.reasonShape === 'string' ? r.reason : { code: r.reason, message: r.reason.replace(/_/g, ' ').toLowerCase() } }
        : {}),
    };
  };

  const settle = (r: MtnSimResource, status: 'SUCCESSFUL' | 'FAILED', reason: string | null) => {
    if (r.status !== 'PENDING') return;
    if (status === 'SUCCESSFUL') {
      // The money moves on the product's own account; a transfer it cannot cover fails.
      const amount = baseUnitsOf(r);
      if (r.product === 'disbursement' && options.balances.disbursement < amount) {
        status = 'FAILED';
        reason = 'NOT_ENOUGH_FUNDS';
      } else {
        options.balances[r.product] += r.product === 'disbursement' ? -amount : amount;
      }
    }
    r.status = status;
    r.reason = reason;
    if (status === 'SUCCESSFUL') {
      r.financialTransactionId = String(1_000_000_000 + (randomBytes(4).readUInt32BE() % 1_000_000_000));
      statement.record(movementOf(r));
    }
    if (r.callbackUrl) sender.send(r.callbackUrl, options.callbackMethod, JSON.stringify(statusBody(r)));
  };

  const schedule = (r: MtnSimResource, scenario: Scenario) => {
    if (scenario.kind === 'PENDING_FOREVER') return;
    if (scenario.kind === 'FAIL') {
      later(decisionDelayOf(options), () => settle(r, 'FAILED', scenario.reason));
      return;
    }
    if (scenario.afterMs === 'late') return later(options.lateDecisionMs, () => settle(r, 'SUCCESSFUL', null), true);
    later(scenario.afterMs === 'delayed' ? options.delayedMs : decisionDelayOf(options), () => settle(r, 'SUCCESSFUL', null));
  };

  /** A resource's amount in base units (MTN's amount is a string of major units). */
  const baseUnitsOf = (r: MtnSimResource): number => {
    const currency = String(r.body.currency);
    return ZERO_DECIMAL_CURRENCIES.has(currency) ? Number(r.body.amount) : Math.round(Number(r.body.amount) * 100);
  };

  const handleBalance = (req: SimRequest, res: http.ServerResponse, product: Product) => {
    const denied = checkAuth(req.headers, product);
    if (denied) return sendJson(res, denied.status, denied.body);
    const currency = ENVIRONMENT_CURRENCY[req.headers['x-target-environment']!]!;
    const balance = options.balances[product];
    const available = ZERO_DECIMAL_CURRENCIES.has(currency) ? String(balance) : (balance / 100).toFixed(2);
    return sendJson(res, 200, { availableBalance: available, currency });
  };

  /** The movement of a SUCCESSFUL resource. */
  const movementOf = (r: MtnSimResource): SimMovement => {
    const party = (r.product === 'collection' ? r.body.payer : r.body.payee) as { partyId: string };
    return {
      reference: String(r.body.externalId),
      operatorReference: r.referenceId,
      direction: r.product === 'collection' ? 'PAY_IN' : 'PAY_OUT',
      amount: baseUnitsOf(r),
      currency: String(r.body.currency),
      msisdn: party.partyId,
      operatorTransactionId: r.financialTransactionId!,
    };
  };
  const moved = (): SimMovement[] => [...resources.values()].filter((r) => r.status === 'SUCCESSFUL').map(movementOf);

  const statement = createSimStatement({
    nowMs: () => options.nowMs(),
    newId: () => String(1_000_000_000 + (randomBytes(4).readUInt32BE() % 1_000_000_000)),
    requestOf: (reference) => {
      const r = [...resources.values()].find((x) => x.body.externalId === reference);
      if (!r) return null;
      const currency = String(r.body.currency);
      const party = (r.product === 'collection' ? r.body.payer : r.body.payee) as { partyId: string };
      return {
        direction: r.product === 'collection' ? 'PAY_IN' : 'PAY_OUT',
        amount: ZERO_DECIMAL_CURRENCIES.has(currency) ? Number(r.body.amount) : Math.round(Number(r.body.amount) * 100),
        currency,
        msisdn: party.partyId,
      };
    },
  });
  /** The export: MTN_STATEMENT_COLUMNS, amounts signed in major units, dates in UTC. */
  const statementCsv = () =>
    stringify(
      statement.rows().map((r) => {
        const major = ZERO_DECIMAL_CURRENCIES.has(r.currency) ? String(r.amount) : (r.amount / 100).toFixed(2);
        const type = r.kind === 'PAYMENT' ? (r.amount > 0 ? 'PAYMENT' : 'TRANSFER') : r.kind;
        const [from, to] = r.amount > 0 ? [r.msisdn, 'KOLO'] : ['KOLO', r.msisdn];
        return [r.id, r.reference ?? '', r.at.toISOString().slice(0, 19).replace('T', ' '), 'SUCCESSFUL', type, from, to, major, r.currency, r.reversalOf ?? ''];
      }),
      { header: true, columns: [...MTN_STATEMENT_COLUMNS] },
    );

  /** Subscription key, bearer token and target environment of a business call; null when accepted. */
  const checkAuth = (h: Record<string, string>, product: Product): { status: number; body: unknown } | null => {
    if (h['ocp-apim-subscription-key'] !== options[product].subscriptionKey) return { status: 401, body: APIM_BAD_SUBSCRIPTION };
    const m = /^Bearer (.+)$/.exec(h.authorization ?? '');
    const token = m ? tokens.get(m[1]!) : undefined;
    if (!token || token.product !== product || token.expiresAtMs <= Date.now()) return { status: 401, body: APIM_BAD_TOKEN };
    if (!options.targetEnvironments.includes(h['x-target-environment'] ?? '')) {
      return { status: 500, body: { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT', message: 'Access to target environment is forbidden.' } };
    }
    return null;
  };

  const handleToken = (req: SimRequest, res: http.ServerResponse, product: Product) => {
    const fault = faultHits(state, 'token');
    if (fault) return answerFault(res, fault, { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' });
    if (req.headers['ocp-apim-subscription-key'] !== options[product].subscriptionKey) return sendJson(res, 401, APIM_BAD_SUBSCRIPTION);
    if (req.body !== '') return sendJson(res, 400);
    const basic = parseBasic(req.headers.authorization);
    const provisioned = basic ? apiUsers.get(basic.user) : undefined;
    const isConfigured = basic?.user === options[product].apiUser && basic.password === options[product].apiKey;
    const isProvisioned = provisioned?.product === product && provisioned.apiKey !== null && provisioned.apiKey === basic?.password;
    if (!isConfigured && !isProvisioned) return sendJson(res, 401, { error: 'login_failed' });
    const token = `sim.${randomBytes(24).toString('base64url')}`;
    // A provisioned user's callbacks must go to its providerCallbackHost; the configured user's to options'.
    tokens.set(token, { product, expiresAtMs: Date.now() + options.tokenTtlSeconds * 1000, callbackHost: isProvisioned ? provisioned!.providerCallbackHost : undefined });
    return sendJson(res, 200, { access_token: token, token_type: 'access_token', expires_in: options.tokenTtlSeconds });
  };

  const handleCreate = (req: SimRequest, res: http.ServerResponse, product: Product) => {
    const h = req.headers;
    const denied = checkAuth(h, product);
    if (denied) return sendJson(res, denied.status, denied.body);
    const referenceId = h['x-reference-id'] ?? '';
    if (!UUID_V4.test(referenceId)) return sendJson(res, 400);
    const callbackUrl = h['x-callback-url'];
    if (callbackUrl !== undefined) {
      let host: string;
      try {
        host = new URL(callbackUrl).hostname;
      } catch {
        return sendJson(res, 400);
      }
      const bearer = /^Bearer (.+)$/.exec(h.authorization ?? '')?.[1];
      const expectedHost = (bearer ? tokens.get(bearer)?.callbackHost : undefined) ?? options.providerCallbackHost;
      if (expectedHost !== null && host !== expectedHost) {
        return sendJson(res, 500, { code: 'INVALID_CALLBACK_URL_HOST', message: 'Callback URL with different host than configured for API user.' });
      }
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400);
    }
    const partyField = product === 'collection' ? 'payer' : 'payee';
    const party = body[partyField] as { partyIdType?: unknown; partyId?: unknown } | undefined;
    const amount = body.amount;
    const notes = [body.payerMessage, body.payeeNote];
    const isValid =
      typeof amount === 'string' &&
      /^\d+(\.\d{1,2})?$/.test(amount) &&
      Number(amount) > 0 &&
      typeof body.currency === 'string' &&
      typeof party?.partyId === 'string' &&
      ['MSISDN', 'EMAIL', 'PARTY_CODE'].includes(String(party.partyIdType)) &&
      (party.partyIdType !== 'MSISDN' || /^\d{6,15}$/.test(party.partyId)) &&
      notes.every((n) => n === undefined || (typeof n === 'string' && n.length <= 160 && !FORBIDDEN_NOTE_CHARS.test(n)));
    if (!isValid) return sendJson(res, 400);
    if (body.currency !== ENVIRONMENT_CURRENCY[h['x-target-environment']!]) {
      return sendJson(res, 500, { code: 'INVALID_CURRENCY', message: 'Currency not supported.' });
    }
    const key = `${product}:${referenceId}`;
    if (resources.has(key)) {
      return sendJson(res, 409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' });
    }
    const fault = faultHits(state, 'initiate', options.faultRates);
    if (fault && !fault.landed) return answerFault(res, fault, { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' });
    const resource: MtnSimResource = {
      product,
      referenceId,
      body,
      status: 'PENDING',
      reason: null,
      financialTransactionId: null,
      callbackUrl: callbackUrl ?? null,
    };
    resources.set(key, resource);
    const table = product === 'collection' ? MTN_REQUEST_TO_PAY_SCENARIOS : MTN_TRANSFER_SCENARIOS;
    const partyId = party!.partyId as string;
    schedule(resource, partyId.endsWith(SIM_LATE_SUFFIX) ? { kind: 'SUCCEED', afterMs: 'late' } : (table[mtnScenarioNumber(partyId)] ?? { kind: 'SUCCEED' }));
    if (fault) return answerFault(res, fault, { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' });
    return sendJson(res, 202);
  };

  const handleStatus = (req: SimRequest, res: http.ServerResponse, product: Product, referenceId: string) => {
    const denied = checkAuth(req.headers, product);
    if (denied) return sendJson(res, denied.status, denied.body);
    const fault = faultHits(state, 'status');
    if (fault) return answerFault(res, fault, { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' });
    const r = resources.get(`${product}:${referenceId}`);
    if (!r) return sendJson(res, 404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    return sendJson(res, 200, statusBody(r));
  };

  const handleAccountHolder = (req: SimRequest, res: http.ServerResponse, product: Product, msisdn: string) => {
    const denied = checkAuth(req.headers, product);
    if (denied) return sendJson(res, denied.status, denied.body);
    const canned = MTN_ACCOUNT_HOLDER_SCENARIOS[mtnScenarioNumber(msisdn)];
    return canned ? sendJson(res, canned.status, canned.body) : sendJson(res, 200, { result: true });
  };

  /** Sandbox provisioning: the subscription key says which product the user is for. */
  const productOfKey = (key: string | undefined): Product | null =>
    key === options.collection.subscriptionKey ? 'collection' : key === options.disbursement.subscriptionKey ? 'disbursement' : null;

  const handleApiUser = (req: SimRequest, res: http.ServerResponse, userId: string | null, action: 'create' | 'read' | 'apikey') => {
    const product = productOfKey(req.headers['ocp-apim-subscription-key']);
    if (!product) return sendJson(res, 401, APIM_BAD_SUBSCRIPTION);
    if (action === 'create') {
      const id = req.headers['x-reference-id'] ?? '';
      let host: unknown;
      try {
        host = (JSON.parse(req.body) as { providerCallbackHost?: unknown }).providerCallbackHost;
      } catch {
        return sendJson(res, 400);
      }
      if (!UUID_V4.test(id) || typeof host !== 'string' || host === '') return sendJson(res, 400);
      if (apiUsers.has(id)) return sendJson(res, 409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' });
      apiUsers.set(id, { product, providerCallbackHost: host, apiKey: null });
      return sendJson(res, 201);
    }
    const user = apiUsers.get(userId!);
    if (!user) return sendJson(res, 404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    if (action === 'read') return sendJson(res, 200, { providerCallbackHost: user.providerCallbackHost, targetEnvironment: 'sandbox' });
    user.apiKey = randomBytes(16).toString('hex');
    return sendJson(res, 201, { apiKey: user.apiKey });
  };

  const expireTokens = () => {
    for (const t of tokens.values()) t.expiresAtMs = 0;
    return tokens.size;
  };

  const route = async (req: SimRequest, res: http.ServerResponse) => {
    const path = req.path;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/v1_0/apiuser') return handleApiUser(req, res, null, 'create');
    if (req.method === 'GET' && (m = /^\/v1_0\/apiuser\/([^/]+)$/.exec(path))) return handleApiUser(req, res, decodeURIComponent(m[1]!), 'read');
    if (req.method === 'POST' && (m = /^\/v1_0\/apiuser\/([^/]+)\/apikey$/.exec(path))) return handleApiUser(req, res, decodeURIComponent(m[1]!), 'apikey');
    if (req.method === 'POST' && (m = /^\/(collection|disbursement)\/token\/$/.exec(path))) {
      const product = m[1] as Product;
      await hold(latencyOf(options.latencyMs, 'token'), later);
      return handleToken(req, res, product);
    }
    if (req.method === 'POST' && (path === '/collection/v1_0/requesttopay' || path === '/disbursement/v1_0/transfer')) {
      await hold(latencyOf(options.latencyMs, 'initiate'), later);
      return handleCreate(req, res, path.startsWith('/collection/') ? 'collection' : 'disbursement');
    }
    if (req.method === 'GET' && (m = /^\/(?:collection\/v1_0\/requesttopay|disbursement\/v1_0\/transfer)\/([^/]+)$/.exec(path))) {
      const referenceId = decodeURIComponent(m[1]!);
      await hold(latencyOf(options.latencyMs, 'status'), later);
      return handleStatus(req, res, path.startsWith('/collection/') ? 'collection' : 'disbursement', referenceId);
    }
    if (req.method === 'GET' && (m = /^\/(collection|disbursement)\/v1_0\/account\/balance$/.exec(path))) {
      await hold(options.latencyMs.status, later);
      return handleBalance(req, res, m[1] as Product);
    }
    if (req.method === 'GET' && (m = /^\/(collection|disbursement)\/v1_0\/accountholder\/msisdn\/([^/]+)\/active$/.exec(path))) {
      const [product, msisdn] = [m[1] as Product, decodeURIComponent(m[2]!)];
      await hold(latencyOf(options.latencyMs, 'check'), later);
      return handleAccountHolder(req, res, product, msisdn);
    }
    return sendJson(res, 404, { statusCode: 404, message: 'Resource not found' });
  };

  return core.serve(
    route,
    {
      settings: {
        decisionDelayMs: 'ms',
        delayedMs: 'ms',
        lateDecisionMs: 'ms',
        callbackMethod: ['PUT', 'POST'],
        reasonShape: ['string', 'object'],
        providerCallbackHost: 'host',
        ...CALLBACK_SETTING_RULES,
        ...latencyRules(['token', 'check', 'initiate', 'status']),
      },
      visibleSettings: () => {
        const { collection: _c, disbursement: _d, ...visible } = options;
        return visible;
      },
      decideLate: decisions.decideLate,
      expireTokens,
      moved,
      transactions: () => [...resources.values()].map((r) => ({ product: r.product, referenceId: r.referenceId, ...statusBody(r) })),
      statement,
      statementCsv,
    },
    { resources, expireTokens, decideLate: decisions.decideLate, moved, statement, statementCsv },
  );
}

/** A fresh UUIDv4, for tests and examples that talk to the simulator directly. */
export const newReferenceId = (): string => randomUUID();
