import { describe, expect, it } from 'vitest';
import { basisPointsOf, computeFee } from './fees.ts';

describe('computeFee: round half-up in base units, then the fixed part', () => {
  it('1.5 % of 5 000 XAF is 75', () => {
    expect(computeFee(5000, { basisPoints: 150, fixed: 0 }, 'PAY_IN')).toBe(75);
  });
  it('rounds exactly half up: 1.5 % of 1 100 = 16.5 → 17; of 1 099 = 16.485 → 16', () => {
    expect(computeFee(1100, { basisPoints: 150, fixed: 0 }, 'PAY_IN')).toBe(17);
    expect(computeFee(1099, { basisPoints: 150, fixed: 0 }, 'PAY_IN')).toBe(16);
  });
  it('rounds 0.4999… down and 0.5 up at the smallest amounts', () => {
    // 1 % of 49 = 0.49 → 0; of 50 = 0.5 → 1
    expect(computeFee(49, { basisPoints: 100, fixed: 0 }, 'PAY_IN')).toBe(0);
    expect(computeFee(50, { basisPoints: 100, fixed: 0 }, 'PAY_IN')).toBe(1);
  });
  it('adds the fixed part after rounding', () => {
    expect(computeFee(1100, { basisPoints: 150, fixed: 25 }, 'PAY_OUT')).toBe(42);
  });
  it('never takes more than a pay-in amount, but charges a pay-out fee on top', () => {
    expect(computeFee(100, { basisPoints: 150, fixed: 500 }, 'PAY_IN')).toBe(100);
    expect(computeFee(100, { basisPoints: 150, fixed: 500 }, 'PAY_OUT')).toBe(502);
  });
  it('stays exact on large amounts (no float)', () => {
    expect(computeFee(9_007_199_254_740, { basisPoints: 9999, fixed: 0 }, 'PAY_IN')).toBe(9_006_298_534_815);
  });
  it('reads stored percentages as whole basis points', () => {
    expect(basisPointsOf('1.500')).toBe(150);
    expect(basisPointsOf('0.010')).toBe(1);
    expect(basisPointsOf(1.25)).toBe(125);
  });
});
