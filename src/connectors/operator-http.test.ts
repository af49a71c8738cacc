/**
 * The operator transport and `callOperator` against a real loopback HTTP server: answers of any
 * status come back with their body; a deployment's bound on connections per operator holds (the
 * operator never sees more requests at once, and every call is still answered); a call held past
 * its timeout, or a refused connection, is UNREACHABLE, never an exception.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callOperator, operatorTransport } from './operator-http.ts';

let server: http.Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(null)));
  server = null;
});

/** A server answering after `delayMs`, counting the requests it holds at once. */
async function slowOperator(delayMs: number, status = 200) {
  const seen = { inFlight: 0, peak: 0, total: 0 };
  server = http.createServer((req, res) => {
    seen.inFlight++;
    seen.total++;
    seen.peak = Math.max(seen.peak, seen.inFlight);
    req.resume();
    setTimeout(() => {
      seen.inFlight--;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('operator transport', () => {
  it('answers every call, with at most the configured connections to the operator at once', async () => {
    const operator = await slowOperator(50);
    const transport = operatorTransport({ connectionsPerOrigin: 2 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => callOperator(transport, { method: 'POST', url: `${operator.url}/pay/${i}`, headers: { 'content-type': 'application/json' }, body: '{}' }, 5000)),
    );
    expect(answers.map((a) => (a.kind === 'RESPONSE' ? (a.json as { path: string }).path : a.kind))).toEqual([0, 1, 2, 3, 4, 5].map((i) => `/pay/${i}`));
    expect(operator.seen).toMatchObject({ total: 6, peak: 2 });
  });

  it('hands back an error status with its body, as an answer', async () => {
    const operator = await slowOperator(0, 500);
    const answer = await callOperator(operatorTransport(), { method: 'GET', url: `${operator.url}/status/1`, headers: {} }, 5000);
    expect(answer).toMatchObject({ kind: 'RESPONSE', status: 500, json: { path: '/status/1' } });
  });

  it('is UNREACHABLE when held past its timeout, or when nobody listens', async () => {
    const operator = await slowOperator(2000);
    const held = await callOperator(operatorTransport(), { method: 'GET', url: `${operator.url}/status/2`, headers: {} }, 200);
    expect(held).toEqual({ kind: 'UNREACHABLE', error: 'GET /status/2: timeout after 200 ms' });
    const closed = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = null;
    const refused = await callOperator(operatorTransport(), { method: 'GET', url: `${closed}/status/3`, headers: {} }, 1000);
    expect(refused).toEqual({ kind: 'UNREACHABLE', error: 'GET /status/3: ECONNREFUSED' });
  });
});
