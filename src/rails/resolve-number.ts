/**
 * Number resolution for the merchant API: a phone number in any common form → its E.164 form,
 * country, operator (from the country's prefix table, `domain/operator-prefixes.ts`) and the rails
 * it belongs to, each saying whether the key's application can use it; or why the number is not
 * usable, in French, with the corrected number when one is known (Benin's 10-digit plan).
 */
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import { readPhoneNumber, type PhoneNumberProblem } from '../domain/msisdn.ts';
import { hasNumberPlan, NETWORK_INDEPENDENT_OPERATORS, operatorOfNumber } from '../domain/operator-prefixes.ts';
import type { Services } from '../services.ts';
import { activeRails, isRailUsable } from './usable-rails.ts';

/** French explanation of each problem, shown to merchants as `message`. */
export const NUMBER_PROBLEM_MESSAGES: Record<PhoneNumberProblem, string> = {
  NOT_A_NUMBER: "Ce n'est pas un numéro de téléphone : seuls les chiffres, espaces, points, tirets, parenthèses et un + initial sont admis.",
  COUNTRY_REQUIRED: 'Numéro au format national : indiquez le pays (country) ou écrivez-le avec son indicatif (+…).',
  INVALID_NUMBER: "Ce numéro n'est pas un numéro valide du pays indiqué ou de son indicatif.",
  COUNTRY_MISMATCH: "Ce numéro appartient à un autre pays que celui indiqué.",
  NOT_MOBILE: "Ce numéro est valide mais n'est pas un numéro mobile : aucun compte de mobile money n'y est rattaché.",
  BENIN_OLD_NUMBER_PLAN:
    "Ancien numéro béninois à 8 chiffres : depuis le 30 novembre 2024 les numéros du Bénin ont 10 chiffres (01 devant l'ancien numéro). Utilisez le numéro suggéré.",
};

/** A rail a resolved number belongs to. */
export interface NumberRail {
  code: string;
  name: string;
  operator: string;
  currency: string;
  /** True when the key's application can charge or pay this number on it (its currency, a connector in the key's environment). */
  isUsable: boolean;
}

/** What number resolution answers; the fields of the other outcome are null. */
export interface NumberResolution {
  input: string;
  isValid: boolean;
  /** `+` and the digits, e.g. `+237677000100`. */
  e164: string | null;
  /** E.164 digits without `+`, as the payment endpoints take and answer it. */
  msisdn: string | null;
  /** ISO 3166 alpha-2 country of the number (also of an invalid number when it is known). */
  country: string | null;
  nationalNumber: string | null;
  /** The operator whose prefixes the number carries; null when the country's plan does not say. */
  operator: string | null;
  rails: NumberRail[];
  problem: PhoneNumberProblem | null;
  /** French explanation of `problem`. */
  message: string | null;
  /** The number to use instead, in E.164 (Benin's new 10-digit form of an old number). */
  suggestedE164: string | null;
}

/**
 * Resolves `input` (read in `country`, ISO 3166 alpha-2, when it is in national form) for the key
 * `auth`. The rails are the active rails of the number's country on its operator's network, plus
 * the wallets any number may hold (Wave); every active rail of the country when the country's plan
 * is not known. Never throws for a bad number: the problem is the answer.
 */
export async function resolveNumber(services: Pick<Services, 'db' | 'connectors'>, auth: ApiKeyAuth, input: { number: string; country?: string | undefined }): Promise<NumberResolution> {
  const reading = readPhoneNumber(input.number, input.country ?? null);
  if (reading.kind === 'INVALID') {
    return {
      input: input.number,
      isValid: false,
      e164: null,
      msisdn: null,
      country: reading.country,
      nationalNumber: null,
      operator: null,
      rails: [],
      problem: reading.problem,
      message: NUMBER_PROBLEM_MESSAGES[reading.problem],
      suggestedE164: reading.suggestedE164,
    };
  }
  const operator = operatorOfNumber(reading.nationalNumber, reading.country);
  const isPlanKnown = hasNumberPlan(reading.country);
  const rails = (await activeRails(services))
    .filter((rail) => rail.country === reading.country)
    .filter((rail) => !isPlanKnown || rail.operator === operator || NETWORK_INDEPENDENT_OPERATORS.has(rail.operator))
    .map((rail) => ({
      code: rail.code,
      name: rail.name,
      operator: rail.operator,
      currency: rail.currency,
      isUsable: isRailUsable(services, rail, auth.currency, auth.environment),
    }));
  return {
    input: input.number,
    isValid: true,
    e164: reading.e164,
    msisdn: reading.msisdn,
    country: reading.country,
    nationalNumber: reading.nationalNumber,
    operator,
    rails,
    problem: null,
    message: null,
    suggestedE164: null,
  };
}
