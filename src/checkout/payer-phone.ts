/**
 * The payer's phone number as typed on a hosted page, checked for the chosen rail: normalised to
 * an MSISDN of the rail's country, and refused with a sentence naming the right operator when its
 * prefix belongs to another one (the numbering plans of src/domain/operator-prefixes.ts).
 */
import { nationalNumber, normalizeMsisdn } from '../domain/msisdn.ts';
import { operatorOfNumber } from '../domain/operator-prefixes.ts';
import type { RailRow } from '../payments/index.ts';
import type { PageMessages } from './page-messages.ts';

/** The MSISDN of `phone` for `rail`, or the error shown beside the field (in `m`'s language). */
export function checkPayerPhone(
  m: PageMessages,
  phone: string,
  rail: RailRow | undefined,
  rails: RailRow[],
): { msisdn: string; error: null } | { msisdn: null; error: string | null } {
  if (phone.trim() === '') return { msisdn: null, error: m.errors.phoneRequired };
  // Without a rail there is no country to read the number in; the rail's own error is shown.
  if (!rail) return { msisdn: null, error: null };
  const msisdn = normalizeMsisdn(phone, rail.country);
  if (!msisdn) return { msisdn: null, error: m.errors.phoneInvalid(rail.country) };
  const operator = operatorOfNumber(nationalNumber(msisdn, rail.country), rail.country);
  if (operator && operator !== rail.operator) {
    const other = rails.find((r) => r.operator === operator && r.country === rail.country);
    return { msisdn: null, error: other ? m.errors.phoneOtherOperator(other.name, rail.name) : m.errors.phoneNotOperator(rail.name) };
  }
  return { msisdn, error: null };
}
