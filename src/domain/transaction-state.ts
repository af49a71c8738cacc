/**
 * The transaction state machine, as one pure function over an explicit table. PENDING is the only
 * state an operator's answer can move; FAILED, CANCELLED and REFUNDED never change. SUCCESS has
 * exactly one way out: FULLY_REFUNDED, when refunds reach a pay-in's whole amount, moves it to
 * REFUNDED. A customer can only back out of a hosted CHECKOUT.
 */

/** Every status a transaction can have. */
export const TRANSACTION_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED', 'REFUNDED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** What happened to a transaction. */
export const TRANSITION_EVENTS = ['MONEY_MOVED', 'DECLINED', 'TIMED_OUT', 'CUSTOMER_CANCELLED', 'FULLY_REFUNDED'] as const;
export type TransitionEvent = (typeof TRANSITION_EVENTS)[number];

/** Kind of transaction: pay-in CHECKOUT or CHARGE, or a pay-out TRANSFER. */
export type TransactionKind = 'CHECKOUT' | 'CHARGE' | 'TRANSFER';

/**
 * The kind of a transaction from its `direction` (`PAY_IN` or `PAY_OUT`) and, for a pay-in, its
 * `type` (`CHECKOUT`, else a charge): what `nextStatus` is asked with.
 */
export function kindOf(row: { direction: string; type: string | null }): TransactionKind {
  if (row.direction === 'PAY_OUT') return 'TRANSFER';
  return row.type === 'CHECKOUT' ? 'CHECKOUT' : 'CHARGE';
}

const TABLE: Record<TransactionStatus, Partial<Record<TransitionEvent, TransactionStatus>>> = {
  PENDING: { MONEY_MOVED: 'SUCCESS', DECLINED: 'FAILED', TIMED_OUT: 'FAILED', CUSTOMER_CANCELLED: 'CANCELLED' },
  SUCCESS: { FULLY_REFUNDED: 'REFUNDED' },
  FAILED: {},
  CANCELLED: {},
  REFUNDED: {},
};

/** Result of `nextStatus`: the state to move to, or why the event does not apply. */
export type TransitionResult =
  | { ok: true; from: TransactionStatus; to: TransactionStatus }
  | { ok: false; reason: 'TERMINAL' | 'NOT_ALLOWED' };

/**
 * Where `event` takes a transaction of `kind` in state `from`. Pure; never throws.
 * `CUSTOMER_CANCELLED` applies to CHECKOUT only; `FULLY_REFUNDED` to pay-ins only.
 */
export function nextStatus(from: TransactionStatus, event: TransitionEvent, kind: TransactionKind): TransitionResult {
  if (event === 'FULLY_REFUNDED') {
    if (kind === 'TRANSFER') return { ok: false, reason: 'NOT_ALLOWED' };
    const to = TABLE[from][event];
    return to ? { ok: true, from, to } : { ok: false, reason: isTerminal(from) ? 'TERMINAL' : 'NOT_ALLOWED' };
  }
  if (isTerminal(from)) return { ok: false, reason: 'TERMINAL' };
  if (event === 'CUSTOMER_CANCELLED' && kind !== 'CHECKOUT') return { ok: false, reason: 'NOT_ALLOWED' };
  const to = TABLE[from][event];
  return to ? { ok: true, from, to } : { ok: false, reason: 'NOT_ALLOWED' };
}

/** True for the states no operator answer ever leaves (all but PENDING; SUCCESS only leaves by a full refund). */
export function isTerminal(status: TransactionStatus): boolean {
  return status !== 'PENDING';
}
