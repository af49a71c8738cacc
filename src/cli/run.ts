/**
 * The `kolo` command: `serve`, `migrate`, `merchants create`, `apps create`, `keys create`,
 * `keys rotate`, `staff create`, `connectors check`, `simulate mtn|orange|mpesa|wave`, `ledger verify` (exit 1 on a
 * broken invariant), `ledger fund`. Every command prints JSON with `--json`; only `keys create` and `keys rotate`
 * ever print a key's full value. With the embedded database these run while the server is
 * stopped (PGlite allows one process per data directory); with PostgreSQL at any time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openRuntime, type Runtime } from '../bootstrap.ts';
import { createMerchant, findMerchant } from '../accounts/merchants.ts';
import { createApplication, findApplication } from '../accounts/applications.ts';
import { createApiKey, rotateApiKey } from '../accounts/api-keys.ts';
import { demoBanner, seedDemo } from '../accounts/demo-seed.ts';
import { ApiError } from '../domain/errors.ts';
import { createAccount } from '../dashboard/accounts.ts';
import { ensureConfiguredAdmin } from '../dashboard/first-admin.ts';
import { startServer, type RunningServer } from '../server.ts';
import { backupDataDir, restoreDataDir } from '../db/backup.ts';
import { checkSharedSecrets, forgetSharedSecrets, SharedSecretMismatchError } from '../shared-secrets.ts';
import { systemClock } from '../domain/clock.ts';
import { callbackBaseUrlWarning, createLiveConnectors } from '../connectors/live-connectors.ts';
import { startMtnSimulator } from '../simulators/mtn-momo/mtn-simulator.ts';
import { startOrangeSimulator } from '../simulators/orange-money/orange-simulator.ts';
import { startMpesaSimulator } from '../simulators/mpesa/mpesa-simulator.ts';
import { startWaveSimulator } from '../simulators/wave/wave-simulator.ts';
import { verifyLedger } from '../ledger/verify-ledger.ts';
import { fundSandbox } from '../payments/transaction-postings.ts';

/** Where the CLI writes. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** A long-running command other than `serve` (a simulator): the caller stops it on a signal. */
export interface RunningService {
  stop(): Promise<void>;
}

/** A `serve` or `simulate` that keeps running: the caller stops it on a signal. */
export type CliResult = { exitCode: number } | { server: RunningServer } | { service: RunningService };

const USAGE = `Usage: kolo <command> [options]

Commands:
  serve                                   start the service (default port 8080)
  migrate                                 apply database migrations and exit
  merchants create --name N --email E [--phone P] [--country CC]
  apps create --merchant ID|EMAIL --name N --currency XAF [--webhook-url U] [--success-url U] [--cancel-url U]
  keys create --app ID [--name N] [--environment TEST|LIVE]
  keys rotate --app ID [--name N] [--environment TEST|LIVE]
  staff create --name N --email E [--role ADMIN|SUPPORT]   password from KOLO_STAFF_PASSWORD, else generated and shown once
  secrets forget                          PostgreSQL: forget the recorded fingerprints of the shared secrets
                                          (after changing JWT_SECRET, WEBHOOK_ENCRYPTION_KEY or CHECKOUT_CSRF_SECRET everywhere)
  backup --out FILE                       embedded database only, server stopped: DATA_DIR as a .tar.gz
  restore --from FILE                     embedded database only, server stopped: DATA_DIR from a backup
                                          (a non-empty DATA_DIR is moved aside, never overwritten)
  connectors check                        fetch a token from each configured operator (secrets masked)
  simulate mtn|orange|mpesa|wave [--port N] [--host H] [--decision-delay-ms N]
           [--webhook-url URL]            (wave: where its signed webhooks go, e.g. <PUBLIC_BASE_URL>/api/v1/callbacks/wave)
                                          run an operator simulator (tests and rehearsals only)
  ledger verify                           check Σ lines = 0 and every balance = Σ of its lines (exit 1 and the first discrepancies otherwise)
  ledger fund --app ID --amount N         top up an application's TEST available balance (base units, application currency)

Options:
  --json   print the result as JSON
  --help   show this help
`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  country: { type: 'string' },
  merchant: { type: 'string' },
  currency: { type: 'string' },
  'webhook-url': { type: 'string' },
  'success-url': { type: 'string' },
  'cancel-url': { type: 'string' },
  app: { type: 'string' },
  environment: { type: 'string' },
  role: { type: 'string' },
  out: { type: 'string' },
  from: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'decision-delay-ms': { type: 'string' },
  amount: { type: 'string' },
} as const;

class UsageError extends Error {}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

/** Runs the command in `argv` with configuration from `env`. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<CliResult> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  const { values, positionals } = parsed;
  const command = positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    io.out(USAGE);
    return { exitCode: values.help || command === 'help' ? 0 : 2 };
  }
  const print = (human: string, json: unknown) => io.out(values.json ? `${JSON.stringify(json, null, 2)}\n` : `${human}\n`);

  if (command === 'simulate mtn' || command === 'simulate orange' || command === 'simulate mpesa' || command === 'simulate wave') {
    // Needs no configuration nor database: a simulator is the operator's side.
    const port = Number(values.port ?? '0');
    const delay = values['decision-delay-ms'] === undefined ? undefined : Number(values['decision-delay-ms']);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      io.err('--port must be an integer from 0 to 65535\n');
      return { exitCode: 2 };
    }
    if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0 && delay <= 3_600_000)) {
      io.err('--decision-delay-ms must be an integer from 0 to 3600000\n');
      return { exitCode: 2 };
    }
    const overrides = { port, host: values.host ?? '127.0.0.1', ...(delay !== undefined ? { decisionDelayMs: delay } : {}) };
    try {
      const sim =
        command === 'simulate mtn'
          ? await startMtnSimulator(overrides)
          : command === 'simulate orange'
            ? await startOrangeSimulator(overrides)
            : command === 'simulate mpesa'
              ? await startMpesaSimulator(overrides)
              : await startWaveSimulator({ ...overrides, webhookUrl: values['webhook-url'] ?? null });
      const names: Record<string, string> = { 'simulate mtn': 'MTN MoMo Open API', 'simulate orange': 'Orange Money Cameroon OM API', 'simulate mpesa': 'M-Pesa Daraja' };
      const which = names[command] ?? 'Wave';
      print(`${which} simulator listening on ${sim.url} (docs/going-live.md, "Check and rehearse")`, { simulator: command.split(' ')[1], url: sim.url });
      return { service: { stop: () => sim.close() } };
    } catch (error) {
      io.err(`error: ${(error as Error).message}\n`);
      return { exitCode: 1 };
    }
  }

  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    io.err(`${(error as Error).message}\n`);
    return { exitCode: 2 };
  }

  if (command === 'connectors check') {
    const live = createLiveConnectors(config, { fetch: (input, init) => globalThis.fetch(input, init), clock: systemClock, uuid: randomUUID });
    if (live.size === 0) {
      print('no operator connector configured (set MTN_MOMO_BASE_URL, ORANGE_MONEY_BASE_URL, MPESA_BASE_URL or WAVE_BASE_URL and their credentials)', { connectors: [] });
      return { exitCode: 1 };
    }
    const results = [];
    for (const [rail, connector] of live) {
      for (const line of (await connector.check?.()) ?? []) results.push({ rail, ...line });
    }
    const warning = callbackBaseUrlWarning(config);
    const human = results.map((r) => `${r.ok ? 'OK  ' : 'FAIL'} ${r.rail} ${r.product}: ${r.detail}`);
    if (warning) human.push(`WARN ${warning}`);
    print(human.join('\n'), { connectors: results, callbackBaseUrl: config.callbackBaseUrl, warning });
    return { exitCode: results.every((r) => r.ok) ? 0 : 1 };
  }

  if (command === 'serve') {
    const runtime = await openRuntime(config);
    try {
      await checkSharedSecrets(runtime.services, runtime.database);
    } catch (error) {
      if (!(error instanceof SharedSecretMismatchError)) throw error;
      runtime.services.log.fatal({ err: error }, 'refusing to start: shared secrets differ');
      io.err(`refusing to start: ${error.message}\n`);
      await runtime.close();
      return { exitCode: 1 };
    }
    const seed = config.demoSeed ? await seedDemo(runtime.services) : null;
    const admin = await ensureConfiguredAdmin(runtime.services);
    if (admin) runtime.services.log.info({ email: admin }, 'first ADMIN created from ADMIN_EMAIL');
    const callbackWarning = callbackBaseUrlWarning(config);
    if (callbackWarning) runtime.services.log.warn({ callbackBaseUrl: config.callbackBaseUrl }, callbackWarning);
    const server = await startServer(runtime);
    if (seed) io.out(demoBanner(seed, config.publicBaseUrl));
    runtime.services.log.info({ url: server.url, database: runtime.database.kind }, 'Kolo is listening');
    return { server };
  }

  if (command === 'backup' || command === 'restore') {
    if (config.databaseUrl) {
      io.err(`${command} is for the embedded database; with PostgreSQL use pg_dump / pg_restore (README, "Backups")\n`);
      return { exitCode: 2 };
    }
    if (config.dataDir.startsWith('memory://')) {
      io.err(`DATA_DIR is ${config.dataDir}: there is nothing on disk to ${command}\n`);
      return { exitCode: 2 };
    }
    try {
      if (command === 'backup') {
        const result = await backupDataDir(config.dataDir, required(values.out, 'out'));
        print(`backup of ${config.dataDir} written to ${result.file} (${result.bytes} bytes)`, { ...result, dataDir: config.dataDir });
      } else {
        const result = await restoreDataDir(required(values.from, 'from'), config.dataDir, new Date());
        const moved = result.previousMovedTo ? ` (previous data moved to ${result.previousMovedTo})` : '';
        print(`${config.dataDir} restored from ${values.from}${moved}`, result);
      }
      return { exitCode: 0 };
    } catch (error) {
      io.err(`${error instanceof UsageError ? '' : 'error: '}${(error as Error).message}\n`);
      return { exitCode: error instanceof UsageError ? 2 : 1 };
    }
  }

  const known = ['secrets forget', 'migrate', 'merchants create', 'apps create', 'keys create', 'keys rotate', 'staff create', 'ledger verify', 'ledger fund'];
  if (!known.includes(command)) {
    io.err(`unknown command: ${command}\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  let runtime: Runtime | undefined;
  try {
    runtime = await openRuntime({ ...config, logLevel: 'warn' });
    const { services } = runtime;
    switch (command) {
      case 'secrets forget': {
        const removed = await forgetSharedSecrets(services);
        print(`${removed} recorded secret fingerprint(s) forgotten; the next instance to start records its own`, { forgotten: removed });
        break;
      }
      case 'migrate':
        print(`migrations applied (${runtime.database.kind})`, { migrated: true, database: runtime.database.kind });
        break;
      case 'merchants create': {
        const merchant = await createMerchant(services, {
          fullName: required(values.name, 'name'),
          email: required(values.email, 'email'),
          phone: values.phone,
          country: values.country,
        });
        print(`merchant ${merchant.id} created (${merchant.email})`, merchant);
        break;
      }
      case 'apps create': {
        const merchant = await findMerchant(services.db, required(values.merchant, 'merchant'));
        if (!merchant) throw new UsageError(`no merchant ${values.merchant}`);
        const currency = required(values.currency, 'currency').toUpperCase();
        if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency must be an ISO 4217 code such as XAF');
        const app = await createApplication(services, {
          merchantId: merchant.id,
          name: required(values.name, 'name'),
          currency,
          webhookUrl: values['webhook-url'],
          successUrl: values['success-url'],
          cancelUrl: values['cancel-url'],
        });
        print(`application ${app.id} created (${app.name}, ${app.currency})`, app);
        break;
      }
      case 'keys create':
      case 'keys rotate': {
        const app = await findApplication(services.db, required(values.app, 'app'));
        if (!app) throw new UsageError(`no application ${values.app}`);
        const environment = (values.environment ?? 'TEST').toUpperCase();
        if (environment !== 'TEST' && environment !== 'LIVE') throw new UsageError('--environment must be TEST or LIVE');
        const input = { applicationId: app.id, name: values.name ?? `${environment} key`, environment: environment as 'TEST' | 'LIVE' };
        const key = command === 'keys create' ? await createApiKey(services, input) : await rotateApiKey(services, input);
        print(`${key.environment} key ${key.keyPrefix}… for application ${app.id}\n${key.plainTextKey}\n(shown once: store it now)`, key);
        break;
      }
      case 'ledger verify': {
        const report = await verifyLedger(services.db);
        const summary = `${report.accounts} accounts, ${report.entries} entries, ${report.lines} lines`;
        if (report.ok) {
          print(`ledger OK: ${summary}`, report);
        } else {
          print(`ledger BROKEN: ${summary}\n${report.discrepancies.map((d) => `  ${d.check}: ${d.detail}`).join('\n')}`, report);
          return { exitCode: 1 };
        }
        break;
      }
      case 'ledger fund': {
        const app = await findApplication(services.db, required(values.app, 'app'));
        if (!app) throw new UsageError(`no application ${values.app}`);
        const amountText = required(values.amount, 'amount');
        const amount = Number(amountText);
        if (!/^[0-9]+$/.test(amountText) || !Number.isSafeInteger(amount) || amount <= 0) {
          throw new UsageError('--amount must be a positive integer in the currency base unit');
        }
        await fundSandbox(services, app.id, 'TEST', app.currency, amount);
        print(`TEST balance of application ${app.id} funded with ${amount} ${app.currency}`, {
          applicationId: app.id,
          environment: 'TEST',
          currency: app.currency,
          amount,
        });
        break;
      }
      case 'staff create': {
        const role = (values.role ?? 'ADMIN').toUpperCase();
        if (role !== 'ADMIN' && role !== 'SUPPORT') throw new UsageError('--role must be ADMIN or SUPPORT');
        const given = env.KOLO_STAFF_PASSWORD;
        if (given !== undefined && (given.length < 12 || given.length > 128)) throw new UsageError('KOLO_STAFF_PASSWORD must be 12 to 128 characters');
        // Never a command-line flag: arguments are visible to every user of the machine.
        const password = given ?? randomBytes(18).toString('base64url');
        const staff = await createAccount(services, {
          fullName: required(values.name, 'name'),
          email: required(values.email, 'email'),
          password,
          role,
          status: 'ACTIVE',
          emailVerified: true,
        });
        const shown = given === undefined ? `\npassword (shown once): ${password}` : '';
        print(`${role} ${staff.id} created (${staff.email})${shown}`, {
          id: staff.id,
          email: staff.email,
          role,
          ...(given === undefined ? { password } : {}),
        });
        break;
      }
    }
    return { exitCode: 0 };
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n`);
      return { exitCode: 2 };
    }
    if (error instanceof ApiError) {
      const detail = error.data ? ` ${JSON.stringify(error.data)}` : '';
      io.err(`${error.code}: ${error.message}${detail}\n`);
      return { exitCode: 1 };
    }
    io.err(`error: ${(error as Error).message}\n`);
    return { exitCode: 1 };
  } finally {
    await runtime?.close();
  }
}
