import { describe, expect, it } from 'vitest';
import { baseUnitDigits } from '../domain/currency.ts';
import { amountInputText, formatAmount, parseAmountInput } from './format.ts';

describe('amounts on the hosted pages', () => {
  it('formats base units with the currency decimals in the page locale', () => {
    expect(formatAmount(5000, 'XAF', 'fr-FR')).toBe('5 000 FCFA');
    expect(formatAmount(5000, 'XAF', 'en-GB')).toBe('FCFA 5,000');
    expect(formatAmount(5000, 'XOF', 'fr-FR')).toBe('5 000 FCFA');
    // KES is counted in whole shillings (M-Pesa takes whole amounts): 1500 is KES 1,500.
    expect(formatAmount(1500, 'KES', 'fr-FR')).toBe('1 500 KES');
    expect(formatAmount(1500, 'KES', 'en-GB')).toBe('KES 1,500');
    expect(formatAmount(1250, 'GHS', 'en-GB')).toBe('GHS 12.50');
    expect(formatAmount(1, 'GHS', 'fr-FR')).toBe('0,01 GHS');
    expect(baseUnitDigits('UGX')).toBe(0);
    expect(baseUnitDigits('KES')).toBe(0);
    expect(baseUnitDigits('GHS')).toBe(2);
  });

  it('reads a typed amount in major units as base units, on both sides of each limit', () => {
    expect(parseAmountInput('5 000', 'XAF')).toBe(5000);
    expect(parseAmountInput('5.000', 'XAF')).toBe(5000);
    expect(parseAmountInput('1', 'XAF')).toBe(1);
    expect(parseAmountInput('0', 'XAF')).toBe('INVALID');
    expect(parseAmountInput('50,5', 'XAF')).toBe('INVALID');
    expect(parseAmountInput('999999999999', 'XAF')).toBe(999_999_999_999);
    expect(parseAmountInput('1000000000000', 'XAF')).toBe('INVALID');
    expect(parseAmountInput('  ', 'XAF')).toBe('EMPTY');
    // A decimal point without decimals is refused, never read as a bigger amount.
    expect(parseAmountInput('50.5', 'XAF')).toBe('INVALID');
    expect(parseAmountInput('500', 'KES')).toBe(500);
    expect(parseAmountInput('1.500', 'KES')).toBe(1500);
    expect(parseAmountInput('50.50', 'KES')).toBe('INVALID');
    expect(parseAmountInput('50', 'GHS')).toBe(5000);
    expect(parseAmountInput('50.5', 'GHS')).toBe(5050);
    expect(parseAmountInput('1 250,75', 'GHS')).toBe(125_075);
    expect(parseAmountInput('0.01', 'GHS')).toBe(1);
    expect(parseAmountInput('0.00', 'GHS')).toBe('INVALID');
    expect(parseAmountInput('50.505', 'GHS')).toBe('INVALID');
    expect(parseAmountInput('cinq', 'GHS')).toBe('INVALID');
  });

  it('writes base units back as a payer types them', () => {
    expect(amountInputText(5000, 'XAF')).toBe('5000');
    expect(amountInputText(1500, 'KES')).toBe('1500');
    expect(amountInputText(5050, 'GHS')).toBe('50.50');
    expect(amountInputText(7, 'GHS')).toBe('0.07');
    for (const currency of ['GHS', 'KES', 'XAF']) {
      for (const amount of [1, 99, 100, 5050, 123_456]) expect(parseAmountInput(amountInputText(amount, currency), currency)).toBe(amount);
    }
  });
});
