/**
 * The database handle every query module takes (`Db`): a Drizzle database over one connection
 * source, carrying Kolo's own state of that source (`DatabaseConnection`): the driver client its
 * hand-written statements run on, the pool for generic-plan statements, and its batchers. Nothing
 * of it lives in a module-level registry, and nothing reads Drizzle's internals: Kolo opens its
 * transactions itself (`transaction`), over a connection it holds, so a transaction's handle
 * carries that connection as a database handle carries its pool.
 */
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';

/** What a PGlite instance and a PGlite transaction both answer: a query with bound parameters. */
export interface PgliteQueryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

/** An embedded PGlite instance: a queryable that can open a transaction (serialised with every other query). */
export interface PgliteInstance extends PgliteQueryable {
  transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
}

/**
 * Kolo's state of one database handle.
 * - `client`: where statements run: the node-postgres pool or PGlite instance of a database
 *   handle; the pool client (PostgreSQL) or PGlite transaction of a transaction's handle.
 * - `genericPlanPool`: on PostgreSQL, the database's pool whose connections force generic plans
 *   (statement.ts); only on a database handle, since a transaction's statements run on its own
 *   connection.
 * - `inTransaction`: the handle is a transaction's; `transaction` on it opens a savepoint.
 * - `kept`: what is kept for the life of this handle, by its definition's key (`keptBy`): its
 *   batchers (batch.ts `perDatabase`) and caches of what the database is known to hold.
 * - `over`: a Drizzle database over another client of the same driver (a transaction's).
 */
export interface DatabaseConnection {
  readonly client: pg.Pool | pg.PoolClient | PgliteQueryable;
  readonly genericPlanPool: pg.Pool | undefined;
  readonly inTransaction: boolean;
  readonly kept: Map<object | symbol, unknown>;
  /**
   * Caches of committed rows that never change (`knownBy`), shared by a database handle and the
   * handles of its transactions.
   */
  readonly known: Map<object | symbol, unknown>;
  readonly over: (client: pg.PoolClient | PgliteQueryable) => DrizzleDb;
  savepoints: number;
}

/** Drizzle's database type for both drivers (no relational schema). */
export type DrizzleDb = PgDatabase<PgQueryResultHKT, Record<string, never>>;

const connectionKey = Symbol('kolo.databaseConnection');

/**
 * The database handle every query module takes, whatever the driver, and whether it is a
 * database's or an open transaction's: Drizzle's query builder plus its `DatabaseConnection`.
 * Drizzle's own `transaction` is left out on purpose: transactions are opened with `transaction`
 * below, so that their handles carry their connection.
 */
export type Db = Omit<DrizzleDb, 'transaction'> & { readonly [connectionKey]: DatabaseConnection };

/** `drizzle` (a Drizzle database over `connection.client`) as a `Db` carrying `connection`. */
export function databaseHandle(drizzle: DrizzleDb, connection: Omit<DatabaseConnection, 'kept' | 'known' | 'savepoints'> & { known?: Map<object | symbol, unknown> }): Db {
  return Object.assign(drizzle, { [connectionKey]: { ...connection, kept: new Map(), known: connection.known ?? new Map(), savepoints: 0 } }) as unknown as Db;
}

/** The state `db` carries (see `DatabaseConnection`). */
export function connectionOf(db: Db): DatabaseConnection {
  return db[connectionKey];
}

/**
 * What `db` keeps under `key` for as long as the handle lives, made by `create` on first use:
 * state that belongs to one database (a batcher, a cache), kept by its handle rather than in a
 * module's registry. A transaction's handle keeps its own, apart from its database's.
 */
export function keptBy<T>(db: Db, key: object | symbol, create: () => T): T {
  const { kept } = connectionOf(db);
  let value = kept.get(key) as T | undefined;
  if (value === undefined) kept.set(key, (value = create()));
  return value;
}

/**
 * What `db`'s database is known to hold under `key`, created by `create` on first use and shared
 * by the database handle and its transactions' handles: only for rows committed and never changed
 * or deleted afterwards (a ledger account's id, say), since every transaction reads it.
 */
export function knownBy<T>(db: Db, key: object | symbol, create: () => T): T {
  const { known } = connectionOf(db);
  let value = known.get(key) as T | undefined;
  if (value === undefined) known.set(key, (value = create()));
  return value;
}

/**
 * Runs `work` in one database transaction and returns what it returns: committed when `work`
 * resolves, rolled back (and `work`'s error rethrown) when it throws. `work` gets the
 * transaction's handle; everything it runs, Drizzle queries and statements alike, runs on the
 * transaction's connection. Called with a transaction's handle, it opens a savepoint there instead
 * (released when `work` resolves, rolled back to when it throws), as Drizzle's nested
 * transactions do.
 * On PostgreSQL the transaction holds one pool connection until it ends (released, or destroyed
 * when its rollback failed); on PGlite it is PGlite's own transaction, which every other query of
 * the instance waits for.
 */
export async function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  const connection = connectionOf(db);
  if (connection.inTransaction) return savepoint(db, connection, work);
  const { client } = connection;
  if (client instanceof pg.Pool) {
    const held = await client.connect();
    let broken: Error | undefined;
    try {
      await held.query('begin');
      try {
        const result = await work(overClient(connection, held));
        await held.query('commit');
        return result;
      } catch (error) {
        await held.query('rollback').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      held.release(broken);
    }
  }
  return (client as PgliteInstance).transaction((tx) => work(overClient(connection, tx)));
}

/** A transaction's handle over `client`, from its database handle's `connection`. */
function overClient(connection: DatabaseConnection, client: pg.PoolClient | PgliteQueryable): Db {
  return databaseHandle(connection.over(client), { client, genericPlanPool: undefined, inTransaction: true, over: connection.over, known: connection.known });
}

async function savepoint<T>(db: Db, connection: DatabaseConnection, work: (tx: Db) => Promise<T>): Promise<T> {
  const name = `sp${++connection.savepoints}`;
  const client = connection.client as PgliteQueryable; // a pool client answers the same call
  await client.query(`savepoint ${name}`);
  try {
    const result = await work(db);
    await client.query(`release savepoint ${name}`);
    return result;
  } catch (error) {
    await client.query(`rollback to savepoint ${name}`);
    throw error;
  }
}
