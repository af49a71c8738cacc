/**
 * `kolo listen` and `kolo trigger` against a real running Kolo (spawned `kolo serve`) and a real
 * local receiver: `trigger` creates the sandbox transactions that produce payment.success,
 * payment.failed, payout.success, payout.failed and refund.success through the merchant API;
 * `listen` follows the events API from the moment it starts and POSTs each event's payload to
 * the receiver, signed so that the `standardwebhooks` package verifies it with the secret it
 * printed; a receiver that answers 500 is reported and the next event is still forwarded;
 * `--from-start` forwards the older events too; an unreachable server is retried, a refused key
 * stops it with exit 1; Ctrl-C stops it with exit 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freshCliDatabase, freePort, runKolo, spawnKolo, startServe, type CliDatabase, type ServeProcess } from '../helpers/cli.ts';
import { startReceiver, verifySharepaySignature, type Receiver } from '../helpers/webhooks.ts';

/** One delivery line of `listen --json`. */
interface Delivery {
  time: string;
  id: string;
  event: string;
  status: number | null;
  error?: string;
  ms: number;
}

function deliveries(stdout: string): Delivery[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{"time"'))
    .map((line) => JSON.parse(line) as Delivery);
}

describe('kolo listen and kolo trigger', () => {
  let db: CliDatabase;
  let server: ServeProcess;
  let receiver: Receiver;
  let key: string;
  const env = () => ({ KOLO_API_KEY: key, PUBLIC_BASE_URL: server.baseUrl });

  beforeAll(async () => {
    db = await freshCliDatabase();
    const serveEnv = { ...db.env, DEMO_SEED: 'false' };
    // The first command of a fresh embedded data directory creates the database: the slow one.
    expect((await runKolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', 'awa@example.cm'], serveEnv, 180_000)).code).toBe(0);
    const app = await runKolo(['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'Boutique', '--currency', 'XAF', '--json'], serveEnv);
    const appId = JSON.parse(app.stdout).id as string;
    key = JSON.parse((await runKolo(['keys', 'create', '--app', appId, '--json'], serveEnv)).stdout).plainTextKey;
    server = await startServe({ ...serveEnv, POLLER_ENABLED: 'true', SANDBOX_DELAY_MS: '200' });
    await server.waitUntilHealthy();
    receiver = await startReceiver();
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
    await db?.cleanup();
  });

  it('forwards every new event, signed, to the local URL; goes on after a failing answer; --from-start replays', async () => {
    // Before listen starts: not forwarded by a listen that starts after it.
    const before = await runKolo(['trigger', 'payment.success', '--json'], env());
    expect(before.code, before.stderr).toBe(0);
    const beforeReference = JSON.parse(before.stdout).references[0] as string;
    // Its event exists once the charge succeeded (the events API serves it).
    for (let i = 0; i < 300; i++) {
      const status = await fetch(`${server.baseUrl}/api/v1/pay-in/check_status/${beforeReference}`, { headers: { 'x-api-key': key } });
      if (((await status.json()) as { data: { status: string } }).data.status === 'SUCCESS') break;
      await new Promise((r) => setTimeout(r, 100));
    }

    receiver.answers.push({ status: 500, body: 'boom' });
    const listen = spawnKolo(['listen', '--forward-to', `http://127.0.0.1:${receiver.port}/webhooks/kolo`, '--json'], env());
    try {
      const start = JSON.parse((await listen.waitFor(/"forwarding"/)).split('\n')[0]!) as { forwarding: { secret: string; from: string } };
      const secret = start.forwarding.secret;
      expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      expect(start.forwarding.from).toBe(server.baseUrl);

      const references: Record<string, string[]> = {};
      for (const event of ['payment.success', 'payment.failed', 'payout.success', 'payout.failed', 'refund.success'] as const) {
        const run = await runKolo(['trigger', event], env());
        expect(run.code, run.stderr).toBe(0);
        references[event] = run.stdout.match(/P[IO]-[0-9A-F]{12}/g)!;
        expect(run.stdout).toContain(`${event}: ${references[event]![0]}`);
      }
      // payment.success ×2 (one before the refund), payment.failed, payout.success, payout.failed, refund.success, payment.refunded.
      await listen.waitFor(/("event":"[a-z._]+"[\s\S]*){7}/, 120_000);
      const lines = deliveries(listen.stdout());
      expect(lines.map((l) => l.event).sort()).toEqual(
        ['payment.success', 'payment.success', 'payment.failed', 'payout.success', 'payout.failed', 'refund.success', 'payment.refunded'].sort(),
      );
      // The first delivery got the receiver's 500, and the next ones were forwarded all the same.
      expect(lines[0]!.status).toBe(500);
      expect(lines.slice(1).every((l) => l.status === 200)).toBe(true);

      const got = receiver.received.filter((r) => r.path === '/webhooks/kolo');
      expect(got).toHaveLength(7);
      for (const [i, delivery] of got.entries()) {
        expect(delivery.method).toBe('POST');
        // Verified by an independent Standard Webhooks implementation, and the compatibility header.
        const body = new Webhook(secret).verify(delivery.body, delivery.headers) as { event: string; id: string; data: { reference: string } };
        expect(verifySharepaySignature(secret, delivery.body, delivery.headers['x-sharepay-signature'])).toBe(true);
        expect(delivery.headers['webhook-id']).toBe(lines[i]!.id);
        expect(delivery.headers['x-sharepay-event']).toBe(body.event);
        expect(body.event).toBe(lines[i]!.event);
        expect(body.id).toBe(lines[i]!.id);
        expect(body.data.reference).not.toBe(beforeReference);
      }
      const byEvent = (name: string) => got.map((d) => JSON.parse(d.body) as { event: string; data: { reference: string } }).filter((b) => b.event === name);
      expect(byEvent('payment.failed').map((b) => b.data.reference)).toEqual(references['payment.failed']);
      expect(byEvent('payout.success').map((b) => b.data.reference)).toEqual(references['payout.success']);
      expect(byEvent('payout.failed').map((b) => b.data.reference)).toEqual(references['payout.failed']);
      expect(byEvent('refund.success').map((b) => b.data.reference)).toEqual([references['refund.success']![1]]);
      expect(byEvent('payment.refunded').map((b) => b.data.reference)).toEqual([references['refund.success']![0]]);
      expect(byEvent('payment.success').map((b) => b.data.reference).sort()).toEqual([references['payment.success']![0], references['refund.success']![0]].sort());
    } finally {
      expect(await listen.stop('SIGINT')).toBe(0);
    }

    // --from-start: the event from before the first listen comes first, with a given secret.
    const secret = `whsec_${'ab'.repeat(32)}`;
    const replay = spawnKolo(['listen', '--forward-to', `http://127.0.0.1:${receiver.port}/replay`, '--from-start', '--secret', secret, '--api-key', key, '--base-url', server.baseUrl], {});
    try {
      await replay.waitFor(/payment\.success/);
      const first = receiver.received.find((r) => r.path === '/replay')!;
      expect((new Webhook(secret).verify(first.body, first.headers) as { data: { reference: string } }).data.reference).toBe(beforeReference);
      expect(replay.stdout()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}evt_[0-9a-f]+ {2}payment\.success +200 +\d+ ms$/m);
    } finally {
      expect(await replay.stop('SIGTERM')).toBe(0);
    }
  }, 300_000);

  it('retries an unreachable server until stopped; a refused key stops it with exit 1; trigger needs a TEST key', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const waiting = spawnKolo(['listen', '--forward-to', receiver.url, '--base-url', closed], { KOLO_API_KEY: key });
    try {
      await waiting.waitFor(/Ctrl-C to stop/);
      for (let i = 0; i < 200 && !/retrying in 2 s/.test(waiting.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(waiting.stderr()).toContain(`${closed} unreachable`);
      expect(waiting.stderr()).toContain('retrying in 1 s');
      expect(waiting.stderr()).toContain('retrying in 2 s');
    } finally {
      expect(await waiting.stop('SIGINT')).toBe(0);
    }

    const refused = spawnKolo(['listen', '--forward-to', receiver.url, '--base-url', server.baseUrl, '--api-key', `sk_test_${'0'.repeat(128)}`], {});
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('GET /api/v1/events answered 401 UNAUTHORIZED');

    const noKey = await runKolo(['listen', '--forward-to', receiver.url], {});
    expect(noKey).toMatchObject({ code: 2, stderr: 'error: an API key is needed: --api-key sk_test_… or the KOLO_API_KEY variable\n' });
    const live = await runKolo(['trigger', 'payment.success', '--api-key', `sk_live_${'0'.repeat(128)}`], {});
    expect(live).toMatchObject({ code: 2, stderr: 'error: trigger creates sandbox transactions: it needs a TEST key (sk_test_…)\n' });
    const unknown = await runKolo(['trigger', 'payment.teleported'], { KOLO_API_KEY: key });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("value 'payment.teleported' is invalid for argument 'event'. Allowed choices are payment.success, payment.failed");
    const mismatch = await runKolo(['trigger', 'payment.success', '--currency', 'KES'], env());
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain("(the application's currency is not KES: give --currency)");
  }, 180_000);
});
