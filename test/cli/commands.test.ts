/**
 * The `kolo` command's surface: help for every command and subcommand, `--version`, exit 2 and
 * a message naming the option for every bad argument (boundaries on both sides), and the list
 * and show commands of merchants, applications, keys (never the key's value) and transactions
 * (filters, by reference or id), as tables and as `--json`, run as an operator runs them (child
 * processes, real database); `ledger verify` reports its progress on stderr.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { freshCliDatabase, runKolo, startServe, type CliDatabase } from '../helpers/cli.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const KEY = /sk_(test|live)_[0-9a-f]{128}/;

/** Runs the CLI in this process (no database is opened by usage errors and help). */
async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const result = await runCli(argv, { DATA_DIR: 'memory://', LOG_LEVEL: 'silent', ...env }, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code: 'exitCode' in result ? result.exitCode : null, out, err };
}

describe('kolo help, version and usage errors', () => {
  it('--version prints the version of package.json; help exists for every command and subcommand', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, out: `${VERSION}\n`, err: '' });
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['serve', 'migrate', 'merchants', 'apps', 'keys', 'transactions', 'staff', 'secrets', 'backup', 'restore', 'connectors', 'simulate', 'ledger', 'listen', 'trigger']) {
      expect(top.out).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const keys = await run(['keys', '--help']);
    expect(keys.code).toBe(0);
    expect(keys.out).toContain('Usage: kolo keys [options] [command]');
    for (const sub of ['create', 'rotate', 'list', 'show']) expect(keys.out).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    const create = await run(['keys', 'create', '--help']);
    expect(create.code).toBe(0);
    expect(create.out).toContain('Usage: kolo keys create [options]');
    expect(create.out).toMatch(/--app <id>\s+application id \(UUID\) \(required\)/);
    expect(create.out).toMatch(/--environment <env>\s+TEST or LIVE \(default: "TEST"\)/);
    expect((await run(['transactions', 'list', '--help'])).out).toContain('One of --app and --merchant is required.');
    for (const argv of [['simulate', 'wave', '--help'], ['ledger', 'verify', '--help'], ['backup', '--help'], ['merchants', 'show', '--help']]) {
      const help = await run(argv);
      expect(help.code, argv.join(' ')).toBe(0);
      expect(help.out, argv.join(' ')).toContain(`Usage: kolo ${argv.slice(0, -1).join(' ')}`);
    }
  });

  it('a command group without its subcommand shows its help with exit 2; an unknown command suggests the right one', async () => {
    const keys = await run(['keys']);
    expect(keys.code).toBe(2);
    expect(keys.err).toContain('Usage: kolo keys [options] [command]');
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('Usage: kolo [options] [command]');
    const typo = await run(['merchnats', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain("unknown command 'merchnats'");
    expect(typo.err).toContain('(Did you mean merchants?)');
    const option = await run(['keys', 'create', '--app', '0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c', '--enviroment', 'LIVE']);
    expect(option.code).toBe(2);
    expect(option.err).toContain("unknown option '--enviroment'");
  });

  it('refuses every malformed argument with exit 2, naming the option and what it expects', async () => {
    const APP = '0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c';
    const cases: [string[], RegExp][] = [
      [['merchants', 'create', '--name', 'Awa'], /required option '--email <email>' not specified/],
      [['merchants', 'create', '--name', 'Awa', '--email', 'not-an-email'], /option '--email <email>' argument 'not-an-email' is invalid\. expected an e-mail address/],
      [['merchants', 'create', '--name', '   ', '--email', 'awa@example.cm'], /'--name <name>' argument .* is invalid\. a name must be 1 to 255 characters/],
      [['merchants', 'create', '--name', 'A'.repeat(256), '--email', 'awa@example.cm'], /a name must be 1 to 255 characters/],
      [['merchants', 'create', '--name', 'Awa', '--email', 'awa@example.cm', '--country', 'CMR'], /'--country <code>' argument 'CMR' is invalid/],
      [['merchants', 'create', '--name', 'Awa', '--email', 'awa@example.cm', '--phone', 'call me'], /'--phone <phone>' argument 'call me' is invalid/],
      [['merchants', 'list', '--status', 'HAPPY'], /'--status <status>' argument 'HAPPY' is invalid\. Allowed choices are ACTIVE/],
      [['merchants', 'show', 'nobody'], /value 'nobody' is invalid for argument 'merchant'\. expected the merchant's id \(a UUID\) or e-mail address/],
      [['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'Shop', '--currency', 'XFA'], /'--currency <code>' argument 'XFA' is invalid\. expected an ISO 4217 currency code/],
      [['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'Shop', '--currency', 'XAF', '--webhook-url', 'ftp://x.cm/h'], /'--webhook-url <url>' argument 'ftp:\/\/x\.cm\/h' is invalid\. expected an absolute http\(s\) URL/],
      [['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'S'.repeat(101), '--currency', 'XAF'], /an application name must be 1 to 100 characters/],
      [['apps', 'show', '42'], /value '42' is invalid for argument 'id'\. expected an id \(a UUID/],
      [['keys', 'create', '--app', 'my-app'], /'--app <id>' argument 'my-app' is invalid/],
      [['keys', 'rotate', '--app', APP, '--environment', 'PROD'], /'--environment <env>' argument 'PROD' is invalid\. expected TEST or LIVE/],
      [['keys', 'create', '--app', APP, '--name', 'K'], /a key name must be 2 to 100 characters/],
      [['keys', 'list'], /required option '--app <id>' not specified/],
      [['staff', 'create', '--name', 'Admin', '--email', 'admin@example.cm', '--role', 'OWNER'], /'--role <role>' argument 'OWNER' is invalid\. expected ADMIN or SUPPORT/],
      [['ledger', 'fund', '--app', APP, '--amount', '0'], /'--amount <n>' argument '0' is invalid\. expected a positive integer/],
      [['ledger', 'fund', '--app', APP, '--amount', '1.5'], /argument '1.5' is invalid/],
      [['ledger', 'fund', '--app', APP, '--amount', '1e3'], /argument '1e3' is invalid/],
      [['ledger', 'fund', '--app', APP, '--amount', '9007199254740992'], /argument '9007199254740992' is invalid/],
      [['transactions', 'list', '--app', APP, '--limit', '0'], /'--limit <n>' argument '0' is invalid\. expected an integer from 1 to 500/],
      [['transactions', 'list', '--app', APP, '--limit', '501'], /argument '501' is invalid\. expected an integer from 1 to 500/],
      [['transactions', 'list', '--app', APP, '--status', 'DONE'], /'--status <status>' argument 'DONE' is invalid\. expected one of PENDING, SUCCESS/],
      [['transactions', 'show', 'PI-XYZ'], /value 'PI-XYZ' is invalid for argument 'transaction'\. expected a transaction reference/],
      [['simulate', 'mtn', '--port', '65536'], /'--port <n>' argument '65536' is invalid\. expected an integer from 0 to 65535/],
      [['simulate', 'orange', '--decision-delay-ms', '3600001'], /expected an integer from 0 to 3600000/],
      [['backup'], /required option '--out <file>' not specified/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(message);
      expect(result.out, argv.join(' ')).toBe('');
    }
    // Given neither or both of --app and --merchant: told which to give.
    const neither = await run(['transactions', 'list']);
    expect(neither).toMatchObject({ code: 2, err: 'error: give either --app or --merchant (whose transactions to list)\n' });
  });

  it('accepts the boundaries: a 255-character name, an amount of 1, a limit of 500, lower-case codes', async () => {
    const created = await run(['merchants', 'create', '--name', 'A'.repeat(255), '--email', 'long@example.cm', '--country', 'cm', '--json']);
    expect(created.code, created.err).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({ fullName: 'A'.repeat(255), email: 'long@example.cm' });
    // Valid arguments reach the command (here: an unknown application, exit 1).
    const fund = await run(['ledger', 'fund', '--app', '0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c', '--amount', '1']);
    expect(fund).toMatchObject({ code: 1, err: 'error: no application 0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c\n' });
    const list = await run(['transactions', 'list', '--app', '0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c', '--limit', '500', '--status', 'failed']);
    expect(list).toMatchObject({ code: 1, err: 'error: no application 0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c\n' });
  }, 120_000);
});

describe('progress on a terminal', () => {
  it('redraws one line on stderr and closes it, the result alone on stdout', async () => {
    let out = '';
    let err = '';
    const result = await runCli(['ledger', 'verify'], { DATA_DIR: 'memory://', LOG_LEVEL: 'silent' }, { out: (t) => (out += t), err: (t) => (err += t), isErrTty: true });
    expect(result).toEqual({ exitCode: 0 });
    expect(out).toBe('ledger OK: 0 accounts, 0 entries, 0 lines\n');
    expect(err.startsWith('\rledger verify: check 1/6: Σ of all lines\u001b[K')).toBe(true);
    expect(err.endsWith('\rledger verify: check 6/6: batch reservations\u001b[K\n')).toBe(true);
    expect(err.match(/\n/g)).toHaveLength(1);
  }, 120_000);
});

describe('kolo list and show', () => {
  let db: CliDatabase;
  let env: Record<string, string>;
  let merchantId: string;
  let appId: string;
  let key: string;
  const references: Record<'success' | 'failed', string> = { success: '', failed: '' };

  beforeAll(async () => {
    db = await freshCliDatabase();
    env = { ...db.env, DEMO_SEED: 'false' };
    // The first command of a fresh embedded data directory creates the database: the slow one.
    const merchant = await runKolo(['merchants', 'create', '--name', 'Awa Ngono', '--email', 'awa@example.cm', '--json'], env, 180_000);
    merchantId = JSON.parse(merchant.stdout).id;
    await runKolo(['merchants', 'create', '--name', 'Kofi Mensah', '--email', 'kofi@example.gh'], env);
    const app = await runKolo(['apps', 'create', '--merchant', 'awa@example.cm', '--name', 'Boutique', '--currency', 'XAF', '--json'], env);
    appId = JSON.parse(app.stdout).id;
    key = JSON.parse((await runKolo(['keys', 'create', '--app', appId, '--json'], env)).stdout).plainTextKey;
    expect(key).toMatch(KEY);

    // Two sandbox charges: 237677000001 succeeds, 237677000100 is declined by the payer.
    const server = await startServe({ ...env, POLLER_ENABLED: 'true', SANDBOX_DELAY_MS: '100' });
    try {
      await server.waitUntilHealthy();
      for (const [outcome, payerAccount] of [['success', '237677000001'], ['failed', '237677000100']] as const) {
        const response = await fetch(`${server.baseUrl}/api/v1/pay-in/charge`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount }),
        });
        expect(response.status).toBe(201);
        references[outcome] = ((await response.json()) as { data: { reference: string } }).data.reference;
      }
      for (const [outcome, reference] of Object.entries(references)) {
        const expected = outcome === 'success' ? 'SUCCESS' : 'FAILED';
        for (let i = 0; i < 300; i++) {
          const status = await fetch(`${server.baseUrl}/api/v1/pay-in/check_status/${reference}`, { headers: { 'x-api-key': key } });
          if (((await status.json()) as { data: { status: string } }).data.status === expected) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 420_000);
  afterAll(async () => db?.cleanup());

  it('merchants list and show', async () => {
    const list = await runKolo(['merchants', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const json = JSON.parse(list.stdout);
    expect(json.total).toBe(2);
    expect(json.merchants.map((m: { email: string }) => m.email)).toEqual(['kofi@example.gh', 'awa@example.cm']);
    const limited = await runKolo(['merchants', 'list', '--limit', '1', '--search', 'AWA'], env);
    expect(limited.stdout).toMatch(/^ID\s+EMAIL\s+NAME\s+STATUS\s+CREATED$/m);
    expect(limited.stdout).toMatch(new RegExp(`^${merchantId}\\s+awa@example\\.cm\\s+Awa Ngono\\s+ACTIVE\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`, 'm'));
    expect(limited.stdout).not.toContain('kofi');

    const show = await runKolo(['merchants', 'show', 'AWA@example.cm', '--json'], env);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      merchant: { id: merchantId, email: 'awa@example.cm' },
      applicationCount: 1,
      transactionCount: 2,
      transactionsByStatus: { SUCCESS: { count: 1, volume: 5000 }, FAILED: { count: 1, volume: 5000 } },
    });
    const human = await runKolo(['merchants', 'show', merchantId], env);
    expect(human.stdout).toMatch(/^transactions\s+2 \((FAILED 1, SUCCESS 1|SUCCESS 1, FAILED 1)\)$/m);
    const unknown = await runKolo(['merchants', 'show', 'nobody@example.cm'], env);
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: no merchant nobody@example.cm\n' });
  }, 120_000);

  it('apps list and show, with the active key by prefix only', async () => {
    const list = await runKolo(['apps', 'list', '--merchant', merchantId, '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).applications).toEqual([
      expect.objectContaining({ id: appId, name: 'Boutique', currency: 'XAF', activeKeyPrefix: key.slice(0, 16), activeKeyEnvironment: 'TEST' }),
    ]);
    expect((await runKolo(['apps', 'list', '--merchant', 'kofi@example.gh'], env)).stdout).toBe('no application\n');
    const show = await runKolo(['apps', 'show', appId], env);
    expect(show.stdout).toMatch(new RegExp(`^active key\\s+${key.slice(0, 16)}… \\(TEST\\)$`, 'm'));
    expect(show.stdout + list.stdout).not.toMatch(KEY);
    expect((await runKolo(['apps', 'show', '0b6f3c2e-8a4d-4c1e-9f2a-1d3e5f7a9b0c'], env)).code).toBe(1);
  }, 120_000);

  it('keys list and show: prefix, environment, status and dates, never the key', async () => {
    const rotated = JSON.parse((await runKolo(['keys', 'rotate', '--app', appId, '--environment', 'live', '--name', 'Production', '--json'], env)).stdout);
    const list = await runKolo(['keys', 'list', '--app', appId, '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const keys = JSON.parse(list.stdout).keys;
    expect(keys).toEqual([
      expect.objectContaining({ id: rotated.id, name: 'Production', keyPrefix: rotated.keyPrefix, environment: 'LIVE', status: 'ACTIVE', revokedAt: null }),
      expect.objectContaining({ keyPrefix: key.slice(0, 16), environment: 'TEST', status: 'REVOKED', revokedAt: expect.any(String), lastUsedAt: expect.any(String) }),
    ]);
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(['applicationId', 'createdAt', 'environment', 'id', 'keyPrefix', 'lastUsedAt', 'name', 'revokedAt', 'status'].sort());
    const human = await runKolo(['keys', 'list', '--app', appId], env);
    expect(human.stdout).toMatch(new RegExp(`^${rotated.id}\\s+${rotated.keyPrefix}…\\s+LIVE\\s+ACTIVE\\s+Production\\s+-\\s+\\d{4}-`, 'm'));
    const show = await runKolo(['keys', 'show', keys[1].id], env);
    expect(show.stdout).toMatch(/^status\s+REVOKED$/m);
    expect(show.stdout).toMatch(/^revoked\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/m);
    for (const out of [list.stdout, human.stdout, show.stdout]) {
      expect(out).not.toMatch(KEY);
      expect(out).not.toContain(key.slice(16, 40));
      expect(out).not.toContain(rotated.plainTextKey.slice(16, 40));
    }
  }, 120_000);

  it('transactions list (filters, limit) and show by reference or id, with the status history', async () => {
    const all = await runKolo(['transactions', 'list', '--app', appId, '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    const json = JSON.parse(all.stdout);
    expect(json.total).toBe(2);
    expect(json.transactions.map((t: { reference: string }) => t.reference).sort()).toEqual(Object.values(references).sort());

    const failed = JSON.parse((await runKolo(['transactions', 'list', '--merchant', 'awa@example.cm', '--status', 'failed', '--json'], env)).stdout);
    expect(failed.transactions).toEqual([expect.objectContaining({ reference: references.failed, status: 'FAILED', failureCode: 'REJECTED_BY_PAYER', amount: 5000 })]);
    expect(JSON.parse((await runKolo(['transactions', 'list', '--app', appId, '--environment', 'LIVE', '--json'], env)).stdout)).toEqual({ transactions: [], total: 0 });

    const limited = await runKolo(['transactions', 'list', '--app', appId, '--limit', '1'], env);
    expect(limited.stdout).toMatch(/^REFERENCE\s+TYPE\s+ENV\s+AMOUNT\s+STATUS\s+PROVIDER\s+APPLICATION\s+CREATED$/m);
    expect(limited.stdout).toMatch(/^PI-[0-9A-F]{12}\s+CHARGE\s+TEST\s+5000 XAF\s+(SUCCESS|FAILED)\s+MTN_MOMO_CM\s+Boutique\s+\d{4}-/m);
    expect(limited.stdout).toContain('(1 of 2: --limit for more)');

    const show = await runKolo(['transactions', 'show', references.success.toLowerCase(), '--json'], env);
    expect(show.code, show.stderr).toBe(0);
    const detail = JSON.parse(show.stdout);
    expect(detail).toMatchObject({ reference: references.success, status: 'SUCCESS', amount: 5000, currency: 'XAF', appName: 'Boutique' });
    expect(detail.events.map((e: { toStatus: string }) => e.toStatus).at(-1)).toBe('SUCCESS');
    const byId = await runKolo(['transactions', 'show', detail.id], env);
    expect(byId.stdout).toMatch(new RegExp(`^reference\\s+${references.success}$`, 'm'));
    expect(byId.stdout).toMatch(/^TIME\s+FROM\s+TO\s+CAUSE\s+FAILURE$/m);
    expect(byId.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+PENDING\s+SUCCESS\s+POLL\s+-$/m);
    expect(await runKolo(['transactions', 'show', 'PI-000000000000'], env)).toMatchObject({ code: 1, stderr: 'error: no transaction PI-000000000000\n' });
  }, 120_000);

  it('ledger verify reports each check on stderr, the result alone on stdout', async () => {
    const verify = await runKolo(['ledger', 'verify', '--json'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, discrepancies: [] });
    const lines = verify.stderr.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe('ledger verify: check 1/6: Σ of all lines');
    expect(lines[2]).toMatch(/^ledger verify: check 3\/6: every balance = Σ of its lines \(\d+ accounts\)$/);
    expect(lines[4]).toBe('ledger verify: check 5/6: pay-out reservations');
    expect(lines[5]).toBe('ledger verify: check 6/6: batch reservations');
    expect((await runKolo(['ledger', 'verify', '--no-progress'], env)).stderr).toBe('');
  }, 120_000);
});
