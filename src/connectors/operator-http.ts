/**
 * The one way connectors speak HTTP: the injected transport (`FetchFn`; `operatorTransport` in
 * production), a whole-request timeout (`AbortSignal.timeout`) joined to the caller's signal
 * (Kolo giving up on the operation), the body read as text and parsed as JSON when it is JSON. A
 * timeout, an abort on the way, a reset or a refused connection is `UNREACHABLE` (ambiguous),
 * never an exception; a request whose caller had already given up is never sent (`NOT_SENT`).
 * Error strings name the method, path and status only: never a header, so never a secret.
 */
import { Agent, request as undiciRequest } from 'undici';

/** An operator's answer as the transport hands it over: status and the whole body as text. */
export interface TransportResponse {
  status: number;
  text: string;
}

/**
 * How connectors send one request: resolves with the answer (any status), rejects on a network
 * error, a reset or when `signal` aborts. Redirects are not followed. `operatorTransport()` in
 * production; tests may wrap it.
 */
export type FetchFn = (request: OperatorRequest, signal: AbortSignal) => Promise<TransportResponse>;

/**
 * The production transport: undici's `request` over one keep-alive connection pool per
 * operator origin (undici's `Agent`), of at most `connectionsPerOrigin` connections (unbounded
 * when absent; a request beyond them waits for a free one, its timeout running), without the
 * WHATWG `fetch` layer (streams, Request and Response objects) that a server-to-server JSON call
 * does not need. Redirects are not followed.
 */
export function operatorTransport(options: { connectionsPerOrigin?: number } = {}): FetchFn {
  const dispatcher = new Agent({ connections: options.connectionsPerOrigin ?? null });
  return async (request, signal) => {
    const answer = await undiciRequest(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal,
      dispatcher,
    });
    return { status: answer.statusCode, text: await answer.body.text() };
  };
}

/** An HTTP answer: status, raw text and parsed JSON (undefined when not JSON). */
export interface OperatorResponse {
  kind: 'RESPONSE';
  status: number;
  text: string;
  json: unknown;
}

/** No answer: timeout, reset, DNS or connection failure. */
export interface OperatorUnreachable {
  kind: 'UNREACHABLE';
  error: string;
}

/**
 * The request never left Kolo: the caller's signal had aborted before it could be sent (or, in a
 * connector's own plumbing, what it needed first, such as a token, could not be had).
 */
export interface OperatorNotSent {
  kind: 'NOT_SENT';
  error: string;
}

/** Request description for `callOperator`. */
export interface OperatorRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  /** Raw body (already encoded), or undefined for none. */
  body?: string;
}

/**
 * Sends `request` with a timeout of `timeoutMs`; never throws. With `signal`: nothing is sent
 * once it has aborted (NOT_SENT), and a request on its way when it aborts is dropped at once
 * (UNREACHABLE: it may have arrived). Without: the timeout alone (token fetches, shared by
 * callers that each stop waiting on their own signal, `untilAborted`).
 */
export async function callOperator(fetchFn: FetchFn, request: OperatorRequest, timeoutMs: number): Promise<OperatorResponse | OperatorUnreachable>;
export async function callOperator(
  fetchFn: FetchFn,
  request: OperatorRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<OperatorResponse | OperatorUnreachable | OperatorNotSent>;
export async function callOperator(
  fetchFn: FetchFn,
  request: OperatorRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<OperatorResponse | OperatorUnreachable | OperatorNotSent> {
  const label = `${request.method} ${new URL(request.url).pathname}`;
  if (signal?.aborted) return { kind: 'NOT_SENT', error: `${label}: abandoned by Kolo before it was sent` };
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetchFn(request, signal ? AbortSignal.any([signal, timeout]) : timeout);
    const text = response.text;
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { kind: 'RESPONSE', status: response.status, text, json };
  } catch (error) {
    const e = error as { message?: string; code?: string; cause?: { code?: string } };
    const why = signal?.aborted
      ? 'abandoned by Kolo on the way'
      : timeout.aborted
        ? `timeout after ${timeoutMs} ms`
        : (e.code ?? e.cause?.code ?? e.message ?? 'network error');
    return { kind: 'UNREACHABLE', error: `${label}: ${why}` };
  }
}

/**
 * Waits for `promise` (a step that sends nothing to the operator: a token shared with other
 * callers, shared state) only until `signal` aborts: then answers NOT_SENT at once, naming
 * `what`, and leaves `promise` to finish for whoever else waits on it.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T | OperatorNotSent> {
  const stopped = (): OperatorNotSent => ({ kind: 'NOT_SENT', error: `${what}: abandoned by Kolo` });
  if (signal.aborted) return Promise.resolve(stopped());
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** `"abcdef123456"` → `"abc…456"`: enough to recognise a credential in `connectors check`, not to use it. */
export function maskSecret(secret: string): string {
  return secret.length <= 8 ? '***' : `${secret.slice(0, 3)}…${secret.slice(-3)}`;
}

/** `Basic base64(user:password)` (RFC 7617). */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** A string field of a JSON object, or undefined. */
export function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = (value as Record<string, unknown>)[field];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/**
 * A cached bearer token per key (product), refreshed `marginMs` before its expiry, with one
 * fetch in flight per key (concurrent callers share it). Times come from `now()` (the injected clock).
 */
export interface TokenCache<E> {
  /** A valid token, or the fetch error. `force` drops the cached one first (after a 401). */
  get(key: string, force?: boolean): Promise<{ token: string } | E>;
}

/** Creates a token cache over `fetchToken` (which returns the token and its lifetime in seconds). */
export function createTokenCache<E>(
  now: () => number,
  marginMs: number,
  fetchToken: (key: string) => Promise<{ token: string; expiresInSeconds: number } | E>,
): TokenCache<E> {
  const cached = new Map<string, { token: string; expiresAtMs: number }>();
  const inFlight = new Map<string, Promise<{ token: string } | E>>();
  return {
    async get(key, force = false) {
      if (force) cached.delete(key);
      const hit = cached.get(key);
      if (hit && hit.expiresAtMs - marginMs > now()) return { token: hit.token };
      const running = inFlight.get(key);
      if (running) return running;
      const fetching = (async () => {
        try {
          const result = await fetchToken(key);
          if (typeof result === 'object' && result !== null && 'token' in result && 'expiresInSeconds' in result) {
            const r = result as { token: string; expiresInSeconds: number };
            cached.set(key, { token: r.token, expiresAtMs: now() + r.expiresInSeconds * 1000 });
            return { token: r.token };
          }
          return result as E;
        } finally {
          inFlight.delete(key);
        }
      })();
      inFlight.set(key, fetching);
      return fetching;
    },
  };
}
