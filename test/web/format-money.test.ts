/**
 * Amounts in the dashboard and on the hosted pages are read and written with the same base
 * units as the API and the operators: XAF and XOF without decimals, KES in whole shillings (what
 * M-Pesa moves), GHS in hundredths. A merchant typing 500 KES in the transfer form sends 500.
 */
import { describe, expect, it } from 'vitest';
import { amountFieldText, formatMoney, parseAmount } from '../../web/src/format.ts';
import { formatAmount } from '../../src/checkout/format.ts';

const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('money in the dashboard', () => {
  it('shows a stored amount in a form field as parseAmount reads it back', () => {
    expect(amountFieldText(50_000, 'XAF')).toBe('50000');
    expect(amountFieldText(500, 'KES')).toBe('500');
    expect(amountFieldText(1250, 'GHS')).toBe('12.50');
    for (const [amount, currency] of [[50_000, 'XAF'], [500, 'KES'], [1250, 'GHS'], [7, 'GHS']] as const) {
      expect(parseAmount(amountFieldText(amount, currency), currency, 'en')).toBe(amount);
    }
  });

  it('reads a typed amount as the base units the API takes', () => {
    expect(parseAmount('500', 'KES', 'en')).toBe(500);
    expect(parseAmount('1 500', 'KES', 'fr')).toBe(1500);
    expect(parseAmount('50.50', 'KES', 'en')).toBeNull();
    expect(parseAmount('5000', 'XAF', 'fr')).toBe(5000);
    expect(parseAmount('5000,5', 'XAF', 'fr')).toBeNull();
    expect(parseAmount('12,50', 'GHS', 'fr')).toBe(1250);
    expect(parseAmount('12.505', 'GHS', 'en')).toBeNull();
  });

  it('writes base units as the hosted pages do', () => {
    expect(plain(formatMoney(1500, 'KES', 'en-GB'))).toBe('KES 1,500');
    expect(plain(formatMoney(1250, 'GHS', 'en-GB'))).toBe('GHS 12.50');
    for (const [amount, currency] of [
      [1500, 'KES'],
      [1250, 'GHS'],
      [7, 'GHS'],
    ] as const) {
      expect(plain(formatMoney(amount, currency, 'en-GB'))).toBe(formatAmount(amount, currency, 'en-GB'));
    }
  });
});
