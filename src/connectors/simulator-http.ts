/**
 * What the operator simulators share: a bounded request-body reader, JSON answers, a request log,
 * the fault modes (answer 5xx but process; hold past the client's timeout, then process; pay
 * after the rail's deadline; drop the callback; send it twice), latencies (a request processed
 * only after a wait, whether or not its client is still there), callback delivery with the
 * operator's method and body, and the list of money movements a simulator made; and, around a
 * simulator's own routes, what every simulator does the same way (`createSimCore`): its options'
 * common defaults, the request log, the `/_simulator/…` control routes, the listening server and
 * the common part of its handle. Simulators are test and staging tooling: only `cli/` and tests
 * import them, never production code.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, type Dispatcher } from 'undici';
import type { SimStatement } from './sim-statement.ts';

/** One request the simulator received (headers lower-cased, as Node gives them). */
export interface SimRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When the request arrived, `absoluteNowMs()` (set by `timeRequest`). */
  receivedAtMs?: number;
  /** When its answer was sent or its socket closed unanswered, `absoluteNowMs()` (set by `timeRequest`). */
  answeredAtMs?: number;
  /** The JSON body the simulator answered, when it answered one (set by `timeRequest`). */
  answer?: string;
  /** The HTTP status it answered; unset when the socket closed unanswered (set by `timeRequest`). */
  answerStatus?: number;
}

/**
 * The fault switch. `mode`: `timeout` holds the request without answering (the caller's timeout
 * fires), `error500` answers 500. `on`: which calls it hits (`prepare`: Orange's `init`;
 * `initiate`: the call that moves money, MTN `requesttopay`/`transfer`, Orange `pay`, Wave's
 * session or payout creation). `landed`: whether the operator processed the request before
 * failing to answer (the ambiguous cases: "5xx but processed", "held past the timeout, then
 * processed") or not at all. `remaining`: how many calls it hits before switching itself off
 * (undefined: until cleared).
 */
export interface SimFault {
  mode: 'timeout' | 'error500';
  on: 'prepare' | 'initiate' | 'status' | 'token' | 'all';
  landed: boolean;
  remaining?: number;
}

/**
 * How long a simulator waits before handling each kind of request, milliseconds (0: at once):
 * `token` (token endpoints), `check` (MTN's account-holder check), `prepare` (Orange's `init`),
 * `initiate` (the call that moves money), `status` (status queries and searches). After the wait
 * the request is handled as usual — processed, and answered if its client is still there: an
 * operator slow to process what it has received. A simulator ignores the kinds it has not.
 */
export interface SimLatency {
  token: number;
  check: number;
  prepare: number;
  initiate: number;
  status: number;
  /**
   * When set, every kind waits a log-normal random time instead (milliseconds, median and 99th
   * percentile as given, the fixed values above ignored): an operator's latency under load.
   */
  distribution?: SimLatencyDistribution | null;
}

/** A log-normal latency: its median and 99th percentile, milliseconds (`p99Ms` ≥ `medianMs` > 0). */
export interface SimLatencyDistribution {
  medianMs: number;
  p99Ms: number;
}

/** z of the standard normal's 99th percentile. */
const Z_99 = 2.3263478740408408;

/**
 * One draw of `distribution` (log-normal: ln X ~ N(ln median, σ) with σ = ln(p99 / median) / z₀.₉₉),
 * milliseconds, rounded, capped at 10 × p99 so one draw cannot hold a request for minutes.
 */
export function sampleLatencyMs(distribution: SimLatencyDistribution, random: () => number = Math.random): number {
  const sigma = Math.log(distribution.p99Ms / distribution.medianMs) / Z_99;
  // Box–Muller: one standard normal draw from two uniforms in (0, 1].
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.min(Math.round(distribution.medianMs * Math.exp(sigma * z)), 10 * distribution.p99Ms);
}

/** The wait before handling a request of `kind`: a draw of `latency.distribution` when set, else the fixed value. */
export function latencyOf(latency: SimLatency, kind: keyof Omit<SimLatency, 'distribution'>): number {
  return latency.distribution ? sampleLatencyMs(latency.distribution) : latency[kind];
}

/** No latency: every request handled at once. */
export const NO_LATENCY: Readonly<SimLatency> = { token: 0, check: 0, prepare: 0, initiate: 0, status: 0 };

/** The `POST /_simulator/settings` rules of the latencies a simulator has. */
export function latencyRules(kinds: readonly (keyof SimLatency)[]): Record<string, SettingRule> {
  return Object.fromEntries(kinds.filter((kind) => kind !== 'distribution').map((kind) => [`latencyMs.${kind}`, 'ms' as const]));
}

/**
 * Resolves after `ms` (at once for 0), on the simulator's `later` timers, so that closing the
 * simulator cancels the wait (the request is then never handled).
 */
export function hold(ms: number, later: (ms: number, fn: () => void) => void): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => later(ms, resolve));
}

/**
 * How callbacks are delivered: after `delayMs`, once (no retry: MTN's callback pages say so, and
 * a failed delivery is not repeated), twice (`duplicate`) or not at all (`drop`).
 */
export interface SimCallbackOptions {
  delayMs: number;
  duplicate: boolean;
  drop: boolean;
  /** Share (0–1) of callbacks dropped at random, on top of `drop`; unset: none. */
  dropRate?: number;
  /** Share (0–1) of callbacks sent twice at random, on top of `duplicate`; unset: none. */
  duplicateRate?: number;
}

/** One callback the simulator sent (or tried to). */
export interface SimCallback {
  url: string;
  method: string;
  body: string;
  status: number | null;
}

/**
 * Last three digits of a customer number whose operator decides late: the money moves (success)
 * only after the simulator's `lateDecisionMs`, or when `decideLate()` (`POST
 * /_simulator/decide-late`) is called — after Kolo's rail deadline in the tests. The sandbox
 * rail's "late success" number ends the same way.
 */
export const SIM_LATE_SUFFIX = '198';

/** Default `lateDecisionMs`: longer than every rail deadline, so only `decideLate()` ends it in a test. */
export const SIM_LATE_DECISION_MS = 3_600_000;

/**
 * One money movement a simulator made (a successful pay-in or pay-out), for reconciliation
 * against Kolo's ledger. `reference`: our correlation key as the operator received it (MTN
 * `externalId`, Orange `orderId`, Wave `client_reference`); `operatorReference`: the operator's id
 * of the request (MTN X-Reference-Id, Orange payToken, Wave session or payout id); `amount` in the
 * currency's base unit; `msisdn` as the operator names the customer, digits only.
 */
export interface SimMovement {
  reference: string;
  operatorReference: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  amount: number;
  currency: string;
  msisdn: string;
  operatorTransactionId: string;
}

/**
 * The payer's decision delay of one request: `decisionDelayMs`, or a uniform draw between it and
 * `decisionDelayMaxMs` when that is set and larger (payers who take 1 to 4 s), milliseconds.
 */
export function decisionDelayOf(options: { decisionDelayMs: number; decisionDelayMaxMs?: number | undefined }): number {
  const max = options.decisionDelayMaxMs;
  if (max === undefined || max <= options.decisionDelayMs) return options.decisionDelayMs;
  return options.decisionDelayMs + Math.round(Math.random() * (max - options.decisionDelayMs));
}

/**
 * Timers of a simulator's decisions. `later(ms, fn, isLate)`; `decideLate()` runs every pending
 * late decision now and returns how many ran; `stop()` cancels all (on close).
 */
export function createDecisionTimers() {
  const timers = new Map<NodeJS.Timeout, { fn: () => void; isLate: boolean }>();
  return {
    later(ms: number, fn: () => void, isLate = false) {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.set(t, { fn, isLate });
    },
    decideLate(): number {
      const late = [...timers].filter(([, v]) => v.isLate);
      for (const [t, v] of late) {
        clearTimeout(t);
        timers.delete(t);
        v.fn();
      }
      return late.length;
    },
    stop() {
      for (const t of timers.keys()) clearTimeout(t);
      timers.clear();
    },
  };
}

/** Largest request body a simulator reads (the operators' payloads are small). */
const MAX_BODY_BYTES = 64 * 1024;

/** Reads the whole body (at most 64 KiB) as UTF-8. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Now, milliseconds since the Unix epoch at `performance.now()`'s resolution: one clock for every
 * thread of a process (each thread's `performance.now()` counts from its own start), so a
 * simulator running in a worker stamps times its client can compare with its own.
 */
export function absoluteNowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The JSON text each response was answered with (read by `timeRequest`). */
const answers = new WeakMap<http.ServerResponse, string>();

/**
 * Stamps `req` with its arrival time now and, when `res` closes, the time it was answered (or
 * its socket closed unanswered) and the JSON it answered: what a benchmark needs to tell the
 * operator's share of a call from its client's.
 */
export function timeRequest(req: SimRequest, res: http.ServerResponse): void {
  req.receivedAtMs = absoluteNowMs();
  res.once('close', () => {
    req.answeredAtMs = absoluteNowMs();
    if (res.headersSent) req.answerStatus = res.statusCode;
    const answer = answers.get(res);
    if (answer !== undefined) req.answer = answer;
  });
}

/** Sends `body` as JSON (or an empty body when undefined) with `status`. */
export function sendJson(res: http.ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status, { 'content-length': '0' });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  answers.set(res, text);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * Reads a fault-switch body (`POST /_simulator/fault`): `{}` or `null` clears it; otherwise
 * `{mode, on?, landed?, remaining?}` (defaults: every call, landed). Returns 'INVALID' on bad input.
 */
export function parseFault(body: string): SimFault | null | 'INVALID' {
  let value: unknown;
  try {
    value = body === '' ? null : JSON.parse(body);
  } catch {
    return 'INVALID';
  }
  if (value === null || (typeof value === 'object' && Object.keys(value as object).length === 0)) return null;
  const v = value as Partial<Record<keyof SimFault, unknown>>;
  const on = v.on ?? 'all';
  const landed = v.landed ?? true;
  if (v.mode !== 'timeout' && v.mode !== 'error500') return 'INVALID';
  if (!['prepare', 'initiate', 'status', 'token', 'all'].includes(String(on)) || typeof landed !== 'boolean') return 'INVALID';
  if (v.remaining !== undefined && !(Number.isInteger(v.remaining) && (v.remaining as number) > 0)) return 'INVALID';
  return { mode: v.mode, on: on as SimFault['on'], landed, ...(v.remaining !== undefined ? { remaining: v.remaining as number } : {}) };
}

/**
 * Random faults of the calls that move money (`initiate`), on top of the fault switch: the share
 * (0–1) answered 500 after processing (`error500`) and held past the client's timeout after
 * processing (`timeout`). Both land: the money moves, the client is left unsure.
 */
export interface SimFaultRates {
  error500: number;
  timeout: number;
}

/**
 * The fault that applies to a call of kind `on` (consuming one hit of the switch), or null; with
 * `rates` and no switched fault, an `initiate` call draws one of the random faults.
 */
export function faultHits(state: { fault: SimFault | null }, on: SimFault['on'], rates?: SimFaultRates | null): SimFault | null {
  const fault = state.fault;
  if (!fault && rates && on === 'initiate') {
    const draw = Math.random();
    if (draw < rates.error500) return { mode: 'error500', on, landed: true };
    if (draw < rates.error500 + rates.timeout) return { mode: 'timeout', on, landed: true };
    return null;
  }
  if (!fault || (fault.on !== 'all' && fault.on !== on)) return null;
  if (fault.remaining !== undefined) {
    fault.remaining -= 1;
    if (fault.remaining <= 0) state.fault = null;
  }
  return fault;
}

/** Applies a fault to `res`: 500 with `body500`, or no answer at all (the socket is left open). */
export function answerFault(res: http.ServerResponse, fault: SimFault, body500: unknown): void {
  if (fault.mode === 'error500') sendJson(res, 500, body500);
  // timeout: say nothing; the caller gives up, and `close()` destroys the socket.
}

/** Delivers callbacks in the background, tracking timers so `stop()` can cancel them. */
export function createCallbackSender(options: () => SimCallbackOptions, sent: SimCallback[]) {
  const timers = new Set<NodeJS.Timeout>();
  const deliver = async (url: string, method: string, body: string, headers: Record<string, string>) => {
    const record: SimCallback = { url, method, body, status: null };
    sent.push(record);
    try {
      // MTN: "the callback times out after 2 s".
      // undici's request, as the connectors send (docs/performance.md, "Operator calls without fetch").
      const response = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers: { 'content-type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(2000),
      });
      record.status = response.statusCode;
      await response.body.dump();
    } catch {
      record.status = null;
    }
  };
  return {
    /** Schedules the callback(s) for `url` per the current options; `headers` (a signature) are added as given. */
    send(url: string, method: string, body: string, headers: Record<string, string> = {}) {
      const o = options();
      if (o.drop || (o.dropRate !== undefined && Math.random() < o.dropRate)) return;
      const times = o.duplicate || (o.duplicateRate !== undefined && Math.random() < o.duplicateRate) ? 2 : 1;
      for (let i = 0; i < times; i++) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          void deliver(url, method, body, headers);
        }, o.delayMs + i * 10);
        timers.add(timer);
      }
    },
    stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

/** A listening simulator server. */
export interface SimServer {
  url: string;
  port: number;
  /** TCP connections accepted since the start. */
  connectionsOpened(): number;
  close(): Promise<void>;
}

/** Listens `handler` on `host:port` (port 0: any free port). */
export async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  host: string,
  port: number,
  onClose: () => void,
): Promise<SimServer> {
  const server = http.createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: 'simulator error' });
    });
  });
  let connectionsOpened = 0;
  server.on('connection', () => {
    connectionsOpened += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    connectionsOpened: () => connectionsOpened,
    close: () =>
      new Promise<void>((resolve) => {
        onClose();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Lower-cased single-value headers. */
export function headersOf(req: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
  return headers;
}

/** `body` parsed as JSON when it is an object (not an array), else null (bad JSON included). */
export function parseJsonObject(body: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `s` with `& < > " '` written as character references, for the simulators' HTML pages. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The `user:password` of a Basic `Authorization` header, or null. */
export function parseBasic(header: string | undefined): { user: string; password: string } | null {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? null : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/** A settable option: its JSON type and bounds, for `POST /_simulator/settings`. */
export type SettingRule = 'ms' | 'boolean' | 'host' | readonly string[];

/**
 * Applies `body` (JSON) to `target` for the keys `rules` allows (`callbacks.*`, `latencyMs.*`:
 * objects nested one level); returns the list of problems (nothing is applied when there is one).
 */
export function applySettings(target: Record<string, unknown>, body: string, rules: Record<string, SettingRule>): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body === '' ? '{}' : body);
  } catch {
    return ['body must be JSON'];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['body must be a JSON object'];
  const flat: [string, unknown][] = [];
  const nested = new Set(Object.keys(rules).filter((k) => k.includes('.')).map((k) => k.split('.')[0]!));
  for (const [k, v] of Object.entries(value)) {
    if (nested.has(k) && typeof v === 'object' && v !== null) for (const [k2, v2] of Object.entries(v)) flat.push([`${k}.${k2}`, v2]);
    else flat.push([k, v]);
  }
  const problems: string[] = [];
  for (const [k, v] of flat) {
    const rule = rules[k];
    const ok =
      rule === 'ms'
        ? Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 3_600_000
        : rule === 'boolean'
          ? typeof v === 'boolean'
          : rule === 'host'
            ? v === null || (typeof v === 'string' && /^[a-z0-9.-]{1,253}$/i.test(v))
            : Array.isArray(rule) && rule.includes(v as string);
    if (!rule) problems.push(`unknown setting ${k}`);
    else if (!ok) problems.push(`bad value for ${k}`);
  }
  if (problems.length > 0) return problems;
  for (const [k, v] of flat) {
    const dot = k.indexOf('.');
    if (dot > 0) (target[k.slice(0, dot)] as Record<string, unknown>)[k.slice(dot + 1)] = v;
    else target[k] = v;
  }
  return [];
}

/** `POST /_simulator/settings` rules of the callback delivery every simulator has (`SimCallbackOptions`). */
export const CALLBACK_SETTING_RULES: Readonly<Record<string, SettingRule>> = {
  'callbacks.delayMs': 'ms',
  'callbacks.duplicate': 'boolean',
  'callbacks.drop': 'boolean',
};

/** Where a simulator listens: `host`, and `port` (0: any free port). */
export interface SimListenOptions {
  host: string;
  port: number;
}

/**
 * Options most simulators share: where they listen, the payer's decision delay (milliseconds),
 * callback delivery, latencies, and the clock of their statements and signatures (milliseconds).
 */
export interface SimCommonOptions extends SimListenOptions {
  /** Time from a request's creation to the payer's decision, milliseconds. */
  decisionDelayMs: number;
  callbacks: SimCallbackOptions;
  /** Waits before handling each kind of request (a simulator names the kinds it has). */
  latencyMs: SimLatency;
  /** The simulator's clock for statement rows and signature timestamps, milliseconds (tests align it with Kolo's). */
  nowMs: () => number;
}

/**
 * The defaults of `SimCommonOptions`: loopback, any free port, the payer decides after 2 s,
 * callbacks delivered once at once, no latency, the wall clock. Spread first into a simulator's
 * defaults; `mergeSimOptions` copies the nested objects, so no run-time setting reaches them.
 */
export const SIM_COMMON_DEFAULTS: Readonly<SimCommonOptions> = {
  host: '127.0.0.1',
  port: 0,
  decisionDelayMs: 2000,
  // Frozen: simulators' defaults share it, so a stray write must fail rather than reach them all.
  callbacks: Object.freeze({ delayMs: 0, duplicate: false, drop: false }),
  latencyMs: NO_LATENCY,
  nowMs: () => Date.now(),
};

/**
 * A simulator's options: `overrides` over `defaults`, with `callbacks` (and `latencyMs`, when the
 * simulator has latencies) merged key by key into new objects, so that `POST /_simulator/settings`
 * changes this simulator's options only, never the defaults nor the caller's objects.
 */
export function mergeSimOptions<O extends { callbacks: SimCallbackOptions; latencyMs?: SimLatency }>(defaults: O, overrides: Partial<O>): O {
  return {
    ...defaults,
    ...overrides,
    callbacks: { ...defaults.callbacks, ...overrides.callbacks },
    ...(defaults.latencyMs ? { latencyMs: { ...defaults.latencyMs, ...overrides.latencyMs } } : {}),
  };
}

/**
 * The `/_simulator/…` control routes a simulator serves besides `POST fault` (the fault switch,
 * `parseFault`'s body; answers `{fault}`) and `POST settings`. `settings`: what `POST settings`
 * may change (`applySettings` rules; spread `CALLBACK_SETTING_RULES` and `latencyRules` in), answered
 * `{errors}` with 400, or with 200 and `visibleSettings()` — by default the settable options as
 * they now are, in the rules' order. Each optional member adds its route: `decideLate` (`POST
 * decide-late` → `{decided}`), `expireTokens` (`POST expire-tokens`: expires every token issued,
 * returns how many there are → `{expired}`), `moved` (`GET moved`), `transactions` (`GET
 * transactions`), `statement` (`POST plant`), `statementCsv` (`GET
 * statement.csv`, `text/csv`).
 */
export interface SimControls {
  settings: Record<string, SettingRule>;
  visibleSettings?: () => unknown;
  decideLate?: () => number;
  expireTokens?: () => number;
  moved?: () => unknown;
  transactions?: () => unknown;
  statement?: Pick<SimStatement, 'plantFromBody'>;
  statementCsv?: () => string;
}

/** A simulator's own routes: answers one logged request (`url`: its URL, for the query). */
export type SimRoute = (req: SimRequest, res: http.ServerResponse, url: URL) => void | Promise<void>;

/** What every simulator's handle has. */
export interface SimHandle<O> {
  url: string;
  port: number;
  /** Its settings, mutable at run time (also `POST /_simulator/settings`). */
  options: O;
  /** Every request received, in order, each timed (`timeRequest`). */
  requests: SimRequest[];
  /** Every callback sent or tried, in order. */
  callbacks: SimCallback[];
  /** The fault switch (also `POST /_simulator/fault`). */
  fault: SimFault | null;
  /** TCP connections the simulator accepted since it started (connection reuse by its clients). */
  connectionsOpened(): number;
  /** Stops its timers and callbacks, drops its connections and stops listening. */
  close(): Promise<void>;
}

/** What a simulator builds on (see `createSimCore`). */
export interface SimCore<O> {
  requests: SimRequest[];
  callbacks: SimCallback[];
  /** The fault switch, as `faultHits` reads it. */
  state: { fault: SimFault | null };
  decisions: ReturnType<typeof createDecisionTimers>;
  /** `decisions.later`: what `hold` and the decisions wait on (cancelled by `close()`). */
  later: (ms: number, fn: () => void, isLate?: boolean) => void;
  /** Callbacks per `options.callbacks` (none configured: once, at once), recorded in `callbacks`. */
  sender: ReturnType<typeof createCallbackSender>;
  /**
   * Listens on `options.host:port`. Each request is read (`readBody`), logged in `requests` and
   * timed; then a control route answers it if one matches, else `route` does. Resolves to the common handle with `extras` added (the simulator's own
   * members).
   */
  serve<X extends object>(route: SimRoute, controls: SimControls | null, extras: X): Promise<SimHandle<O> & X>;
}

/**
 * The shared part of a simulator over `options` (kept, not copied: the simulator and its handle
 * read and change the same object): request log, fault switch, decision timers, callback sender
 * and server.
 */
export function createSimCore<O extends SimListenOptions & { callbacks?: SimCallbackOptions }>(options: O): SimCore<O> {
  const requests: SimRequest[] = [];
  const callbacks: SimCallback[] = [];
  const state: { fault: SimFault | null } = { fault: null };
  const decisions = createDecisionTimers();
  const sender = createCallbackSender(() => options.callbacks ?? SIM_COMMON_DEFAULTS.callbacks, callbacks);

  const serve = async <X extends object>(route: SimRoute, controls: SimControls | null, extras: X): Promise<SimHandle<O> & X> => {
    const controlRoutes = controls ? controlRoutesOf(controls, options, state) : new Map<string, ControlRoute>();
    const handler = async (incoming: http.IncomingMessage, res: http.ServerResponse) => {
      const body = await readBody(incoming);
      const url = new URL(incoming.url ?? '/', 'http://simulator');
      const req: SimRequest = { method: incoming.method ?? '', path: url.pathname, headers: headersOf(incoming), body };
      requests.push(req);
      timeRequest(req, res);
      const control = controlRoutes.get(`${req.method} ${req.path}`);
      if (control) return control(req, res);
      await route(req, res, url);
    };
    const server = await listen(handler, options.host, options.port, () => {
      decisions.stop();
      sender.stop();
    });
    const handle: SimHandle<O> = {
      url: server.url,
      port: server.port,
      options,
      requests,
      callbacks,
      get fault() {
        return state.fault;
      },
      set fault(value) {
        state.fault = value;
      },
      connectionsOpened: server.connectionsOpened,
      close: server.close,
    };
    // Object.assign keeps the handle's fault accessor (a spread would copy its value once).
    return Object.assign(handle, extras);
  };

  return { requests, callbacks, state, decisions, later: decisions.later, sender, serve };
}

type ControlRoute = (req: SimRequest, res: http.ServerResponse) => void;

/** The control routes of `controls`, by `"<method> <path>"`. */
function controlRoutesOf(controls: SimControls, options: object, state: { fault: SimFault | null }): Map<string, ControlRoute> {
  const target = options as Record<string, unknown>;
  const settable = [...new Set(Object.keys(controls.settings).map((k) => k.split('.')[0]!))];
  const visible = controls.visibleSettings ?? (() => Object.fromEntries(settable.map((k) => [k, target[k]])));
  const routes = new Map<string, ControlRoute>([
    [
      'POST /_simulator/fault',
      (req, res) => {
        const parsed = parseFault(req.body);
        if (parsed === 'INVALID') return sendJson(res, 400, { error: 'expected {mode: "timeout"|"error500", on?, landed?, remaining?} or {}' });
        state.fault = parsed;
        return sendJson(res, 200, { fault: state.fault });
      },
    ],
    [
      'POST /_simulator/settings',
      (req, res) => {
        const problems = applySettings(target, req.body, controls.settings);
        if (problems.length > 0) return sendJson(res, 400, { errors: problems });
        return sendJson(res, 200, visible());
      },
    ],
  ]);
  const { decideLate, expireTokens, moved, transactions, statement, statementCsv } = controls;
  if (decideLate) routes.set('POST /_simulator/decide-late', (_req, res) => sendJson(res, 200, { decided: decideLate() }));
  if (expireTokens) routes.set('POST /_simulator/expire-tokens', (_req, res) => sendJson(res, 200, { expired: expireTokens() }));
  if (moved) routes.set('GET /_simulator/moved', (_req, res) => sendJson(res, 200, moved()));
  if (transactions) routes.set('GET /_simulator/transactions', (_req, res) => sendJson(res, 200, transactions()));
  if (statement) {
    routes.set('POST /_simulator/plant', (req, res) => {
      const planted = statement.plantFromBody(req.body);
      return 'error' in planted ? sendJson(res, 400, planted) : sendJson(res, 200, planted);
    });
  }
  if (statementCsv) {
    routes.set('GET /_simulator/statement.csv', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end(statementCsv());
    });
  }
  return routes;
}
