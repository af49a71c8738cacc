import { describe, expect, it } from 'vitest';
import { amountInputText, currencyDigits, formatAmount, parseAmountInput } from './format.ts';

describe('amounts on the hosted pages', () => {
  it('formats base units with the currency decimals in the page locale', () => {
    expect(formatAmount(5000, 'XAF', 'fr-FR')).toBe('5 000 FCFA');
    expect(formatAmount(5000, 'XAF', 'en-GB')).toBe('FCFA 5,000');
    expect(formatAmount(5000, 'XOF', 'fr-FR')).toBe('5 000 FCFA');
    expect(formatAmount(5050, 'KES', 'fr-FR')).toBe('50,50 KES');
    expect(formatAmount(5050, 'KES', 'en-GB')).toBe('KES 50.50');
    expect(formatAmount(1, 'KES', 'en-GB')).toBe('KES 0.01');
    expect(currencyDigits('UGX')).toBe(0);
    expect(currencyDigits('GHS')).toBe(2);
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
    expect(parseAmountInput('50', 'KES')).toBe(5000);
    expect(parseAmountInput('50.5', 'KES')).toBe(5050);
    expect(parseAmountInput('1 250,75', 'KES')).toBe(125_075);
    expect(parseAmountInput('0.01', 'KES')).toBe(1);
    expect(parseAmountInput('0.00', 'KES')).toBe('INVALID');
    expect(parseAmountInput('50.505', 'KES')).toBe('INVALID');
    expect(parseAmountInput('cinq', 'KES')).toBe('INVALID');
  });

  it('writes base units back as a payer types them', () => {
    expect(amountInputText(5000, 'XAF')).toBe('5000');
    expect(amountInputText(5050, 'KES')).toBe('50.50');
    expect(amountInputText(7, 'KES')).toBe('0.07');
    for (const amount of [1, 99, 100, 5050, 123_456]) expect(parseAmountInput(amountInputText(amount, 'KES'), 'KES')).toBe(amount);
  });
});
