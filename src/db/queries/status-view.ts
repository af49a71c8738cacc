/**
 * The columns a status read selects: the part of a transaction row that the merchant API's
 * status views read (`payments/transaction-view.ts`), decoded alone instead of the whole row.
 * Shared by the status read and the views, which both import it from here.
 */
import type { transactions } from '../schema.ts';

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
  };
}

/** The status-read statement's array: `StatusViewRow`'s values in `STATUS_VIEW_PROPERTIES` order. */
type StatusViewValues = { [I in keyof typeof STATUS_VIEW_PROPERTIES & `${number}`]: StatusViewRow[(typeof STATUS_VIEW_PROPERTIES)[I]] };
