/**
 * A migrated database of its own for a test file that needs no running Kolo: PGlite in memory,
 * or a fresh PostgreSQL database when `TEST_DATABASE_URL` is set (dropped after the file).
 */
import { afterAll, beforeAll } from 'vitest';
import { migrateDatabase, openDatabase, type Database } from '../../src/db/client.ts';
import { freshPostgresDatabase } from '../harness.ts';

/**
 * Registers the file's hooks that open (`name`: the PostgreSQL database's prefix) and close the
 * database; returns its reader, valid inside the tests.
 */
export function useTestDatabase(name: string): () => Database {
  let database: Database | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    const pg = adminUrl ? await freshPostgresDatabase(adminUrl, name) : null;
    drop = pg?.drop;
    database = await openDatabase({ databaseUrl: pg?.url, dataDir: 'memory://' });
    await migrateDatabase(database);
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });
  return () => {
    if (!database) throw new Error('the test database is opened in beforeAll');
    return database;
  };
}
