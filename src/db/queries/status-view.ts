/**
 * The merchant API's status read: the part of a transaction row that the status views read
 * (`payments/transaction-view.ts`), found by reference under the tenant rule, selected and decoded
 * alone instead of the whole row. Every read of one event-loop turn is one statement (batch.ts).
 */
import { perDatabase, selectList } from '../batch.ts';
import type { Db } from '../client.ts';
import { transactions } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';
import { inTenantScope, type ScopedReference } from './transactions.ts';

/** The properties the status views read, and all that the status-read statement selects and decodes. */
export const STATUS_VIEW_PROPERTIES = [
  'reference',
  'direction',
  'type',
  'status',
  'amount',
  'currency',
  'description',
  'paymentMethod',
  'payerAccount',
  'payerName',
  'payerEmail',
  'beneficiaryAccount',
  'beneficiaryName',
  'beneficiaryEmail',
  'checkoutToken',
  'failureCode',
  'failureReason',
  'feeAmount',
  'refundedAmount',
  'operatorTransactionId',
  'isLateSuccess',
  'isReservationHeld',
  'reservedAmount',
  'isInReconciliation',
  'floatQueuedAt',
] as const satisfies readonly (keyof typeof transactions.$inferSelect)[];

/** The part of a transaction row the status views read (`STATUS_VIEW_PROPERTIES`). */
export type StatusViewRow = Pick<typeof transactions.$inferSelect, (typeof STATUS_VIEW_PROPERTIES)[number]>;

/**
 * The status view of a transaction from the JSON array the status-read statement selects: the
 * columns of `STATUS_VIEW_PROPERTIES`, in that order, as the driver parsed them. Each of these
 * columns has its value as its JSON form (text, booleans, `bigint` amounts in `mode: 'number'`,
 * within 2^53), so each element is taken as it is; `null` stays `null`.
 *
 * The types check each value against its property; a test checks the order against
 * `STATUS_VIEW_PROPERTIES` and the values against the row as Drizzle reads it.
 */
export function statusViewRowOf(values: readonly unknown[]): StatusViewRow {
  const v = values as unknown as StatusViewValues;
  return {
    reference: v[0],
    direction: v[1],
    type: v[2],
    status: v[3],
    amount: v[4],
    currency: v[5],
    description: v[6],
    paymentMethod: v[7],
    payerAccount: v[8],
    payerName: v[9],
    payerEmail: v[10],
    beneficiaryAccount: v[11],
    beneficiaryName: v[12],
    beneficiaryEmail: v[13],
    checkoutToken: v[14],
    failureCode: v[15],
    failureReason: v[16],
    feeAmount: v[17],
    refundedAmount: v[18],
    operatorTransactionId: v[19],
    isLateSuccess: v[20],
    isReservationHeld: v[21],
    reservedAmount: v[22],
    isInReconciliation: v[23],
    // A timestamp's JSON form is its text.
    floatQueuedAt: v[24] === null ? null : new Date(v[24] as unknown as string),
  };
}

/** The status-read statement's array: `StatusViewRow`'s values in `STATUS_VIEW_PROPERTIES` order. */
type StatusViewValues = { [I in keyof typeof STATUS_VIEW_PROPERTIES & `${number}`]: StatusViewRow[(typeof STATUS_VIEW_PROPERTIES)[I]] };

// The status reads of one turn, in ONE row: a JSON array of [position asked, status view array]
// for the transactions found (null when none is).
const statusViews = statement(
  'status_views_by_scoped_reference_v3',
  `select json_agg(json_build_array(r.i, json_build_array(${selectList(transactions, STATUS_VIEW_PROPERTIES, 't')}))) as found
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) with ordinality as r(application_id, environment, direction, reference, i)
     join transactions t on ${inTenantScope('t', { applicationId: 'r.application_id', environment: 'r.environment', direction: 'r.direction', reference: 'r.reference' })}`,
  { genericPlan: true },
);

const statusReads = perDatabase<ScopedReference, StatusViewRow | null>(async (db, asked) => {
  const { rows } = await runStatement<Record<string, unknown>>(db, statusViews, [
    asked.map((a) => a.applicationId),
    asked.map((a) => a.environment),
    asked.map((a) => a.direction),
    asked.map((a) => a.reference),
  ]);
  const answers = new Array<StatusViewRow | null>(asked.length).fill(null);
  const found = rows[0]?.found;
  if (Array.isArray(found)) for (const item of found as [number, unknown[]][]) answers[item[0] - 1] = statusViewRowOf(item[1]);
  return answers;
});

/**
 * The status view of the transaction `asked.reference` of `asked.direction` owned by
 * `asked.applicationId` in `asked.environment`, or null when there is none (another
 * application's or environment's reference included). Throws the driver's error.
 */
export function findStatusViewInScope(db: Db, asked: ScopedReference): Promise<StatusViewRow | null> {
  return statusReads(db).load(asked);
}
