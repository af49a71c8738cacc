import { describe, expect, it } from 'vitest';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { maskAccountNumber, nationalNumber, normalizeMsisdn } from './msisdn.ts';

describe('normalizeMsisdn', () => {
  it.each([
    ['237677000001', 'country code + national number'],
    ['+237677000001', 'with +'],
    ['00237677000001', 'with 00'],
    ['677000001', 'national digits'],
    ['+237 677 00 00 01', 'spaces'],
    ['237.677.000.001', 'dots'],
    ['+237-677-00-00-01', 'dashes'],
    ['+237 (677) 00 00 01', 'parentheses'],
    ['  677000001  ', 'surrounding blanks'],
  ])('accepts %j (%s) and stores the digits', (input) => {
    expect(normalizeMsisdn(input, 'CM')).toBe('237677000001');
  });

  it('normalises other countries with their own code', () => {
    expect(normalizeMsisdn('0241234567', 'GH')).toBe('233241234567');
    expect(normalizeMsisdn('+233 24 123 4567', 'GH')).toBe('233241234567');
    expect(normalizeMsisdn('0712345678', 'KE')).toBe('254712345678');
    expect(normalizeMsisdn('0701234567', 'CI')).toBe('2250701234567');
  });

  it.each([
    ['+233241234567', 'a valid number of another country'],
    ['00254712345678', 'another country with 00'],
    ['2376770000011', 'one digit too many'],
    ['67700000', 'one digit too few'],
    ['12', 'too short'],
    ['', 'empty'],
    ['   ', 'blank'],
    ['abc', 'letters'],
    ['677000001abc', 'trailing letters'],
    ['６７７０００００１', 'full-width digits'],
    ['+237 677 00 00 01 ext. 5', 'an extension'],
    ['(+237) 677000001', 'starting with a parenthesis'],
    ['9'.repeat(40), 'far too long'],
    ['+', 'a lone plus'],
  ])('rejects %j (%s)', (input) => {
    expect(normalizeMsisdn(input, 'CM')).toBeNull();
  });

  it('keeps sandbox magic suffixes intact', () => {
    expect(normalizeMsisdn('677000100', 'CM')).toBe('237677000100');
    expect(normalizeMsisdn('+237 699 000 199', 'CM')).toBe('237699000199');
  });
});

describe('nationalNumber', () => {
  it('strips the country code of a normalised number', () => {
    expect(nationalNumber('237677000100', 'CM')).toBe('677000100');
    expect(nationalNumber('233241234567', 'GH')).toBe('241234567');
    expect(nationalNumber('2250707123456', 'CI')).toBe('0707123456');
  });

  it("is libphonenumber's national number for every country's example mobile number", () => {
    let checked = 0;
    for (const country of Object.keys(examples) as CountryCode[]) {
      const parsed = parsePhoneNumberFromString(examples[country]!, country);
      if (!parsed || parsed.country !== country) continue;
      expect(nationalNumber(parsed.number.slice(1), country), country).toBe(String(parsed.nationalNumber));
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('parses a number of another country or of an unknown one', () => {
    expect(nationalNumber('233241234567', 'CM')).toBe('241234567');
    expect(nationalNumber('237677000100', 'ZZ')).toBe('677000100');
    expect(nationalNumber('12', 'ZZ')).toBe('12');
  });
});

describe('maskAccountNumber', () => {
  it('shows the last four characters behind the mask', () => {
    expect(maskAccountNumber('237677000001')).toBe('••••0001');
    expect(maskAccountNumber('12345')).toBe('••••2345');
  });

  it('shows nothing of four characters or fewer', () => {
    expect(maskAccountNumber('1234')).toBe('••••');
    expect(maskAccountNumber('1')).toBe('••••');
    expect(maskAccountNumber('')).toBe('••••');
  });
});
