/**
 * Opens what every entry point needs, in order: database → migrations → services. Used by the
 * server, the CLI and the test harness, so all three run exactly the same wiring.
 */
import pino, { type Logger } from 'pino';
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

/** Creates the logger: JSON lines on stdout; secrets in headers are redacted. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.password', '*.plainTextKey'], censor: '[redacted]' },
  });
}

/** Opens the database, applies migrations and builds the services. */
export async function openRuntime(
  config: Config,
  overrides: { clock?: Clock; ids?: Ids; log?: Logger; services?: Partial<Pick<Services, 'connectors' | 'statusListeners'>> } = {},
): Promise<Runtime> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.pgPoolMax });
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
