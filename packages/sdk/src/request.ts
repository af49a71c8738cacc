/**
 * One API call: send, time out, retry when `shouldRetry` says so, unwrap Kolo's envelope
 * `{success, code, message, data, timestamp}` into `data` or a typed error.
 */
import { apiErrorFor, KOLO_ERROR_CODES, KoloApiError, KoloConnectionError, KoloError, type KoloErrorCode } from './errors.ts';
import { MAX_RETRIES_LIMIT, parseRetryAfter, retryDelayMs, shouldRetry, type AttemptOutcome, type BackoffOptions } from './retry.ts';
import { SDK_VERSION } from './version.ts';

/** Settings shared by every call of one client. */
export interface Transport {
  apiKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  backoff: BackoffOptions;
  fetch: typeof fetch;
}

/** What a call sends. */
export interface CallSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent as `Idempotency-Key` on every attempt. */
  idempotencyKey?: string;
  /** True when sending it twice cannot do two things (a read, or a create with an idempotency key). */
  isIdempotent: boolean;
}

/** Per-call overrides. */
export interface RequestOptions {
  /** Idempotency key of a create (1 to 100 characters); by default a new UUID v4 per call. */
  idempotencyKey?: string;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

type Attempt<T> = { ok: true; data: T } | { ok: false; outcome: AttemptOutcome; error: Error };

/**
 * Sends `spec` and returns the envelope's `data`. Throws a `KoloApiError` subclass for an error
 * answer and `KoloConnectionError` when no attempt got an answer.
 */
export async function call<T>(transport: Transport, spec: CallSpec, options: RequestOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  const maxRetries = options.maxRetries ?? transport.maxRetries;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new KoloError(`timeoutMs must be a positive integer of milliseconds, got ${timeoutMs}.`);
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
    throw new KoloError(`maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}, got ${maxRetries}.`);
  }
  const url = urlOf(transport.baseUrl, spec.path, spec.query);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `kolo-sdk-node/${SDK_VERSION}`,
    'x-api-key': transport.apiKey,
  };
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);

  for (let retriesDone = 0; ; retriesDone++) {
    const attempt = await attemptOnce<T>(transport.fetch, url, { method: spec.method, headers, body }, timeoutMs, spec.idempotencyKey ?? null);
    if (attempt.ok) return attempt.data;
    if (!shouldRetry({ outcome: attempt.outcome, retriesDone, maxRetries, isIdempotent: spec.isIdempotent })) throw attempt.error;
    const retryAfterMs = attempt.outcome.kind === 'response' ? attempt.outcome.retryAfterMs : null;
    await sleep(retryDelayMs(retriesDone, retryAfterMs, transport.backoff));
  }
}

/** `baseUrl + path` with the defined query parameters. */
function urlOf(baseUrl: string, path: string, query: CallSpec['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return `${baseUrl}${path}${search ? `?${search}` : ''}`;
}

/** One attempt, bounded by `timeoutMs` from sending to the end of the body. */
async function attemptOnce<T>(
  fetchImpl: typeof fetch,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  idempotencyKey: string | null,
): Promise<Attempt<T>> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let status: number;
  let text: string;
  let responseHeaders: Headers;
  try {
    const response = await fetchImpl(url, { ...init, signal: controller.signal, redirect: 'error' });
    status = response.status;
    responseHeaders = response.headers;
    text = await response.text();
  } catch (cause) {
    const isTimeout = controller.signal.aborted;
    const what = isTimeout ? `no answer within ${timeoutMs} ms` : `the connection failed (${describe(cause)})`;
    const error = new KoloConnectionError(
      `${init.method} ${url}: ${what}. Check that baseUrl points at your Kolo server and that it is up.` +
        (idempotencyKey ? ` The request may have been carried out: retry it with the same idempotency key (${idempotencyKey}).` : ''),
      { cause, isTimeout, idempotencyKey },
    );
    return { ok: false, outcome: { kind: isTimeout ? 'timeout' : 'network' }, error };
  } finally {
    clearTimeout(timer);
  }
  const retryAfterMs = parseRetryAfter(responseHeaders.get('retry-after'));
  const requestId = responseHeaders.get('x-request-id');
  const envelope = parseEnvelope(text);
  if (envelope?.success === true && status >= 200 && status < 300) return { ok: true, data: envelope.data as T };
  const outcome: AttemptOutcome = { kind: 'response', status, retryAfterMs };
  if (envelope && envelope.success === false && isKnownCode(envelope.code)) {
    const data = isFieldMap(envelope.data) ? envelope.data : null;
    return { ok: false, outcome, error: apiErrorFor({ code: envelope.code, status, message: envelope.message, requestId, data, retryAfterMs }) };
  }
  const error = new KoloApiError({
    code: 'UNEXPECTED_RESPONSE',
    status,
    message: `${init.method} ${url} answered HTTP ${status} without Kolo's envelope (${text.slice(0, 120) || 'empty body'}). Check that baseUrl points at Kolo, not at a proxy's error page.`,
    requestId,
    data: null,
  });
  return { ok: false, outcome, error };
}

interface Envelope {
  success: boolean;
  code: string;
  message: string;
  data: unknown;
}

/** The envelope in `text`, or null when `text` is not one. */
function parseEnvelope(text: string): Envelope | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { success, code, message } = value as Record<string, unknown>;
  if (typeof success !== 'boolean' || typeof code !== 'string' || typeof message !== 'string' || !('data' in value)) return null;
  return value as Envelope;
}

const KNOWN_CODES: ReadonlySet<string> = new Set(KOLO_ERROR_CODES);

function isKnownCode(code: string): code is KoloErrorCode {
  return KNOWN_CODES.has(code);
}

function isFieldMap(data: unknown): data is Record<string, string> {
  return typeof data === 'object' && data !== null && Object.values(data).every((v) => typeof v === 'string');
}

/** A short description of a fetch failure: its cause's code when Node gives one (ECONNRESET…). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
