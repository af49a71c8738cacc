/**
 * Which operator a mobile number belongs to, from the first digits of its national significant
 * number: one table per country (ISO 3166 alpha-2) where Kolo has a rail, listing only the ranges
 * a source confirms. Used to tell a customer that the number typed does not match the operator
 * chosen, before a pay-in request is sent to the wrong network, and by number resolution
 * (`rails/resolve-number.ts`) to name the rails a number belongs to.
 *
 * Sources: Cameroon — MTN's market table of the MTN MoMo Open API reference (67, 650–654, 680–684)
 * and the Orange ranges existing Cameroonian integrations use (640, 655–659, 686–689, 69);
 * Côte d'Ivoire — the ten-digit plan of 2021 (ARTCI): 05 MTN, 07 Orange, 01 Moov. For the other
 * countries with a rail the references give no operator ranges: their table is empty, and a
 * number there names no operator (number resolution then answers every rail of the country). A prefix no row lists names no operator either: the
 * number is then not second-guessed.
 */

/** One country's numbering: national prefixes by operator (as in rails' `operator` column). */
export interface CountryNumberPlan {
  /**
   * Operator → the national-number prefixes that belong to it (`'67'`, `'650'`…); empty when no
   * source confirms the country's operator ranges.
   */
  prefixes: Readonly<Record<string, readonly string[]>>;
  /** Where the ranges come from, or why there are none. */
  source: string;
}

/** `from`…`to` (inclusive, same length) as prefix strings: `range(650, 654)` → `['650', …, '654']`. */
function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

/** A country whose operator ranges no source confirms: its country code, and an empty table. */
const NO_OPERATOR_RANGES = (countryCode: string): CountryNumberPlan => ({ prefixes: {}, source: `+${countryCode}: the references give no operator ranges` });

/** The number plans of every country where a rail is seeded, by ISO 3166 alpha-2 country. */
export const NUMBER_PLANS: Readonly<Record<string, CountryNumberPlan>> = {
  CM: {
    prefixes: {
      MTN_MOMO: ['67', ...range(650, 654), ...range(680, 684)],
      ORANGE_MONEY: ['640', ...range(655, 659), ...range(686, 689), '69'],
    },
    source: "MTN MoMo Open API market table (MTN); Cameroonian integrations' Orange ranges",
  },
  CI: {
    prefixes: {
      MTN_MOMO: ['05'],
      ORANGE_MONEY: ['07'],
      MOOV_MONEY: ['01'],
    },
    source: 'ARTCI ten-digit plan of 2021; MTN MoMo Open API market table',
  },
  BF: NO_OPERATOR_RANGES('226'),
  BJ: NO_OPERATOR_RANGES('229'),
  CG: NO_OPERATOR_RANGES('242'),
  GA: NO_OPERATOR_RANGES('241'),
  GH: NO_OPERATOR_RANGES('233'),
  GN: NO_OPERATOR_RANGES('224'),
  KE: NO_OPERATOR_RANGES('254'),
  MG: NO_OPERATOR_RANGES('261'),
  ML: NO_OPERATOR_RANGES('223'),
  SN: NO_OPERATOR_RANGES('221'),
  SZ: NO_OPERATOR_RANGES('268'),
  TD: NO_OPERATOR_RANGES('235'),
  UG: NO_OPERATOR_RANGES('256'),
  ZA: NO_OPERATOR_RANGES('27'),
  ZM: NO_OPERATOR_RANGES('260'),
};

/**
 * Operators whose wallet is tied to an account, not to a network: any mobile number of the
 * country may hold one (Wave opens a wallet on any Senegalese or Ivorian number).
 */
export const NETWORK_INDEPENDENT_OPERATORS: ReadonlySet<string> = new Set(['WAVE']);

/**
 * The operator whose known prefixes start `nationalNumber` in `country` (the longest matching
 * prefix wins), or null when the country's plan is not known or no prefix matches.
 */
export function operatorOfNumber(nationalNumber: string, country: string): string | null {
  const plan = NUMBER_PLANS[country];
  if (!plan) return null;
  let best: { operator: string; length: number } | null = null;
  for (const [operator, list] of Object.entries(plan.prefixes)) {
    for (const prefix of list) {
      if (nationalNumber.startsWith(prefix) && (best === null || prefix.length > best.length)) best = { operator, length: prefix.length };
    }
  }
  return best?.operator ?? null;
}

/**
 * True when `country`'s operator ranges are known (its table lists at least one operator), so a
 * number matching none of its prefixes is on no listed network. False for a country without a
 * table or with an empty one: its numbers name no operator and exclude no rail.
 */
export function hasNumberPlan(country: string): boolean {
  return Object.keys(NUMBER_PLANS[country]?.prefixes ?? {}).length > 0;
}
