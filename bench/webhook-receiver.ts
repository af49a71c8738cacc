/**
 * The benchmark's webhook receiver: a node:http server on the loopback interface that verifies
 * every delivery's Standard Webhooks signature (`standardwebhooks`, with the application's
 * `whsec_` secret), counts deliveries per event id (`webhook-id`, the same on every retry) and
 * answers 200 (401 on a bad signature, so a broken signer shows up as failed deliveries).
 * At-least-once is checked by the caller: every event the database says was delivered must be
 * in `seen`; events seen more than once are duplicates (allowed, reported).
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A running receiver and its counters. */
export interface WebhookReceiver {
  url: string;
  /** Deliveries received per event id (valid signatures only). */
  seen: Map<string, number>;
  /** Valid deliveries received in all (retries included). */
  received(): number;
  /** Deliveries refused: bad or missing signature. */
  invalid(): number;
  /** Forgets the counts (between phases). */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a receiver on `port` verifying with `secret` (`whsec_…`). */
export async function startWebhookReceiver(port: number, secret: string): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const seen = new Map<string, number>();
  let received = 0;
  let invalid = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        });
      } catch {
        invalid++;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      received++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/webhooks/kolo`,
    seen,
    received: () => received,
    invalid: () => invalid,
    reset() {
      seen.clear();
      received = 0;
      invalid = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
