/**
 * The three-way match's rules, pure: a transaction whose money moved in the ledger but which the
 * operator does not list is KOLO_ONLY (unless its direction is one the source does not list); a
 * record without our reference nor id matches on amount, currency and direction within the time
 * window, and not beyond; a final state is MERCHANT_NOT_TOLD only after the grace period; every
 * case key names its kind, rail and subject, so the same inputs give the same keys.
 */
import { describe, expect, it } from 'vitest';
import type { OperatorRecord } from '../connectors/statement.ts';
import type { KoloSideRow } from '../db/queries/reconciliation.ts';
import { MATCH_WINDOW_MS, MERCHANT_TOLD_GRACE_MS, matchRecords } from './match-records.ts';

const T0 = new Date('2026-11-20T10:00:00Z');
const period = { from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-21T00:00:00Z') };
const later = (ms: number) => new Date(T0.getTime() + ms);

function tx(overrides: Partial<KoloSideRow>): KoloSideRow {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    reference: 'PI-000000000001',
    applicationId: '00000000-0000-4000-8000-0000000000aa',
    direction: 'PAY_IN',
    status: 'SUCCESS',
    amount: 5000,
    currency: 'XAF',
    environment: 'LIVE',
    operatorTransactionId: null,
    isLateSuccess: false,
    refundOf: null,
    createdAt: T0,
    updatedAt: T0,
    floatNet: 5000,
    toldEvents: ['payment.success'],
    ...overrides,
  };
}
function record(overrides: Partial<OperatorRecord>): OperatorRecord {
  return { operatorTransactionId: 'OP1', reference: null, amount: 5000, currency: 'XAF', direction: 'IN', status: 'SUCCEEDED', at: T0, kind: 'PAYMENT', reversalOf: null, ...overrides };
}
const kinds = (r: ReturnType<typeof matchRecords>) => r.drafts.map((d) => d.kind).sort();

describe('matchRecords', () => {
  it('a success the operator does not list is KOLO_ONLY, for the directions the source lists only', () => {
    const payOut = tx({ id: '00000000-0000-4000-8000-000000000002', reference: 'PO-000000000002', direction: 'PAY_OUT', floatNet: -3000, amount: 3000, toldEvents: ['payout.success'] });
    const both = matchRecords({ railCode: 'X', period, records: [], kolo: [tx({}), payOut], now: T0 });
    expect(both.drafts.map((d) => [d.kind, d.amount, d.caseKey])).toEqual([
      ['KOLO_ONLY', 5000, 'KOLO_ONLY:X:00000000-0000-4000-8000-000000000001'],
      ['KOLO_ONLY', 3000, 'KOLO_ONLY:X:00000000-0000-4000-8000-000000000002'],
    ]);
    const payInsOnly = matchRecords({ railCode: 'X', period, records: [], kolo: [tx({}), payOut], now: T0, covers: ['PAY_IN'] });
    expect(kinds(payInsOnly)).toEqual(['KOLO_ONLY']);
    // A failure moved nothing: not KOLO_ONLY.
    expect(matchRecords({ railCode: 'X', period, records: [], kolo: [tx({ status: 'FAILED', floatNet: 0, toldEvents: ['payment.failed'] })], now: T0 }).drafts).toEqual([]);
  });

  it('matches on amount, currency and direction within the window, and not beyond', () => {
    const near = matchRecords({ railCode: 'X', period, records: [record({ at: later(MATCH_WINDOW_MS - 1000) })], kolo: [tx({})], now: T0 });
    expect(near).toMatchObject({ matched: 1, drafts: [] });
    const far = matchRecords({ railCode: 'X', period, records: [record({ at: later(MATCH_WINDOW_MS + 1000) })], kolo: [tx({})], now: T0 });
    expect(kinds(far)).toEqual(['KOLO_ONLY', 'OPERATOR_ONLY']);
    const otherCurrency = matchRecords({ railCode: 'X', period, records: [record({ currency: 'XOF' })], kolo: [tx({})], now: T0 });
    expect(kinds(otherCurrency)).toEqual(['KOLO_ONLY', 'OPERATOR_ONLY']);
  });

  it('a final state neither delivered nor read is MERCHANT_NOT_TOLD after the grace period only', () => {
    const untold = tx({ toldEvents: [] });
    const records = [record({ reference: untold.reference })];
    expect(matchRecords({ railCode: 'X', period, records, kolo: [untold], now: later(MERCHANT_TOLD_GRACE_MS - 1) }).drafts).toEqual([]);
    const late = matchRecords({ railCode: 'X', period, records, kolo: [untold], now: later(MERCHANT_TOLD_GRACE_MS) });
    expect(late.drafts.map((d) => [d.kind, d.amount])).toEqual([['MERCHANT_NOT_TOLD', 0]]);
    // Same inputs, same keys: a rerun proposes nothing new.
    expect(matchRecords({ railCode: 'X', period, records, kolo: [untold], now: later(MERCHANT_TOLD_GRACE_MS) }).drafts.map((d) => d.caseKey)).toEqual(late.drafts.map((d) => d.caseKey));
  });
});
