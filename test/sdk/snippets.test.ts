/**
 * The webhook-verification snippets of docs/webhooks.md (Python 3 stdlib, PHP 8 core), run as
 * `python3` and `php` processes on real deliveries of a running Kolo: a valid delivery prints its
 * event and exits 0, in either scheme; a tampered body, another secret or an old timestamp exits
 * non-zero. The page must contain each file exactly.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { startHarness, type Harness } from '../harness.ts';
import { startReceiver, type Received, type Receiver } from '../helpers/webhooks.ts';
import { paymentSuccessDelivery, signedTenant, type SignedTenant } from './deliveries.ts';

const SNIPPETS = {
  python: { command: 'python3', file: 'docs/webhooks/verify.py', install: 'apt-get install -y python3' },
  php: { command: 'php', file: 'docs/webhooks/verify.php', install: 'apt-get install -y php-cli' },
} as const;
const STANDARD = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const SHAREPAY = ['x-sharepay-signature'];
const OTHER_SECRET = `whsec_${'cd'.repeat(32)}`;

let h: Harness;
let receiver: Receiver;
let t: SignedTenant;
let fresh: Received;
let old: Received;
let rotated: { delivery: Received; oldSecret: string; newSecret: string };

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  receiver = await startReceiver();
  t = await signedTenant(h, receiver);
  fresh = (await paymentSuccessDelivery(h, t, receiver)).delivery;
  old = (await paymentSuccessDelivery(h, t, receiver, new Date(Date.now() - 10 * 60_000))).delivery;
  const other = await signedTenant(h, receiver);
  const { plainTextWebhookSecret } = await rotateWebhookSecret(h.services, other.applicationId);
  rotated = { delivery: (await paymentSuccessDelivery(h, other, receiver)).delivery, oldSecret: other.secret, newSecret: plainTextWebhookSecret };
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/** Runs a snippet on `body` with the named headers of `delivery`; returns its exit status and output. */
function run(language: keyof typeof SNIPPETS, secret: string, delivery: Received, headerNames: string[], body = delivery.body) {
  const { command, file } = SNIPPETS[language];
  const args = headerNames.map((name) => `${name}: ${delivery.headers[name]}`);
  const result = spawnSync(command, [file, ...args], { input: body, env: { ...process.env, KOLO_WEBHOOK_SECRET: secret }, encoding: 'utf8', timeout: 20_000 });
  if (result.error) throw new Error(`${command} could not run (${result.error.message}): install it (${SNIPPETS[language].install})`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each(['python', 'php'] as const)('%s snippet', (language) => {
  beforeAll(() => {
    const { command, install } = SNIPPETS[language];
    const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
    // A missing interpreter fails this file: the snippets are part of what CI checks.
    if (probe.error || probe.status !== 0) throw new Error(`${command} is not installed: ${install} (.ci/run does it)`);
  });

  it('verifies a real delivery with Standard Webhooks and prints the event', () => {
    const result = run(language, t.secret, fresh, STANDARD);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(fresh.body));
  });

  it('verifies it with X-Sharepay-Signature alone', () => {
    const result = run(language, t.secret, fresh, SHAREPAY);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(fresh.headers['webhook-id']);
  });

  it('refuses a tampered body in both schemes', () => {
    const tampered = fresh.body.replace('"status":"SUCCESS"', '"status":"FAILED"');
    expect(tampered).not.toBe(fresh.body);
    for (const headers of [STANDARD, SHAREPAY]) {
      const result = run(language, t.secret, fresh, headers, tampered);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/does not match|no webhook-signature matches/);
      expect(result.stdout).toBe('');
    }
  });

  it('refuses another secret in both schemes', () => {
    for (const headers of [STANDARD, SHAREPAY]) {
      const result = run(language, OTHER_SECRET, fresh, headers);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/invalid webhook/);
    }
  });

  it('refuses a delivery sent ten minutes ago', () => {
    for (const headers of [STANDARD, SHAREPAY]) {
      const result = run(language, t.secret, old, headers);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/timestamp more than 300 s away/);
    }
  });

  it('accepts either secret during a rotation (two signatures in webhook-signature)', () => {
    expect(rotated.delivery.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [rotated.oldSecret, rotated.newSecret]) expect(run(language, secret, rotated.delivery, STANDARD).status).toBe(0);
  });

  it('refuses a delivery without signature headers', () => {
    const result = run(language, t.secret, fresh, ['webhook-id', 'webhook-timestamp']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no webhook-signature or X-Sharepay-Signature/);
  });
});

describe('docs/webhooks.md', () => {
  it('contains each snippet exactly', () => {
    const page = readFileSync('docs/webhooks.md', 'utf8');
    for (const { file } of Object.values(SNIPPETS)) {
      const snippet = readFileSync(file, 'utf8');
      expect(page.includes(snippet), `${file} differs from its copy in docs/webhooks.md`).toBe(true);
    }
  });
});
