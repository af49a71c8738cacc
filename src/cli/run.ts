/**
 * The `kolo` command: its commands, options, help and exit codes (commander), each command's
 * work in `commands/`, imported only when that command runs, so that `--help`, `--version` and a
 * mistyped command answer without loading the server, the database or the connectors.
 *
 * Exit codes: 0 done; 1 the command failed (its message on stderr; `ledger verify` found a
 * broken invariant; the data directory is held by another process); 2 a usage error (unknown
 * command or option, missing or invalid argument, bad configuration variable). Every command
 * that prints a result prints it as JSON with `--json`; only `keys create` and `keys rotate`
 * ever print a key's full value. With the embedded database, the commands that open it refuse
 * while another process (a running `kolo serve`) holds its data directory (db/data-dir-lock.ts).
 */
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, Help, Option } from '@commander-js/extra-typings';
import { DataDirBusyError } from '../db/data-dir-lock.ts';
import { ApiError } from '../domain/errors.ts';
import { CommandError, UsageError, type CliContext, type CliIo, type CliResult } from './context.ts';
import * as v from './validate.ts';
import { operators } from '../connectors/operators.ts';

export type { CliIo, CliResult, RunningService } from './context.ts';

const JSON_HELP = 'print the result as JSON';
const PROGRESS_HELP = 'no progress lines on stderr';

/** The version in package.json (two levels up from both src/cli and dist/cli). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** The `kolo` program bound to `ctx` (its environment, output and result slot). */
export function buildProgram(ctx: CliContext) {
  const program = new Command('kolo')
    .description('Kolo: self-hostable mobile-money payment gateway. Configuration comes from environment variables (README, "Configuration").')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .configureHelp({
      // Commander lists required options like the others: say which ones are.
      optionDescription: (option) => {
        const base = new Help().optionDescription(option);
        return option.mandatory ? `${base} (required)` : base;
      },
    })
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError()
    .exitOverride();
  program.addHelpText(
    'after',
    `
Exit codes: 0 done, 1 failed, 2 usage error.
With the embedded database (DATA_DIR), every command that opens it refuses while a server runs on
the same directory (one process per data directory): stop it first, or use PostgreSQL (DATABASE_URL).

Examples:
  kolo merchants create --name "Boutique Awa" --email awa@example.com
  kolo apps create --merchant awa@example.com --name "Site web" --currency XAF
  kolo keys create --app <applicationId> --environment TEST
  kolo transactions list --app <applicationId> --status FAILED --limit 50`,
  );

  program
    .command('serve')
    .description('start the service (PORT, default 8080)')
    .action(async () => (await import('./commands/serve.ts')).serve(ctx));

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).migrate(ctx, opts));

  const merchants = program.command('merchants').description('merchant accounts: create, list, show');
  merchants
    .command('create')
    .description('create an ACTIVE merchant account (it sets its dashboard password with "Mot de passe oublié ?")')
    .requiredOption('--name <name>', 'full name (1 to 255 characters)', v.personName)
    .requiredOption('--email <email>', 'e-mail address (unique)', v.email)
    .option('--phone <phone>', 'phone number, e.g. +237677000001', v.phone)
    .option('--country <code>', 'ISO 3166 alpha-2 country code, e.g. CM', v.country)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).merchantsCreate(ctx, opts));
  merchants
    .command('list')
    .description('merchant accounts, newest first')
    .addOption(new Option('--status <status>', 'only this account status').choices(['ACTIVE', 'INACTIVE', 'SUSPENDED', 'PENDING_VERIFICATION', 'DELETED'] as const))
    .option('--search <text>', 'part of the e-mail or name')
    .option('--limit <n>', 'at most this many (1 to 500)', v.integer(1, 500), 50)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).merchantsList(ctx, opts));
  merchants
    .command('show')
    .description('a merchant, its application count and its transactions by status')
    .argument('<merchant>', 'id (UUID) or e-mail address', v.merchantRef)
    .option('--json', JSON_HELP)
    .action(async (merchant, opts) => (await import('./commands/accounts.ts')).merchantsShow(ctx, merchant, opts));

  const apps = program.command('apps').description('applications: create, list, show');
  apps
    .command('create')
    .description("create an application (owns API keys, a webhook URL and a currency)")
    .requiredOption('--merchant <merchant>', "the merchant's id (UUID) or e-mail address", v.merchantRef)
    .requiredOption('--name <name>', 'name (1 to 100 characters, unique for the merchant)', v.applicationName)
    .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. XAF', v.currency)
    .option('--webhook-url <url>', 'where webhooks are sent', v.httpUrl)
    .option('--success-url <url>', "default return URL after a paid checkout", v.httpUrl)
    .option('--cancel-url <url>', 'default return URL after a cancelled checkout', v.httpUrl)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).appsCreate(ctx, opts));
  apps
    .command('list')
    .description('applications, oldest first (deleted ones left out)')
    .option('--merchant <merchant>', "only this merchant's (id or e-mail)", v.merchantRef)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).appsList(ctx, opts));
  apps
    .command('show')
    .description('an application and its active key (prefix only)')
    .argument('<id>', 'application id (UUID)', v.uuid)
    .option('--json', JSON_HELP)
    .action(async (id, opts) => (await import('./commands/accounts.ts')).appsShow(ctx, id, opts));

  const keys = program.command('keys').description('API keys: create, rotate, list, show (only create and rotate print a key, once)');
  for (const how of ['create', 'rotate'] as const) {
    keys
      .command(how)
      .description(
        how === 'create'
          ? 'issue an API key for an application without an active one; prints it once'
          : "revoke the application's active key and issue a new one, in one transaction; prints it once",
      )
      .requiredOption('--app <id>', 'application id (UUID)', v.uuid)
      .option('--name <name>', 'key name (2 to 100 characters; default "<ENVIRONMENT> key")', v.keyName)
      .option('--environment <env>', 'TEST or LIVE', v.environment, 'TEST' as const)
      .option('--json', JSON_HELP)
      .action(async (opts) => (await import('./commands/accounts.ts')).keysIssue(ctx, how, opts));
  }
  keys
    .command('list')
    .description("an application's keys, newest first: prefix, environment, status, dates (never the key)")
    .requiredOption('--app <id>', 'application id (UUID)', v.uuid)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).keysList(ctx, opts));
  keys
    .command('show')
    .description('one key: prefix, environment, status, dates (never the key)')
    .argument('<id>', 'key id (UUID)', v.uuid)
    .option('--json', JSON_HELP)
    .action(async (id, opts) => (await import('./commands/accounts.ts')).keysShow(ctx, id, opts));

  const transactions = program.command('transactions').description('transactions: list, show');
  transactions
    .command('list')
    .description("a merchant's or an application's transactions, newest first")
    .option('--app <id>', 'application id (UUID)', v.uuid)
    .option('--merchant <merchant>', "merchant's id (UUID) or e-mail address", v.merchantRef)
    .option('--status <status>', 'PENDING, SUCCESS, FAILED, CANCELLED or REFUNDED', v.transactionStatus)
    .option('--environment <env>', 'TEST or LIVE', v.environment)
    .option('--limit <n>', 'at most this many (1 to 500)', v.integer(1, 500), 20)
    .option('--json', JSON_HELP)
    .addHelpText('after', '\nOne of --app and --merchant is required.')
    .action(async (opts) => (await import('./commands/transactions.ts')).transactionsList(ctx, opts));
  transactions
    .command('show')
    .description('one transaction and its status history')
    .argument('<transaction>', 'reference (PI-…, PO-…, FC-…) or id (UUID)', v.transactionRef)
    .option('--json', JSON_HELP)
    .action(async (ref, opts) => (await import('./commands/transactions.ts')).transactionsShow(ctx, ref, opts));

  program
    .command('staff')
    .description('staff accounts of the dashboard')
    .command('create')
    .description('create a staff account; password from KOLO_STAFF_PASSWORD (12 to 128 characters), else generated and shown once')
    .requiredOption('--name <name>', 'full name', v.personName)
    .requiredOption('--email <email>', 'e-mail address', v.email)
    .option('--role <role>', 'ADMIN or SUPPORT', v.staffRole, 'ADMIN' as const)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).staffCreate(ctx, opts));

  program
    .command('secrets')
    .description('fingerprints of the shared secrets (PostgreSQL, several instances)')
    .command('forget')
    .description('forget the recorded fingerprints (after changing JWT_SECRET, WEBHOOK_ENCRYPTION_KEY or CHECKOUT_CSRF_SECRET everywhere)')
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/accounts.ts')).secretsForget(ctx, opts));

  program
    .command('backup')
    .description('embedded database only, server stopped: write DATA_DIR as a .tar.gz (mode 0600)')
    .requiredOption('--out <file>', 'the file to write', v.filePath)
    .option('--no-progress', PROGRESS_HELP)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/backup.ts')).backup(ctx, opts));
  program
    .command('restore')
    .description('embedded database only, server stopped: DATA_DIR from a backup (a non-empty DATA_DIR is moved aside, never overwritten)')
    .requiredOption('--from <file>', 'a file written by kolo backup', v.filePath)
    .option('--no-progress', PROGRESS_HELP)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/backup.ts')).restore(ctx, opts));

  program
    .command('connectors')
    .description('operator connectors')
    .command('check')
    .description('fetch a token from each configured operator (secrets masked); exit 1 if one fails')
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/connectors.ts')).connectorsCheck(ctx, opts));

  const simulate = program.command('simulate').description('run an operator simulator (tests and rehearsals only)');
  for (const { simulator } of operators) {
    const command = simulate
      .command(simulator.command)
      .description(`the ${simulator.title} simulator`)
      .option('--port <n>', 'port (0: any free one)', v.port, 0)
      .option('--host <host>', 'address to listen on', v.host, '127.0.0.1')
      .option('--decision-delay-ms <ms>', "how long the simulated customer takes to answer (0 to 3600000)", v.integer(0, 3_600_000))
      .option('--json', JSON_HELP);
    if (simulator.hasWebhookUrl) {
      command
        .option('--webhook-url <url>', `where its signed webhooks go, e.g. <PUBLIC_BASE_URL>/api/v1/callbacks/${simulator.command}`, v.httpUrl)
        .action(async (opts) => (await import('./commands/simulate.ts')).simulate(ctx, simulator, opts));
    } else {
      command.action(async (opts) => (await import('./commands/simulate.ts')).simulate(ctx, simulator, opts));
    }
  }

  program
    .command('listen')
    .description("forward a Kolo's events (GET /api/v1/events) to a local URL, signed as its webhooks are; runs until Ctrl-C")
    .requiredOption('--forward-to <url>', 'where each event is POSTed, e.g. http://localhost:3000/webhooks/kolo', v.httpUrl)
    .option('--api-key <key>', 'API key of the application whose events to follow (default: KOLO_API_KEY)', v.apiKey)
    .option('--base-url <url>', 'the Kolo to follow (default: PUBLIC_BASE_URL, else http://localhost:8080)', v.httpUrl)
    .option('--secret <whsec>', 'signing secret to use (default: a new one, printed at start)', v.webhookSecret)
    .option('--from-start', 'forward every event kept, not only those from now on')
    .option('--json', 'print one JSON object per line')
    .addHelpText('after', '\nEach delivery prints a line: time, event id, event, HTTP status (or error) of the local URL, duration.')
    .action(async (opts) => (await import('./commands/listen.ts')).listen(ctx, opts));
  program
    .command('trigger')
    .description('create the sandbox transaction (TEST key) that makes a Kolo emit an event, through its merchant API; prints its reference')
    .addArgument(
      new Argument('<event>', 'the event').choices(['payment.success', 'payment.failed', 'payout.success', 'payout.failed', 'payment.refunded', 'refund.success'] as const),
    )
    .option('--api-key <key>', 'a TEST key of the application (default: KOLO_API_KEY)', v.apiKey)
    .option('--base-url <url>', 'the Kolo to call (default: PUBLIC_BASE_URL, else http://localhost:8080)', v.httpUrl)
    .option('--currency <code>', "the application's currency (picks the sandbox rail: XAF, XOF, KES, GHS, UGX)", v.currency, 'XAF')
    .option('--json', JSON_HELP)
    .action(async (event, opts) => (await import('./commands/trigger.ts')).trigger(ctx, event, opts));

  const ledger = program.command('ledger').description('the double-entry ledger');
  ledger
    .command('verify')
    .description('check Σ lines = 0 and every balance = Σ of its lines (exit 1 and the first discrepancies otherwise)')
    .option('--no-progress', PROGRESS_HELP)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/ledger.ts')).ledgerVerify(ctx, opts));
  ledger
    .command('fund')
    .description("top up an application's TEST available balance")
    .requiredOption('--app <id>', 'application id (UUID)', v.uuid)
    .requiredOption('--amount <n>', "positive integer in the base unit of the application's currency", v.amount)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/ledger.ts')).ledgerFund(ctx, opts));

  program
    .command('reconcile')
    .description("compare a LIVE rail's operator records over a period with the ledger and what merchants were told; open a case per mismatch")
    .requiredOption('--rail <code>', 'rail code, e.g. WAVE_SN, MTN_MOMO_CM', v.railCode)
    .requiredOption('--from <iso>', 'start of the period (included), ISO 8601 with offset', v.instant)
    .requiredOption('--to <iso>', 'end of the period (excluded), ISO 8601 with offset; 31 days at most', v.instant)
    .option('--file <csv>', "the operator's statement export (MTN, Orange); without it, the operator's API (Wave)", v.filePath)
    .option('--json', JSON_HELP)
    .action(async (opts) => (await import('./commands/reconcile.ts')).reconcile(ctx, opts));

  return program;
}

/** The exit code of a command that threw, after printing why (commander prints its own errors). */
function exitCodeOf(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    return 2;
  }
  if (error instanceof UsageError) {
    io.err(`error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof CommandError || error instanceof DataDirBusyError) {
    io.err(`error: ${error.message}\n`);
    return 1;
  }
  if (error instanceof ApiError) {
    const detail = error.data ? ` ${JSON.stringify(error.data)}` : '';
    io.err(`error: ${error.code}: ${error.message}${detail}\n`);
    return 1;
  }
  io.err(`error: ${(error as Error).message}\n`);
  return 1;
}

/** Runs the command in `argv` (without node and the script) with configuration from `env`. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<CliResult> {
  const ctx: CliContext = { env, io, result: { exitCode: 0 } };
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
  } catch (error) {
    return { exitCode: exitCodeOf(error, io) };
  }
  return ctx.result;
}
