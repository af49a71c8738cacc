/**
 * The markets the MTN MoMo Open API serves with the same paths: per market its rail, its
 * `X-Target-Environment`, its currency and its country (ISO 3166 alpha-2). Source: the market
 * table of the MoMo developer documentation (https://momodeveloper.mtn.com/api-documentation) and
 * the target environments of the public `lepresk/momo-api` SDK; a market whose currency or
 * environment no source confirms (Liberia, Rwanda) is left out. What differs between markets
 * besides these — limits, products sold, callback hosts — is the rail's (data) and the
 * credentials' (one set per market and product, `mtn-momo-config.ts`).
 */

/** One MTN market. */
export interface MtnMarket {
  /** ISO 3166 alpha-2, also the suffix of the rail code. */
  country: string;
  railCode: string;
  targetEnvironment: string;
  /** ISO 4217; its decimals are `domain/currency.ts`'s (UGX and GNF have none, GHS and ZMW two). */
  currency: string;
}

const market = (country: string, targetEnvironment: string, currency: string): MtnMarket => ({ country, railCode: `MTN_MOMO_${country}`, targetEnvironment, currency });

/** Every market Kolo serves through MTN, by country. */
export const MTN_MARKETS: readonly MtnMarket[] = [
  market('CM', 'mtncameroon', 'XAF'),
  market('CI', 'mtnivorycoast', 'XOF'),
  market('BJ', 'mtnbenin', 'XOF'),
  market('CG', 'mtncongo', 'XAF'),
  market('GH', 'mtnghana', 'GHS'),
  market('UG', 'mtnuganda', 'UGX'),
  market('ZM', 'mtnzambia', 'ZMW'),
  market('GN', 'mtnguineaconakry', 'GNF'),
  market('SZ', 'mtnswaziland', 'SZL'),
  market('ZA', 'mtnsouthafrica', 'ZAR'),
];

/** The market of `country`, or null when MTN serves none Kolo knows there. */
export function mtnMarketOf(country: string): MtnMarket | null {
  return MTN_MARKETS.find((m) => m.country === country) ?? null;
}

/** The market whose `X-Target-Environment` is `targetEnvironment`, or null (`sandbox` is none: MTN's sandbox takes EUR only). */
export function mtnMarketByEnvironment(targetEnvironment: string): MtnMarket | null {
  return MTN_MARKETS.find((m) => m.targetEnvironment === targetEnvironment) ?? null;
}
