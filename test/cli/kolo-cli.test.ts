/**
 * The `kolo` command as an operator runs it (child processes, real database): `migrate`,
 * `merchants create`, `apps create`, `keys create`, `keys rotate` with `--json` (only the key
 * commands ever print a full key), and `serve`'s one-time demo seed (the key and the demo
 * application's webhook secret are printed on the first start of an empty database, never again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freshCliDatabase, runKolo, startServe, type CliDatabase } from '../helpers/cli.ts';
import { startReceiver, verifySharepaySignature } from '../helpers/webhooks.ts';

const KEY = /sk_(test|live)_[0-9a-f]{128}/;
const KEY_BODY = /[0-9a-f]{128}/;

// One data directory (or PostgreSQL database) for the whole file: PGlite's first start in an
// empty directory is the slow part, so it happens once.
describe('kolo', () => {
  let db: CliDatabase;
  beforeAll(async () => {
    db = await freshCliDatabase();
  });
  afterAll(async () => db?.cleanup());

  it('seeds a demo key and webhook secret on an empty database, prints them once, and never again', async () => {
    const receiver = await startReceiver();
    const first = await startServe({ ...db.env, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
    let key: string;
    let secret: string;
    try {
      const output = await first.waitFor(/sk_test_[0-9a-f]{128}[\s\S]*whsec_[0-9a-f]{64}[\s\S]*curl[\s\S]*curl[\s\S]*curl/);
      key = output.match(/sk_test_[0-9a-f]{128}/)![0];
      secret = output.match(/whsec_[0-9a-f]{64}/)![0];
      // The newcomer's first webhook arrives signed with the printed secret.
      const set = await fetch(`${first.baseUrl}/api/v1/webhook`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ webhookUrl: receiver.url }),
      });
      expect(set.status).toBe(200);
      const test = await fetch(`${first.baseUrl}/api/v1/webhook/test`, { method: 'POST', headers: { 'x-api-key': key } });
      expect(test.status).toBe(200);
      const delivered = receiver.received.at(-1)!;
      expect(() => new Webhook(secret).verify(delivered.body, delivered.headers)).not.toThrow();
      expect(verifySharepaySignature(secret, delivered.body, delivered.headers['x-sharepay-signature'])).toBe(true);
      expect(output).toContain('/api/v1/pay-in/checkout');
      expect(output).toContain('/api/v1/pay-in/charge');
      const response = await fetch(`${first.baseUrl}/api/v1/pay-in/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ amount: 5000, currency: 'XAF', description: 'Commande 42' }),
      });
      expect(response.status).toBe(201);
      const body = await response.json();
      expect(body.data.paymentUrl.startsWith(`${first.baseUrl}/checkout/cs_`)).toBe(true);
    } finally {
      expect(await first.stop()).toBe(0);
      await receiver.close();
    }

    const second = await startServe(db.env);
    try {
      await second.waitUntilHealthy();
      const response = await fetch(`${second.baseUrl}/api/v1/pay-in/charge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' }),
      });
      expect(response.status).toBe(201);
    } finally {
      await second.stop();
    }
    expect(second.output()).not.toMatch(KEY);
    expect(second.output()).not.toContain(key.slice(8));
    expect(second.output()).not.toMatch(/whsec_/);
    expect(second.output()).not.toContain(secret.slice(6));
  }, 180_000);

  it('then, with the server stopped: migrate, merchants create, apps create, keys create, keys rotate (--json)', async () => {
    const migrate = await runKolo(['migrate', '--json'], db.env);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(JSON.parse(migrate.stdout)).toEqual({ migrated: true, database: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite' });

    const merchant = await runKolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', 'awa@example.cm', '--country', 'CM', '--json'], db.env);
    expect(merchant.code, merchant.stderr).toBe(0);
    const merchantJson = JSON.parse(merchant.stdout);
    expect(merchantJson).toMatchObject({ fullName: 'Awa Ngono', email: 'awa@example.cm', role: 'MERCHANT', status: 'ACTIVE' });
    expect(merchantJson.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(merchantJson).not.toHaveProperty('passwordHash');

    const app = await runKolo(['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'Boutique', '--currency', 'xaf', '--json'], db.env);
    expect(app.code, app.stderr).toBe(0);
    const appJson = JSON.parse(app.stdout);
    expect(appJson).toMatchObject({ name: 'Boutique', currency: 'XAF', merchantId: merchantJson.id, status: 'ACTIVE' });

    const created = await runKolo(['keys', 'create', '--app', appJson.id, '--name', 'Clé de test', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ applicationId: appJson.id, name: 'Clé de test', environment: 'TEST', active: true });
    expect(key.plainTextKey).toMatch(/^sk_test_[0-9a-f]{128}$/);
    expect(key.keyPrefix).toBe(key.plainTextKey.slice(0, 16));
    expect(key).not.toHaveProperty('keyHash');

    const rotated = await runKolo(['keys', 'rotate', '--app', appJson.id, '--environment', 'LIVE', '--json'], db.env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedKey = JSON.parse(rotated.stdout);
    expect(rotatedKey.plainTextKey).toMatch(/^sk_live_[0-9a-f]{128}$/);
    expect(rotatedKey.environment).toBe('LIVE');
    expect(rotatedKey.id).not.toBe(key.id);

    // Only the key commands print a full key (or any 128-hex body).
    for (const run of [migrate, merchant, app]) {
      expect(run.stdout + run.stderr).not.toMatch(KEY);
      expect(run.stdout + run.stderr).not.toMatch(KEY_BODY);
    }
  }, 180_000);
});
