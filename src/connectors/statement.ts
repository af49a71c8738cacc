/**
 * The operator's own view of the money it moved, in one shape whatever the operator: the rows of
 * its transaction list (Wave, M-Pesa) or of its statement export (MTN, Orange), as reconciliation
 * compares them with Kolo's ledger. Amounts are positive integers in the currency's base unit; the
 * direction says which way the money went for Kolo's wallet at the operator.
 */

/** What a row is: a payment (pay-in or pay-out), the reversal of one, or a balance adjustment no payment explains. */
export type OperatorRecordKind = 'PAYMENT' | 'REVERSAL' | 'ADJUSTMENT';

/** One movement as the operator records it. */
export interface OperatorRecord {
  /** The operator's id of the movement (MTN `financialTransactionId`, Orange `txnid`, M-Pesa receipt, Wave transaction id). */
  operatorTransactionId: string;
  /** Kolo's reference as the operator echoes it (Wave `client_reference`, MTN `externalId`, …); null when it carries none. */
  reference: string | null;
  /** Positive, base units. */
  amount: number;
  currency: string;
  /** IN: into Kolo's wallet (a pay-in, a pay-out reversed, a credit adjustment); OUT: out of it. */
  direction: 'IN' | 'OUT';
  /** SUCCEEDED: the money moved; FAILED: the operator lists the attempt as failed (no money moved). */
  status: 'SUCCEEDED' | 'FAILED';
  at: Date;
  kind: OperatorRecordKind;
  /** A reversal: the operator's id of the movement it reverses, when the operator names it. */
  reversalOf?: string | null;
}

/** A half-open period `[from, to)`. */
export interface RecordPeriod {
  from: Date;
  to: Date;
}

/** Thrown when a statement file cannot be read: names the line and what is wrong (nothing of the file is used then). */
export class StatementFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementFormatError';
  }
}
