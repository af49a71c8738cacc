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
