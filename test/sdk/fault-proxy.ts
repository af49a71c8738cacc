/**
 * A real HTTP proxy on loopback in front of a Kolo, that answers the requests it is told to badly:
 * it drops the connection (before or after Kolo has carried the request out), answers 503 or 429
 * in Kolo's place, or holds Kolo's answer back until the client has given up and sent again.
 * Every request it sees is recorded with its `Idempotency-Key`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What to do with one request. */
export type Fault =
  | 'pass'
  /** Forward to Kolo, then cut the connection instead of answering. */
  | 'drop-after-forward'
  /** Cut the connection without forwarding. */
  | 'drop-before-forward'
  /** Forward to Kolo, then answer a bare 503 (as a load balancer does) instead of Kolo's answer. */
  | '503-after-forward'
  /** Answer 429 in Kolo's envelope with this `Retry-After` (seconds), without forwarding. */
  | { status: 429; retryAfterSeconds: number }
  /** Forward to Kolo and hold its answer until the next request arrives, then cut this connection. */
  | 'hold-until-next';

/** One request the proxy saw. */
export interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/** A running proxy: `faults` are used in order, one per request, then requests pass. */
export interface FaultProxy {
  url: string;
  faults: Fault[];
  seen: Seen[];
  close(): Promise<void>;
}

/** Starts a proxy to `target` (a base URL) on a free loopback port. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const faults: Fault[] = [];
  const seen: Seen[] = [];
  let releaseHeld: (() => void) | null = null;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const key = req.headers['idempotency-key'];
        seen.push({ method: req.method ?? '', path: req.url ?? '', idempotencyKey: typeof key === 'string' ? key : undefined });
        const held = releaseHeld;
        releaseHeld = null;
        held?.();
        const fault = faults.shift() ?? 'pass';
        if (fault === 'drop-before-forward') return req.socket.destroy();
        if (typeof fault === 'object') {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.retryAfterSeconds) });
          return res.end(
            JSON.stringify({ success: false, code: 'TOO_MANY_REQUESTS', message: 'Trop de requêtes. Réessayez plus tard.', data: null, timestamp: '2026-11-20T10:00:00' }),
          );
        }
        const answer = await forward(target, req, Buffer.concat(chunks));
        if (fault === 'drop-after-forward') return req.socket.destroy();
        if (fault === '503-after-forward') {
          res.writeHead(503, { 'content-type': 'text/html' });
          return res.end('<html><body>503 Service Temporarily Unavailable</body></html>');
        }
        if (fault === 'hold-until-next') {
          await new Promise<void>((resolve) => {
            releaseHeld = resolve;
          });
          return req.socket.destroy();
        }
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      })().catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        releaseHeld?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FORWARDED_ANSWER_HEADERS = ['content-type', 'x-request-id', 'retry-after'];

/** Sends the request on to `target` and reads Kolo's whole answer. */
async function forward(target: string, req: http.IncomingMessage, body: Buffer) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && !['host', 'connection', 'content-length', 'keep-alive'].includes(name)) headers[name] = value;
  }
  const response = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length > 0 ? new Uint8Array(body) : undefined });
  const answerHeaders: Record<string, string> = {};
  for (const name of FORWARDED_ANSWER_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) answerHeaders[name] = value;
  }
  return { status: response.status, headers: answerHeaders, body: Buffer.from(await response.arrayBuffer()) };
}
