/**
 * Named SQL statements for the hot paths (charge creation, initiation records, the poller's and the
 * webhook worker's batches). The statements that run once or more per payment are written once as
 * SQL text with `$n` parameters, rather than built by Drizzle's query builder on each call, and
 * sent as they are:
 * - on PostgreSQL (node-postgres pool) as a named prepared statement: parsed and planned once
 *   per connection, then only bound and executed (unless declared `customPlan`: then parsed and
 *   planned at each execution, see `statement`);
 * - on PGlite as the same text with the same parameters (one code path for both databases).
 * Parameters are always bound, never interpolated. Casts in the text (`$1::uuid`,
 * `$2::timestamptz`) fix the parameter types, so values are passed as strings or numbers.
 */
import pg from 'pg';
import { connectionOf, type Db } from './handle.ts';

/**
 * A statement: a unique `name` (the PostgreSQL prepared statement's) and its SQL text.
 * `genericPlan`: on PostgreSQL, always run with the statement's generic plan, planned once per
 * connection. `customPlan`: on PostgreSQL, planned anew at each execution, never prepared (see
 * `statement` for both).
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
  readonly genericPlan?: boolean;
  readonly customPlan?: boolean;
}

/** Rows (column names as in SQL) and the number of rows the statement returned or changed. */
export interface StatementResult<R> {
  rows: R[];
  rowCount: number;
}

const declared = new Map<string, Statement>();

/**
 * Declares a statement. Names must be unique in the process (they identify prepared plans);
 * declaring a name twice with another text or options throws.
 *
 * `options.genericPlan`: the statement runs, outside transactions, on connections where
 * PostgreSQL always uses a prepared statement's generic plan (`plan_cache_mode =
 * force_generic_plan`, PostgreSQL 12+: the pool `openDatabase` opens beside the main one and the
 * handle carries), never a custom plan made again for each execution's parameters. For keyed
 * lookups whose best plan does not depend on the values: PostgreSQL's default (`auto`) compares
 * the generic plan's estimated cost with the custom plans' and, for the status reads' batch once
 * the transactions table had grown, kept planning each execution, planning costing more than
 * executing.
 *
 * `options.customPlan`: on PostgreSQL the statement is sent unnamed, so it is parsed and planned
 * at each execution for the table as it is then. For a statement that every connection runs from
 * a table's first rows on, and that finds rows of that table by a list of ids: with the default
 * (`plan_cache_mode = auto`), a connection that settled on the prepared statement's generic plan
 * (from its sixth execution) while the table held a few rows keeps that plan, a sequential scan,
 * until the table's next ANALYZE (autovacuum: a minute or more), and each execution then reads
 * the whole grown table (test/postgres/growing-table-plans.test.ts shows it on the initiation
 * records).
 * The two options exclude each other. Throws when a name is declared twice with another text or
 * options, or with both options.
 */
export function statement(name: string, text: string, options: { genericPlan?: boolean; customPlan?: boolean } = {}): Statement {
  if (options.genericPlan && options.customPlan) throw new Error(`statement ${name}: genericPlan and customPlan exclude each other`);
  const known = declared.get(name);
  if (known && (known.text !== text || known.genericPlan !== options.genericPlan || known.customPlan !== options.customPlan)) {
    throw new Error(`statement ${name} declared twice with different texts or options`);
  }
  const st: Statement = options.genericPlan ? { name, text, genericPlan: true } : options.customPlan ? { name, text, customPlan: true } : { name, text };
  declared.set(name, st);
  return st;
}

/** Every statement declared so far, by name (the modules that declare them must be loaded): for plan checks. */
export function declaredStatements(): ReadonlyMap<string, Statement> {
  return declared;
}

/** SQLSTATE of a unique violation. */
export const UNIQUE_VIOLATION = '23505';
/** SQLSTATE of the statement PostgreSQL ended to break a deadlock (its effects undone). */
export const DEADLOCK_DETECTED = '40P01';

/** The SQLSTATE of a driver's error, or of the driver error Drizzle wrapped (`cause`); undefined for any other error. */
export function sqlStateOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Runs `st` with `values` on the database behind `db`: a database handle (the statement is its
 * own transaction, which is why multi-table writes use one statement with data-modifying CTEs)
 * or a transaction's handle from `transaction` (the statement runs in that transaction, on its
 * connection).
 * Throws the driver's error (e.g. a unique violation, code 23505).
 */
export async function runStatement<R = Record<string, unknown>>(db: Db, st: Statement, values: unknown[]): Promise<StatementResult<R>> {
  const connection = connectionOf(db);
  const client = (st.genericPlan && connection.genericPlanPool) || connection.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const result = await client.query<R & pg.QueryResultRow>(st.customPlan ? { text: st.text, values } : { name: st.name, text: st.text, values });
    return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
  }
  const result = await client.query<R>(st.text, values);
  return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
}
