/**
 * Statements over the `transactions` table that use cases read through typed functions.
 *
 * The tenant rule of a transaction read by reference lives here, once: a reference is found only
 * among its application's transactions, of the caller's key environment (TEST or LIVE) and of the
 * direction asked (PAY_IN or PAY_OUT). Every statement that finds a transaction by reference for a
 * caller joins through `inTenantScope`, so another application's reference, or one of the other
 * environment or direction, reads exactly as an unknown one.
 */
import { mapRow, perDatabase } from '../batch.ts';
import type { Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';

/** SQL expressions (columns or parameters) naming what a caller asks for: its scope and the reference. */
export interface ScopedReferenceSql {
  applicationId: string;
  environment: string;
  direction: string;
  reference: string;
}

/**
 * The join condition that admits the row `alias` of `transactions` for the read `asked`: same
 * reference, same application, same environment, same direction. The one definition of the
 * tenant rule for reads by reference (each column is compared as it is stored: uuid, text).
 */
export function inTenantScope(alias: string, asked: ScopedReferenceSql): string {
  return `${alias}.reference = ${asked.reference} and ${alias}.application_id = ${asked.applicationId}
      and ${alias}.environment = ${asked.environment} and ${alias}.direction = ${asked.direction}`;
}

/** One read by reference: the caller's application and key environment, the direction and the reference. */
export interface ScopedReference {
  applicationId: string;
  environment: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  reference: string;
}

// Every read by reference of one event-loop turn, in one statement: the position asked and the row.
const byScopedReference = statement(
  'transactions_by_scoped_reference_v1',
  `select r.i as asked_position, t.*
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) with ordinality as r(application_id, environment, direction, reference, i)
     join transactions t on ${inTenantScope('t', { applicationId: 'r.application_id', environment: 'r.environment', direction: 'r.direction', reference: 'r.reference' })}`,
);

const scopedReads = perDatabase<ScopedReference, typeof transactions.$inferSelect | null>(async (db, asked) => {
  const { rows } = await runStatement<Record<string, unknown>>(db, byScopedReference, [
    asked.map((a) => a.applicationId),
    asked.map((a) => a.environment),
    asked.map((a) => a.direction),
    asked.map((a) => a.reference),
  ]);
  const found = new Array<typeof transactions.$inferSelect | null>(asked.length).fill(null);
  for (const row of rows) found[Number(row.asked_position) - 1] = mapRow(transactions, row);
  return found;
});

/**
 * The transaction `reference` of `direction` owned by `applicationId` in `environment` (the tenant
 * rule, `inTenantScope`), or null when there is none. Reads asked in the same event-loop turn
 * share one statement. Throws the driver's error.
 */
export function findTransactionInScope(db: Db, asked: ScopedReference): Promise<typeof transactions.$inferSelect | null> {
  return scopedReads(db).load(asked);
}
