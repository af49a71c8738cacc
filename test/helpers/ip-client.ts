/**
 * A form client bound to its own loopback address (127.0.0.N), so that many customers can be
 * simulated from one machine without sharing one client IP (the checkout page rate-limits per IP).
 * It keeps the checkout cookie like a browser and reads the page's CSRF field.
 */
import { request as httpRequest } from 'node:http';

/** An HTTP answer: status, headers and body text. */
export interface IpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request from `localAddress` (a 127.0.0.0/8 address) to `url`. */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<IpResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The customer with index `n` (0…253): its own loopback address, its own cookie jar. */
export function customerAt(baseUrl: string, n: number) {
  const localAddress = `127.0.${Math.floor(n / 250)}.${(n % 250) + 2}`;
  let cookie = '';
  const remember = (response: IpResponse) => {
    const set = response.headers['set-cookie'];
    if (set && set.length > 0) cookie = set[0]!.split(';')[0]!;
  };
  return {
    localAddress,
    /** GET `path`; returns the response and the page's `_csrf` field (or null). */
    async get(path: string): Promise<IpResponse & { csrf: string | null }> {
      const response = await requestFrom(localAddress, `${baseUrl}${path}`, { headers: cookie ? { cookie } : {} });
      remember(response);
      const match = /name="_csrf" value="([^"]+)"/.exec(response.body);
      return { ...response, csrf: match ? match[1]! : null };
    },
    /** POST an urlencoded form to `path`. */
    async post(path: string, fields: Record<string, string>): Promise<IpResponse> {
      const body = new URLSearchParams(fields).toString();
      const response = await requestFrom(localAddress, `${baseUrl}${path}`, {
        method: 'POST',
        headers: { ...(cookie ? { cookie } : {}), 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
        body,
      });
      remember(response);
      return response;
    },
  };
}
