/**
 * The outgoing HTTP POST of a webhook attempt, over node:http/https with
 * `request-filtering-agent`: the resolved address is checked at connect time (so a DNS answer
 * that changed since configuration cannot reach loopback, private, link-local or metadata
 * addresses) unless private hosts are allowed. Redirects are never followed (a 3xx is simply
 * not a 2xx). Bounded: one overall timeout, and at most `RESPONSE_PREFIX_BYTES` of the answer
 * are read.
 */
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { DENIED_UNICAST_CIDRS } from './webhook-url.ts';

/** One outgoing webhook request. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** What came back: status, headers (lower-case names) and the first 1 KiB of the body. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string | undefined>;
  bodyPrefix: string;
}

/**
 * Sends a webhook. Resolves with any HTTP answer (whatever its status); rejects with an Error
 * whose message says why no answer arrived (refused address, DNS, connection, timeout).
 */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

/** First bytes of a response body kept in the delivery log. */
export const RESPONSE_PREFIX_BYTES = 1024;

/** Connections kept open per receiver (host and port) and agent. */
const SOCKETS_PER_HOST = 32;
/** An idle kept-alive connection is closed after this long (before most servers close theirs). */
const IDLE_SOCKET_MS = 4000;

/**
 * The production sender; `allowPrivateHosts()` is read on every request (configuration).
 * Connections to a receiver are kept alive and reused (a new TCP connection per delivery cost a
 * connect and left a TIME_WAIT socket per webhook). Reuse keeps the SSRF rule: a socket is checked
 * when it connects, and a pooled socket only ever talks to the address it was checked for; the
 * agents of the two policies (private hosts allowed or not) are separate.
 */
export function createHttpSender(allowPrivateHosts: () => boolean): WebhookSender {
  const agents = new Map<string, http.Agent>();
  const agentFor = (isHttps: boolean, isPrivateAllowed: boolean): http.Agent => {
    const key = `${isHttps}:${isPrivateAllowed}`;
    let agent = agents.get(key);
    if (!agent) {
      const filter = {
        allowPrivateIPAddress: isPrivateAllowed,
        allowMetaIPAddress: false,
        denyIPAddressList: isPrivateAllowed ? [] : [...DENIED_UNICAST_CIDRS],
        keepAlive: true,
        maxSockets: SOCKETS_PER_HOST,
        maxFreeSockets: SOCKETS_PER_HOST,
        timeout: IDLE_SOCKET_MS,
        scheduling: 'lifo' as const,
      };
      agent = isHttps ? new RequestFilteringHttpsAgent(filter) : new RequestFilteringHttpAgent(filter);
      agents.set(key, agent);
    }
    return agent;
  };
  return (request) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      const url = new URL(request.url);
      const isHttps = url.protocol === 'https:';
      const agent = agentFor(isHttps, allowPrivateHosts());
      const body = Buffer.from(request.body, 'utf8');
      let settled = false;
      const finish = (error: Error | null, response?: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(response!);
      };
      const req = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(body.length) },
      });
      const timer = setTimeout(() => {
        const error = new Error(`pas de réponse en ${request.timeoutMs} ms`);
        finish(error);
        req.destroy(error);
      }, request.timeoutMs);
      req.on('error', (error) => finish(error));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(res.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        const done = () =>
          finish(null, {
            status: res.statusCode ?? 0,
            headers,
            bodyPrefix: Buffer.concat(chunks).subarray(0, RESPONSE_PREFIX_BYTES).toString('utf8'),
          });
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_PREFIX_BYTES) chunks.push(chunk);
          size += chunk.length;
          // Enough for the log: stop reading (a receiver may stream forever).
          if (size >= RESPONSE_PREFIX_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', () => done());
      });
      req.end(body);
    });
}
