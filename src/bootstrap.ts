/**
 * Opens what every entry point needs, in order: database → migrations → services. Used by the
 * server, the CLI and the test harness, so all three run exactly the same wiring.
 */
import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import { requestIdOf } from './request-context.ts';
import type { Config } from './config.ts';
import { migrateDatabase, openDatabase, type Database } from './db/client.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { randomIds, type Ids } from './domain/ids.ts';
import { createServices, type Services } from './services.ts';

/** An opened runtime: services plus the database handle to close. */
export interface Runtime {
  services: Services;
  database: Database;
  close(): Promise<void>;
}

/** Object keys whose values are phone numbers: logged masked to their last 3 digits. */
const PHONE_KEYS = ['msisdn', 'payerAccount', 'beneficiaryAccount', 'phone'];
/** Object keys whose values are secrets: never logged. */
const SECRET_KEYS = ['password', 'plainTextKey', 'plainTextWebhookSecret', 'secret', 'apiKey', 'accessToken', 'refreshToken', 'token', 'otp'];

/** `237677000123` → `*********123`: enough to tell two numbers apart in a log, not to dial one. */
export function maskPhone(value: unknown): string {
  const text = String(value);
  return text.length <= 3 ? '***' : `${'*'.repeat(text.length - 3)}${text.slice(-3)}`;
}

/**
 * Creates the logger: JSON lines on stdout (or `destination`), those of a request's logger
 * (`requestLogger`, request-context.ts) with its `requestId`; secrets in headers and known secret
 * fields are redacted, phone numbers masked to their last 3 digits. `isReadable`: the same lines
 * formatted for a person by pino-pretty (time, level, message, then the fields), after redaction.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream, { isReadable = false }: { isReadable?: boolean } = {}): Logger {
  const paths = [
    'req.headers["x-api-key"]',
    'req.headers.authorization',
    'req.headers.cookie',
    ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`]),
    ...PHONE_KEYS.flatMap((k) => [k, `*.${k}`]),
  ];
  const options: LoggerOptions = {
    level,
    // pino passes the logger that writes: a request's (`requestLogger`) carries its id.
    mixin(_object, _level, logger) {
      const requestId = requestIdOf(logger);
      return requestId === undefined ? {} : { requestId };
    },
    redact: {
      paths,
      censor: (value, path) => (PHONE_KEYS.includes(path[path.length - 1]!) ? maskPhone(value) : '[redacted]'),
    },
  };
  // Synchronous like pino's own stdout destination: no line is lost when the process exits.
  const target = destination ?? (isReadable ? pinoPretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) : undefined);
  return target ? pino(options, target) : pino(options);
}

/** Opens the database, applies migrations and builds the services. */
export async function openRuntime(
  config: Config,
  overrides: { clock?: Clock; ids?: Ids; log?: Logger; services?: Partial<Pick<Services, 'connectors' | 'statusListeners'>> } = {},
): Promise<Runtime> {
  // Readable lines for a person at a terminal in development; JSON lines for everything else
  // (production, log collectors, tests). fd 1 is the stdout pino writes to.
  const log = overrides.log ?? createLogger(config.logLevel, undefined, { isReadable: !config.isProduction && isatty(1) });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.pgPoolMax, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
  try {
    await migrateDatabase(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const services = createServices({
    config,
    db: database.db,
    clock: overrides.clock ?? systemClock,
    ids: overrides.ids ?? randomIds,
    log,
    ...overrides.services,
  });
  return { services, database, close: () => database.close() };
}
