/**
 * Prepared statements for the hot paths (API-key lookup, status read, rail lookup). Building a
 * Drizzle query costs more than running it (measured: 0.5–0.7 ms to build and run vs 0.1–0.17 ms
 * prepared, on PostgreSQL), so the statements of every request are built once per database
 * handle and reused; PostgreSQL also keeps their plans per connection.
 */
import type { Db } from '../client.ts';

const cache = new WeakMap<Db, Map<string, unknown>>();

/** The statement `name` for `db`, built by `build` on first use. Names must be unique per statement. */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    statements.set(name, statement);
  }
  return statement;
}
