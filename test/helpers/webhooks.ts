/**
 * A real local webhook receiver (node:http on 127.0.0.1) for the webhook tests, plus helpers to
 * drive transactions to each terminal status through the real API, the sandbox and the poller.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Harness, Tenant } from '../harness.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { transactions } from '../../src/db/schema.ts';

/** One request the receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A canned answer. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A running receiver. `answers` are used in order; then `fallback`. */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answers: Answer[];
  fallback: Answer;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'port' | 'close'> = { received: [], answers: [], fallback: { status: 200, body: 'ok' } };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      receiver.received.push({ method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = receiver.answers.shift() ?? receiver.fallback;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/kolo`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * An independent, from-scratch verifier of the compatibility header
 * `X-Sharepay-Signature: t=<unix>,v1=<hex>` (as SharePay's receivers check it): HMAC-SHA256 over
 * the raw body only, keyed with the whole secret string as UTF-8. It parses the header as existing
 * receivers do: into a map, so the LAST `v1` wins.
 */
export function verifySharepaySignature(secret: string, rawBody: string, header: string | undefined): boolean {
  if (!header) return false;
  const fields = new Map<string, string>();
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=');
    if (key && value !== undefined) fields.set(key, value);
  }
  const t = fields.get('t');
  const v1 = fields.get('v1');
  if (!t || !/^\d+$/.test(t) || !v1) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  return v1.length === expected.length && timingSafeEqual(Buffer.from(v1), expected);
}

const SUCCESS_MSISDN = '237677000001';
const DECLINED_MSISDN = '237677000100';
const INSUFFICIENT_MSISDN = '237677000102';

/** Creates a charge and drives it to SUCCESS or FAILED through the sandbox and the poller; returns its reference. */
export async function chargeTo(h: Harness, t: Tenant, outcome: 'SUCCESS' | 'FAILED', merchantReference?: string): Promise<string> {
  const created = await h.request('POST', '/api/v1/pay-in/charge', {
    key: t.key,
    body: {
      amount: 5000,
      currency: 'XAF',
      paymentMethod: 'MTN_MOMO_CM',
      payerAccount: outcome === 'SUCCESS' ? SUCCESS_MSISDN : DECLINED_MSISDN,
      merchantReference,
    },
  });
  if (created.status !== 201) throw new Error(`charge failed: ${created.text}`);
  await settle(h);
  return created.json.data.reference as string;
}

/** Creates a transfer and drives it to SUCCESS or FAILED; returns its reference. */
export async function transferTo(h: Harness, t: Tenant, outcome: 'SUCCESS' | 'FAILED'): Promise<string> {
  const created = await h.request('POST', '/api/v1/pay-out/transfer', {
    key: t.key,
    body: {
      amount: 2000,
      currency: 'XAF',
      paymentMethod: 'MTN_MOMO_CM',
      beneficiaryAccount: outcome === 'SUCCESS' ? SUCCESS_MSISDN : INSUFFICIENT_MSISDN,
      beneficiaryName: 'Awa Mbarga',
    },
  });
  if (created.status !== 201) throw new Error(`transfer failed: ${created.text}`);
  await settle(h);
  return created.json.data.reference as string;
}

/** Lets the sandbox resolve pending transactions: advance past its delay, run the poller. */
export async function settle(h: Harness): Promise<void> {
  h.clock.advance(h.config.sandboxDelayMs + 1000);
  await pollOnce(h.services);
}

/** The transaction row of a reference. */
export async function transactionRow(h: Harness, reference: string) {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  if (!row) throw new Error(`no transaction ${reference}`);
  return row;
}
