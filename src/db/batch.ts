/**
 * Coalescing of concurrent hot-path statements. Under load, dozens of requests need the same kind
 * of lookup at the same moment (an API key, a status read); each one alone would cost a database
 * round trip. A batcher collects the keys asked during one turn of the event loop (every request whose bytes
 * arrived in that turn) and answers them all with ONE statement.
 * Built on `dataloader` with its cache off: nothing is remembered between turns, so every answer
 * is as fresh as an unbatched query (a revoked key is refused on the next request, whichever
 * instance serves it). A failed statement fails every request of its batch with the same error.
 */
import DataLoader from 'dataloader';
import { Column, getTableColumns, type Table } from 'drizzle-orm';
import { keptBy, type Db } from './handle.ts';

/**
 * Most keys answered by one statement; the keys of a busier turn are split into statements of this
 * size, sent together, so that under load several are in flight while the process goes on.
 */
const MAX_BATCH = 32;

/**
 * A batcher: `load(key)` resolves with `answer(keys)[i]` for its key, where `answer` is called
 * once per event-loop turn with every key asked in it (in order, duplicates included) and must
 * return one result per key, in the same order; an `Error` in place of a result rejects that
 * key's `load` only.
 */
function createBatcher<K, V>(answer: (keys: readonly K[]) => Promise<(V | Error)[]>): { load(key: K): Promise<V> } {
  const loader = new DataLoader<K, V>(answer, {
    cache: false,
    maxBatchSize: MAX_BATCH,
    // After the I/O callbacks of this turn, so that every request that arrived in it joins the batch.
    batchScheduleFn: (callback) => setImmediate(callback),
  });
  return { load: (key) => loader.load(key) };
}

/**
 * `createBatcher` per database handle: `batcherOf(db).load(key)`, the batcher of `db` built by
 * `answer(db, keys)` on first use and kept by the handle (statements must run on the database
 * they were asked of).
 */
export function perDatabase<K, V>(answer: (db: Db, keys: readonly K[]) => Promise<(V | Error)[]>): (db: Db) => { load(key: K): Promise<V> } {
  return (db) => keptBy(db, answer, () => createBatcher<K, V>((keys) => answer(db, keys)));
}

type TableColumn = ReturnType<typeof getTableColumns>[string];

/**
 * (property, column, decodes) triples of a table, in the order they are decoded; `decodes` is false
 * for the columns whose driver value is kept as it is (Drizzle's base `mapFromDriverValue`: text,
 * enums, booleans), whose decoding is then not called at all.
 */
type ColumnList = [string, TableColumn, boolean][];

/** A table's column as a `ColumnList` entry. */
function entry(property: string, column: TableColumn): ColumnList[number] {
  return [property, column, column.mapFromDriverValue !== Column.prototype.mapFromDriverValue];
}

// A table's column list, made once per table rather than once per row mapped
// (a poller batch maps 200 rows of about 40 columns).
const columnLists = new WeakMap<Table, ColumnList>();
function columnsOf(table: Table): ColumnList {
  let list = columnLists.get(table);
  if (!list) columnLists.set(table, (list = Object.entries(getTableColumns(table)).map(([property, column]) => entry(property, column))));
  return list;
}

/**
 * A raw row (SQL column names, as the driver returns them) mapped to `table`'s Drizzle row type:
 * property names and each column's own decoding (timestamps to Date, bigint to number, jsonb).
 * Columns absent from `raw` are null.
 */
export function mapRow<T extends Table>(table: T, raw: Record<string, unknown>): T['$inferSelect'] {
  return mapColumns(columnsOf(table), raw) as T['$inferSelect'];
}

/** The SQL column names of `properties` of `table`, each prefixed with `alias.`, comma-separated: a select list. */
export function selectList(table: Table, properties: readonly string[], alias: string): string {
  const columns = getTableColumns(table);
  return properties.map((property) => `${alias}.${columns[property]!.name}`).join(', ');
}

/**
 * Every column of `table` under `alias`, each named `<prefix><column name>`, comma-separated: the
 * select list of a joined table whose row `mapPrefixedRow` decodes.
 */
export function prefixedSelectList(table: Table, alias: string, prefix: string): string {
  return columnsOf(table)
    .map((item) => `${alias}.${item[1].name} as ${prefix}${item[1].name}`)
    .join(', ');
}

/**
 * The row of `table` in the columns of `raw` that `prefixedSelectList(table, …, prefix)` named,
 * decoded as `mapRow` decodes; null when every one of them is null (a left join that found none).
 */
export function mapPrefixedRow<T extends Table>(table: T, raw: Record<string, unknown>, prefix: string): T['$inferSelect'] | null {
  const list = columnsOf(table);
  if (list.every((item) => (raw[prefix + item[1].name] ?? null) === null)) return null;
  return mapColumns(list, raw, prefix) as T['$inferSelect'];
}

function mapColumns(list: ColumnList, raw: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const item of list) row[item[0]] = decode(item, raw[prefix + item[1].name]);
  return row;
}

/** A driver value decoded as its column decodes it (null stays null). */
function decode(entry: ColumnList[number], value: unknown): unknown {
  return value === null || value === undefined ? null : entry[2] ? entry[1].mapFromDriverValue(value) : value;
}
