import { describe, expect, it } from 'vitest';
import { callbackSegmentOf, operators } from './operators.ts';

describe('callbackSegmentOf', () => {
  it("gives each registered operator's segment, M-Pesa's without \"mpesa\"", () => {
    expect(['MTN_MOMO', 'ORANGE_MONEY', 'MPESA', 'WAVE', 'AIRTEL_MONEY'].map(callbackSegmentOf)).toEqual([
      'mtn-momo',
      'orange-money',
      'daraja',
      'wave',
      'airtel-money',
    ]);
  });

  it('derives the segment of an operator code no definition has from the code', () => {
    expect(callbackSegmentOf('SANDBOX')).toBe('sandbox');
    expect(callbackSegmentOf('MOOV_MONEY')).toBe('moov-money');
  });

  it('gives every operator code its own segment, none taken by the balance results route', () => {
    // Two definitions may serve one operator's wallets (Orange Money's USSD and Web Payment APIs): one segment per code.
    const byCode = new Map(operators.map((o) => [o.code, o.callbackSegment]));
    for (const o of operators) expect(o.callbackSegment).toBe(byCode.get(o.code));
    const segments = [...byCode.values()];
    expect(new Set(segments).size).toBe(segments.length);
    expect(segments).not.toContain('balance');
  });
});
