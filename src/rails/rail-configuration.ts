/**
 * The configuration an API key's application reads before it sends: the rails it can use (active,
 * in its currency, reachable in the key's environment), each with its currency and decimals, its
 * limits per operation, how the customer authorises a pay-in, the customer's instructions in
 * French and English, and each operation's availability (`availability.ts`).
 */
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import { resolveConnector } from '../connectors/registry.ts';
import type { RailRow } from '../db/queries/rails.ts';
import { baseUnitDigits } from '../domain/currency.ts';
import type { Services } from '../services.ts';
import { railAvailabilities, type AvailabilityStatus, type RailAvailability } from './availability.ts';
import { activeRails, isRailUsable } from './usable-rails.ts';

/**
 * How the customer approves a pay-in: PIN_PROMPT (the operator prompts the phone, the customer
 * types the wallet PIN), REDIRECT (the customer pays on the operator's page or app), OTP (the
 * customer types a one-time code the operator sent).
 */
export type CustomerAuthorization = 'PIN_PROMPT' | 'REDIRECT' | 'OTP';
/** The authorisations, as documented. */
export const CUSTOMER_AUTHORIZATIONS = ['PIN_PROMPT', 'REDIRECT', 'OTP'] as const satisfies readonly CustomerAuthorization[];

/**
 * How each operator's customers approve a pay-in (operators.md: MTN requesttopay, Orange
 * `mp/pay`, Daraja STK push and Airtel's USSD push prompt the phone; Wave's checkout session is a
 * page). An operator missing here is taken as a prompt, unless its LIVE connector redirects.
 */
const AUTHORIZATION_BY_OPERATOR: Readonly<Record<string, CustomerAuthorization>> = {
  MTN_MOMO: 'PIN_PROMPT',
  ORANGE_MONEY: 'PIN_PROMPT',
  MPESA: 'PIN_PROMPT',
  AIRTEL_MONEY: 'PIN_PROMPT',
  MOOV_MONEY: 'PIN_PROMPT',
  WAVE: 'REDIRECT',
};

/** One operation's limits (base units, inclusive) and availability. */
export interface OperationConfiguration {
  minAmount: number;
  maxAmount: number;
  availability: AvailabilityStatus;
}

/** A rail as the configuration endpoint shows it. */
export interface RailConfiguration {
  code: string;
  name: string;
  operator: string;
  country: string;
  currency: string;
  /** Decimal places between the base unit and the major unit (0 for XAF, XOF, UGX; 2 for GHS). */
  decimals: number;
  authorization: CustomerAuthorization;
  instructions: { fr: string | null; en: string | null };
  payIn: OperationConfiguration;
  payOut: OperationConfiguration;
}

/** `GET /api/v1/configuration`'s data. */
export interface ApplicationConfiguration {
  applicationId: string;
  environment: 'LIVE' | 'TEST';
  currency: string;
  rails: RailConfiguration[];
}

/**
 * Rails whose operator serves them through a page rather than a prompt, by code prefix: Orange
 * Money Web Payment (`ORANGE_WEBPAY_<country>`, operator `ORANGE_MONEY`, whose Cameroon OM API
 * rail prompts the phone).
 */
const REDIRECT_RAIL_PREFIXES: readonly string[] = ['ORANGE_WEBPAY_'];

/** The customer authorisation of `rail` for a key in `environment`: a LIVE redirect connector says REDIRECT. */
function authorizationOf(services: Pick<Services, 'connectors'>, rail: RailRow, environment: 'LIVE' | 'TEST'): CustomerAuthorization {
  const connector = environment === 'LIVE' ? resolveConnector(services.connectors, rail.code, 'LIVE') : null;
  if (connector?.payInFlow === 'REDIRECT') return 'REDIRECT';
  if (REDIRECT_RAIL_PREFIXES.some((prefix) => rail.code.startsWith(prefix))) return 'REDIRECT';
  return AUTHORIZATION_BY_OPERATOR[rail.operator] ?? 'PIN_PROMPT';
}

/** The configuration of the key `auth`'s application, rails by code. */
export async function applicationConfiguration(services: Pick<Services, 'db' | 'clock' | 'connectors'>, auth: ApiKeyAuth): Promise<ApplicationConfiguration> {
  const rails = (await activeRails(services)).filter((rail) => isRailUsable(services, rail, auth.currency, auth.environment));
  const availabilities = await railAvailabilities(services, auth.environment, rails.map((r) => r.code));
  const availability = (code: string, direction: RailAvailability['direction']) =>
    availabilities.find((a) => a.providerCode === code && a.direction === direction)?.status ?? 'OPERATIONAL';
  return {
    applicationId: auth.applicationId,
    environment: auth.environment,
    currency: auth.currency,
    rails: rails.map((rail) => ({
      code: rail.code,
      name: rail.name,
      operator: rail.operator,
      country: rail.country,
      currency: rail.currency,
      decimals: baseUnitDigits(rail.currency),
      authorization: authorizationOf(services, rail, auth.environment),
      instructions: { fr: rail.instructionsFr ?? rail.ussdHint, en: rail.instructionsEn ?? rail.ussdHint },
      payIn: { minAmount: rail.minAmount, maxAmount: rail.maxAmount, availability: availability(rail.code, 'PAY_IN') },
      payOut: { minAmount: rail.minAmount, maxAmount: rail.maxAmount, availability: availability(rail.code, 'PAY_OUT') },
    })),
  };
}
