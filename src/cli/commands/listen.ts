/**
 * `kolo listen --forward-to <local URL>`: follows the events API (`GET /api/v1/events`) of any
 * Kolo, local or remote, with an API key, and POSTs each event's payload to a local URL signed
 * exactly as Kolo's webhooks are (webhooks/signing.ts: Standard Webhooks and the compatibility
 * header), so a merchant's webhook handler can be developed against a Kolo that cannot reach it.
 * A plain HTTP client: no configuration, no database.
 *
 * It starts from the newest event (only what happens from now on), or from the first one kept
 * with `--from-start`, and prints one line per delivery (time, event id, event, the local URL's
 * HTTP status or error, duration). A local URL that fails is reported and skipped (the next
 * event is forwarded); the events API failing (unreachable, 5xx, 429) is retried with a doubling
 * pause from 1 s to `BACKOFF_MAX_MS`; a refused key or request (401, 400, 403, 404) stops it
 * with exit 1, at the start as later. It runs until stopped (SIGINT or SIGTERM).
 */
import { randomBytes } from 'node:crypto';
import { webhookHeaders } from '../../webhooks/signing.ts';
import { UsageError, type CliContext } from '../context.ts';

/** Events asked per page (the API's maximum). */
const PAGE_LIMIT = 100;
/** Pause between two reads when the feed is caught up. */
const POLL_INTERVAL_MS = 1_000;
/** First and longest pause after a failed read of the events API. */
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** Time limit of one call, to the events API or to the local URL. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Most pages read to find the newest event at start (100 events each). */
const START_PAGES_MAX = 10_000;

/** One event of `GET /api/v1/events`. */
interface FeedEvent {
  cursor: string;
  id: string;
  event: string;
  createdAt: string;
  payload: Record<string, unknown>;
}

/** The `data` of a page. */
interface FeedPage {
  events: FeedEvent[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Options of `listen`, parsed (validate.ts). */
export interface ListenOptions {
  forwardTo: string;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  secret?: string | undefined;
  fromStart?: boolean | undefined;
  json?: boolean | undefined;
}

/** The events API refused the request for good (bad key, bad cursor): retrying cannot help. */
class RefusedError extends Error {}

/** A read failed in a way that may pass (unreachable, 5xx, 429, a body that is not the envelope). */
class UnavailableError extends Error {}

/** The API key of `--api-key`, else of KOLO_API_KEY (checked like the option). */
export function apiKeyOf(ctx: CliContext, given: string | undefined): string {
  const key = given ?? ctx.env.KOLO_API_KEY;
  if (!key) throw new UsageError('an API key is needed: --api-key sk_test_… or the KOLO_API_KEY variable');
  if (!/^sk_(test|live)_[0-9a-f]{128}$/.test(key)) throw new UsageError('KOLO_API_KEY must be an API key: sk_test_ or sk_live_ and 128 hexadecimal digits');
  return key;
}

/** The Kolo to talk to: `--base-url`, else PUBLIC_BASE_URL, else http://localhost:8080; no trailing slash. */
export function baseUrlOf(ctx: CliContext, given: string | undefined): string {
  return (given ?? ctx.env.PUBLIC_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
}

/** Starts following the feed; `ctx.result` becomes `{ service }`, stopped by the caller on a signal. */
export async function listen(ctx: CliContext, opts: ListenOptions): Promise<void> {
  const apiKey = apiKeyOf(ctx, opts.apiKey);
  const baseUrl = baseUrlOf(ctx, opts.baseUrl);
  const secret = opts.secret ?? `whsec_${randomBytes(32).toString('hex')}`;
  const stopping = new AbortController();
  const line = (human: string, json: Record<string, unknown>) => ctx.io.out(opts.json ? `${JSON.stringify(json)}\n` : `${human}\n`);

  const readPage = async (after: string | null): Promise<FeedPage> => {
    const url = new URL(`${baseUrl}/api/v1/events`);
    if (after) url.searchParams.set('after', after);
    url.searchParams.set('limit', String(PAGE_LIMIT));
    let response: Response;
    // Cut short by a stop: one listener per request, removed after it.
    const request = new AbortController();
    const onStop = () => request.abort();
    stopping.signal.addEventListener('abort', onStop, { once: true });
    try {
      response = await fetch(url, {
        headers: { 'x-api-key': apiKey, accept: 'application/json' },
        signal: AbortSignal.any([request.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      });
    } catch (error) {
      throw new UnavailableError(`${baseUrl} unreachable (${(error as Error).message})`);
    } finally {
      stopping.signal.removeEventListener('abort', onStop);
    }
    const body = (await response.json().catch(() => null)) as { code?: string; message?: string; data?: FeedPage } | null;
    if (response.status === 200 && body?.data && Array.isArray(body.data.events)) return body.data;
    const why = `GET /api/v1/events answered ${response.status}${body?.code ? ` ${body.code}: ${body.message}` : ''}`;
    if (response.status >= 500 || response.status === 429 || response.status === 200) throw new UnavailableError(why);
    throw new RefusedError(response.status === 401 ? `${why} (is the API key right, and active?)` : why);
  };

  const forward = async (event: FeedEvent): Promise<void> => {
    const body = JSON.stringify(event.payload);
    const started = performance.now();
    let outcome: string;
    let status: number | null = null;
    try {
      const headers = webhookHeaders({ eventId: event.id, eventName: event.event, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
      const response = await fetch(opts.forwardTo, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: 'manual' });
      await response.arrayBuffer().catch(() => undefined);
      status = response.status;
      outcome = String(response.status);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      outcome = `error ${cause ?? (error as Error).name}`;
    }
    const ms = Math.round(performance.now() - started);
    line(`${new Date().toISOString()}  ${event.id}  ${event.event.padEnd(20)}  ${outcome.padEnd(5)}  ${ms} ms`, {
      time: new Date().toISOString(),
      id: event.id,
      event: event.event,
      status,
      ...(status === null ? { error: outcome } : {}),
      ms,
    });
  };

  /** Resolves after `ms`, or at once when stopping. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  line(
    `Forwarding the events of ${baseUrl} to ${opts.forwardTo}, ${opts.fromStart ? 'from the first one kept' : 'from now on'}.\n` +
      `Signing secret (give it to your webhook handler): ${secret}\nCtrl-C to stop.`,
    { forwarding: { from: baseUrl, to: opts.forwardTo, secret, fromStart: opts.fromStart === true } },
  );

  const loop = (async () => {
    // Until the start is found: with --from-start, none (the first event kept); otherwise the
    // newest event's cursor, reading pages until the feed is caught up, forwarding none of them.
    let isStarting = !opts.fromStart;
    let startPages = 0;
    let cursor: string | null = null;
    let backoffMs = BACKOFF_MIN_MS;
    while (!stopping.signal.aborted) {
      let page: FeedPage;
      try {
        page = await readPage(cursor);
        backoffMs = BACKOFF_MIN_MS;
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (error instanceof RefusedError) {
          ctx.io.err(`error: ${error.message}; stopping\n`);
          return 1;
        }
        ctx.io.err(`${(error as Error).message}; retrying in ${backoffMs / 1000} s\n`);
        await pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
        continue;
      }
      if (isStarting) {
        cursor = page.nextCursor;
        startPages += 1;
        if (!page.hasMore || startPages >= START_PAGES_MAX) isStarting = false;
        continue;
      }
      for (const event of page.events) {
        if (stopping.signal.aborted) break;
        await forward(event);
        cursor = event.cursor;
      }
      if (page.events.length === 0 && page.nextCursor) cursor = page.nextCursor;
      if (!page.hasMore) await pause(POLL_INTERVAL_MS);
    }
    return 0;
  })();

  ctx.result = {
    service: {
      async stop() {
        stopping.abort();
        await loop;
      },
      // Settles with 1 when the events API refuses the key or a request after the start.
      finished: loop,
    },
  };
}
