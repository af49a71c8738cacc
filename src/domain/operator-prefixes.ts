/**
 * Which operator a mobile number belongs to, from the first digits of its national significant
 * number: one table per country (ISO 3166 alpha-2), listing only the ranges a source confirms.
 * Used to tell a customer that the number typed does not match the operator chosen, before a
 * pay-in request is sent to the wrong network, and by number resolution (`rails/resolve-number.ts`)
 * to name the rails a number belongs to.
 *
 * Sources: Cameroon — MTN's market table of the MTN MoMo Open API reference (67, 650–654, 680–684)
 * and the Orange ranges existing Cameroonian integrations use (640, 655–659, 686–689, 69);
 * Côte d'Ivoire — the ten-digit plan of 2021 (ARTCI): 05 MTN, 07 Orange, 01 Moov. A country
 * missing here, or a prefix no row lists, names no operator: the number is then not second-guessed.
 */

/** One country's numbering: national prefixes by operator (as in rails' `operator` column). */
export interface CountryNumberPlan {
  /** Operator → the national-number prefixes that belong to it (`'67'`, `'650'`…). */
  prefixes: Readonly<Record<string, readonly string[]>>;
}

/** `from`…`to` (inclusive, same length) as prefix strings: `range(650, 654)` → `['650', …, '654']`. */
function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

/** The known number plans, by ISO 3166 alpha-2 country. */
export const NUMBER_PLANS: Readonly<Record<string, CountryNumberPlan>> = {
  CM: {
    prefixes: {
      MTN_MOMO: ['67', ...range(650, 654), ...range(680, 684)],
      ORANGE_MONEY: ['640', ...range(655, 659), ...range(686, 689), '69'],
    },
  },
  CI: {
    prefixes: {
      MTN_MOMO: ['05'],
      ORANGE_MONEY: ['07'],
      MOOV_MONEY: ['01'],
    },
  },
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

/** True when `country` has a known number plan (so a number matching none of its prefixes is on no listed network). */
export function hasNumberPlan(country: string): boolean {
  return NUMBER_PLANS[country] !== undefined;
}
