import { describe, expect, it } from 'vitest';
import {
  isTerminal,
  nextStatus,
  TRANSACTION_STATUSES,
  TRANSITION_EVENTS,
  type TransactionKind,
  type TransactionStatus,
  type TransitionEvent,
} from './transaction-state.ts';

const KINDS: TransactionKind[] = ['CHECKOUT', 'CHARGE', 'TRANSFER'];

/** The table of states and transitions, written out independently of the implementation. */
function expected(from: TransactionStatus, event: TransitionEvent, kind: TransactionKind) {
  // The only transition out of SUCCESS, for pay-ins: refunded in full.
  if (event === 'FULLY_REFUNDED') {
    if (kind === 'TRANSFER') return { ok: false, reason: 'NOT_ALLOWED' };
    if (from === 'SUCCESS') return { ok: true, from, to: 'REFUNDED' };
    return { ok: false, reason: from === 'PENDING' ? 'NOT_ALLOWED' : 'TERMINAL' };
  }
  if (from !== 'PENDING') return { ok: false, reason: 'TERMINAL' };
  switch (event) {
    case 'MONEY_MOVED':
      return { ok: true, from, to: 'SUCCESS' };
    case 'DECLINED':
    case 'TIMED_OUT':
      return { ok: true, from, to: 'FAILED' };
    case 'CUSTOMER_CANCELLED':
      return kind === 'CHECKOUT' ? { ok: true, from, to: 'CANCELLED' } : { ok: false, reason: 'NOT_ALLOWED' };
  }
}

describe('nextStatus', () => {
  const triples = TRANSACTION_STATUSES.flatMap((s) => TRANSITION_EVENTS.flatMap((e) => KINDS.map((k) => [s, e, k] as const)));

  it('covers every (status, event, kind) triple', () => {
    expect(triples).toHaveLength(5 * 5 * 3);
  });

  it.each(triples)('%s + %s (%s) follows the table', (status, event, kind) => {
    expect(nextStatus(status, event, kind)).toEqual(expected(status, event, kind));
  });

  it('never leaves a terminal state, whatever the event or kind, except SUCCESS by a full refund', () => {
    for (const status of ['SUCCESS', 'FAILED', 'CANCELLED', 'REFUNDED'] as const) {
      for (const event of TRANSITION_EVENTS) {
        for (const kind of KINDS) {
          const isRefund = status === 'SUCCESS' && event === 'FULLY_REFUNDED' && kind !== 'TRANSFER';
          expect(nextStatus(status, event, kind).ok).toBe(isRefund);
        }
      }
    }
  });

  it('only a full refund reaches REFUNDED, and no event reaches PENDING', () => {
    for (const [status, event, kind] of triples) {
      const result = nextStatus(status, event, kind);
      if (result.ok && result.to === 'REFUNDED') expect([status, event]).toEqual(['SUCCESS', 'FULLY_REFUNDED']);
      if (result.ok) expect(result.to).not.toBe('PENDING');
    }
  });

  it('only a CHECKOUT can be cancelled by the customer', () => {
    expect(nextStatus('PENDING', 'CUSTOMER_CANCELLED', 'CHECKOUT')).toEqual({ ok: true, from: 'PENDING', to: 'CANCELLED' });
    expect(nextStatus('PENDING', 'CUSTOMER_CANCELLED', 'CHARGE')).toEqual({ ok: false, reason: 'NOT_ALLOWED' });
    expect(nextStatus('PENDING', 'CUSTOMER_CANCELLED', 'TRANSFER')).toEqual({ ok: false, reason: 'NOT_ALLOWED' });
  });
});

describe('isTerminal', () => {
  it.each(TRANSACTION_STATUSES)('%s', (status) => {
    expect(isTerminal(status)).toBe(status !== 'PENDING');
  });
});
