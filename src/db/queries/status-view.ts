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
