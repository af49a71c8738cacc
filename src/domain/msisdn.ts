/**
 * Phone numbers (MSISDN). Accepted as country code + national number (`237677…`), with `+` or `00`,
 * or as the national number alone, with spaces, dots, dashes or parentheses; stored as digits only,
 * country code first (as existing integrations send them). Validity per country is
 * libphonenumber-js's (Google libphonenumber metadata).
 */
import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

const SHAPE = /^[+0-9][0-9 ().-]{3,29}$/;

/**
 * Normalises `input` for `country` (ISO 3166 alpha-2). Returns the digits (e.g. `237677000100`),
 * or null when the number is not a valid number of that country.
 */
export function normalizeMsisdn(input: string, country: string): string | null {
  const trimmed = input.trim();
  if (!SHAPE.test(trimmed)) return null;
  const parsed = parsePhoneNumberFromString(trimmed, country as CountryCode);
  if (!parsed || !parsed.isValid() || parsed.country !== country) return null;
  return parsed.number.slice(1);
}

/**
 * The national significant number of a normalised MSISDN of `country`, e.g. `677000100`. A
 * normalised MSISDN is E.164's digits, which are the country calling code then the national
 * significant number (ITU-T E.164 §6), so it is the MSISDN without `country`'s calling code (from
 * libphonenumber-js's metadata), with no parsing (the number was parsed when normalised; the charge
 * path need not pay a second parse). Anything else (another country's number, an unknown country)
 * is parsed; a number that does not parse is returned unchanged.
 */
export function nationalNumber(msisdn: string, country: string): string {
  const callingCode = isSupportedCountry(country) ? getCountryCallingCode(country) : null;
  if (callingCode !== null && msisdn.startsWith(callingCode) && msisdn.length > callingCode.length) return msisdn.slice(callingCode.length);
  const parsed = parsePhoneNumberFromString(`+${msisdn}`, country as CountryCode);
  return parsed ? String(parsed.nationalNumber) : msisdn;
}


/** The mask put before the visible end of an account number. */
const ACCOUNT_MASK = '••••';

/**
 * An account number (an MSISDN, usually) masked to its last four characters, as SharePay's
 * dashboard shows the payer of each recent payment: `237677000001` → `••••0001`. Four characters
 * or fewer show nothing but the mask, so no short value is ever shown whole.
 */
export function maskAccountNumber(account: string): string {
  return account.length <= 4 ? ACCOUNT_MASK : `${ACCOUNT_MASK}${account.slice(-4)}`;
}

/** Why a number given to number resolution is not a usable mobile number. */
export type PhoneNumberProblem =
  /** Not shaped like a phone number (letters, too short, too long). */
  | 'NOT_A_NUMBER'
  /** A national form (leading 0, or no country code) with no country to read it in. */
  | 'COUNTRY_REQUIRED'
  /** Not a valid number of any country (or of the country given). */
  | 'INVALID_NUMBER'
  /** Valid, but of another country than the one given. */
  | 'COUNTRY_MISMATCH'
  /** Valid, but not a mobile number (fixed line, toll-free…): no wallet is attached to it. */
  | 'NOT_MOBILE'
  /** A Beninese number of the 8-digit plan, retired on 30 November 2024 (its 10-digit form is suggested). */
  | 'BENIN_OLD_NUMBER_PLAN';

/** A number read by `readPhoneNumber`: its E.164 form and country, or why it is not usable. */
export type PhoneNumberReading =
  | { kind: 'VALID'; e164: string; msisdn: string; country: string; nationalNumber: string }
  | { kind: 'INVALID'; problem: PhoneNumberProblem; country: string | null; suggestedE164: string | null };

/** Benin's calling code, and the prefix its 10-digit plan put before every old 8-digit number. */
const BENIN_CALLING_CODE = '229';
const BENIN_NEW_PREFIX = '01';

/**
 * Reads `input` in any common form — `+237 6 77 00 01 00`, `00237677000100`, `237677000100`, or
 * the national form (`0700000000`, `677000100`) when `country` (ISO 3166 alpha-2) is given — and
 * answers its E.164 form, MSISDN (E.164 digits), country and national significant number, or the
 * problem. Validity and number types are libphonenumber-js's (Google libphonenumber metadata).
 * Benin's numbers went from 8 to 10 digits on 30 November 2024 by putting `01` in front of the old
 * number (ARCEP Bénin): an old 8-digit number is refused with its new form suggested.
 */
export function readPhoneNumber(input: string, country: string | null): PhoneNumberReading {
  const trimmed = input.trim();
  const invalid = (problem: PhoneNumberProblem, at: string | null = country, suggestedE164: string | null = null): PhoneNumberReading => ({
    kind: 'INVALID',
    problem,
    country: at,
    suggestedE164,
  });
  if (!SHAPE.test(trimmed)) return invalid('NOT_A_NUMBER');
  const digits = trimmed.replace(/\D/g, '');
  const isInternational = trimmed.startsWith('+') || trimmed.startsWith('00');
  const international = trimmed.startsWith('+') ? digits : trimmed.startsWith('00') ? digits.slice(2) : null;

  // Benin's retired plan, in its international form or as 8 national digits read in Benin.
  const beninOld =
    international !== null
      ? international.startsWith(BENIN_CALLING_CODE) && international.length === BENIN_CALLING_CODE.length + 8
        ? international.slice(BENIN_CALLING_CODE.length)
        : null
      : country === 'BJ'
        ? digits.length === 8
          ? digits
          : digits.length === 11 && digits.startsWith(BENIN_CALLING_CODE)
            ? digits.slice(3)
            : null
        : null;
  if (beninOld !== null) {
    const suggestion = parsePhoneNumberFromString(`+${BENIN_CALLING_CODE}${BENIN_NEW_PREFIX}${beninOld}`);
    return invalid('BENIN_OLD_NUMBER_PLAN', 'BJ', suggestion?.isValid() ? suggestion.number : null);
  }

  let parsed;
  if (isInternational) {
    parsed = parsePhoneNumberFromString(`+${international}`);
  } else if (country !== null) {
    if (!isSupportedCountry(country)) return invalid('INVALID_NUMBER');
    parsed = parsePhoneNumberFromString(trimmed, country as CountryCode);
    // The country's calling code typed without `+` (`237677000100`), as existing integrations send.
    const withCode = parsePhoneNumberFromString(`+${digits}`);
    if ((!parsed || !parsed.isValid()) && withCode?.isValid() && withCode.country === country) parsed = withCode;
  } else {
    parsed = parsePhoneNumberFromString(`+${digits}`);
    if (!parsed || !parsed.isValid()) return invalid(digits.startsWith('0') ? 'COUNTRY_REQUIRED' : 'INVALID_NUMBER');
  }
  if (!parsed || !parsed.isValid() || !parsed.country) return invalid('INVALID_NUMBER', country ?? parsed?.country ?? null);
  if (country !== null && parsed.country !== country) return invalid('COUNTRY_MISMATCH', parsed.country);
  const type = parsed.getType();
  if (type !== undefined && type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') return invalid('NOT_MOBILE', parsed.country);
  return {
    kind: 'VALID',
    e164: parsed.number,
    msisdn: parsed.number.slice(1),
    country: parsed.country,
    nationalNumber: String(parsed.nationalNumber),
  };
}
