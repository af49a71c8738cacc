/**
 * Orange Money Web Payment configuration (Orange's "OM WebPay" API, developer.orange.com): the
 * Orange API host, the OAuth client credentials, one merchant key per country (a merchant wallet
 * each, rail `ORANGE_WEBPAY_<country>`), and whether the development environment is used.
 */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

/**
 * The countries Orange sells Web Payment in (reference/operators.md §2A; SDK code), with their
 * currency. Each currency is counted in whole units (no minor unit: `domain/currency.ts`), as
 * Orange's `amount` is an integer in major units.
 */
export const ORANGE_WEBPAY_MARKETS: Readonly<Record<string, { currency: string }>> = {
  CI: { currency: 'XOF' },
  SN: { currency: 'XOF' },
  ML: { currency: 'XOF' },
  BF: { currency: 'XOF' },
  GN: { currency: 'GNF' },
  MG: { currency: 'MGA' },
  CM: { currency: 'XAF' },
};

const REQUIRED = ['ORANGE_WEBPAY_CLIENT_ID', 'ORANGE_WEBPAY_CLIENT_SECRET', 'ORANGE_WEBPAY_MERCHANT_KEYS'] as const;

/** The README's words for the two OAuth variables (one row). */
const CLIENT_MEANING = "The Orange application's client id and secret (`POST /oauth/v3/token`, Basic). Secret.";

/** `CI:key,SN:key` → the pairs; keys are the merchant keys Orange issues per merchant wallet. */
const MERCHANT_KEYS = /^[A-Z]{2}:[^,:\s]+(,[A-Z]{2}:[^,:\s]+)*$/;

/** Boolean variable values (as `config.ts` reads them). */
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v));

/** On exactly when `ORANGE_WEBPAY_BASE_URL` is set; then the client credentials and merchant keys are required. */
export const orangeWebpayConfig = operatorConfig(
  {
    ORANGE_WEBPAY_BASE_URL: z
      .string()
      .url()
      .optional()
      .describe('Orange API host of Orange Money Web Payment (production `https://api.orange.com`). Set: LIVE keys may use `ORANGE_WEBPAY_<country>` for each country of `ORANGE_WEBPAY_MERCHANT_KEYS`, and the other `ORANGE_WEBPAY_*` variables are required.'),
    ORANGE_WEBPAY_CLIENT_ID: z.string().optional().describe(CLIENT_MEANING),
    ORANGE_WEBPAY_CLIENT_SECRET: z.string().optional().describe(CLIENT_MEANING),
    ORANGE_WEBPAY_MERCHANT_KEYS: z
      .string()
      .regex(MERCHANT_KEYS, 'must be country:merchant_key pairs, comma-separated, e.g. CI:abc123,SN:def456')
      .refine((v) => v.split(',').every((pair) => Object.hasOwn(ORANGE_WEBPAY_MARKETS, pair.split(':')[0]!)), `countries must be among ${Object.keys(ORANGE_WEBPAY_MARKETS).join(', ')}`)
      .optional()
      .describe('The merchant key of each country\'s merchant wallet, `country:merchant_key` comma-separated (CI, SN, ML, BF: XOF; GN: GNF; MG: MGA; CM: XAF): each makes the rail `ORANGE_WEBPAY_<country>` usable by LIVE keys. Secret.'),
    ORANGE_WEBPAY_DEV: bool
      .default(false)
      .describe("`true`: Orange's development environment (path `/orange-money-webpay/dev/v1`, currency `OUV`) for every country; `false`: production (`/orange-money-webpay/<country>/v1`, the country's currency)."),
  },
  (e, ctx) => {
    if (!e.ORANGE_WEBPAY_BASE_URL || !requireAll(e, REQUIRED, 'ORANGE_WEBPAY_BASE_URL', ctx)) return null;
    const merchants = e.ORANGE_WEBPAY_MERCHANT_KEYS!.split(',').map((pair) => {
      const [country, merchantKey] = pair.split(':') as [string, string];
      return { country, currency: ORANGE_WEBPAY_MARKETS[country]!.currency, merchantKey };
    });
    return {
      baseUrl: e.ORANGE_WEBPAY_BASE_URL.replace(/\/+$/, ''),
      clientId: e.ORANGE_WEBPAY_CLIENT_ID!,
      clientSecret: e.ORANGE_WEBPAY_CLIENT_SECRET!,
      merchants,
      isDev: e.ORANGE_WEBPAY_DEV,
    };
  },
);

/** Orange Money Web Payment settings; secrets never leave the connector. */
export type OrangeWebpayConfig = OperatorSettings<typeof orangeWebpayConfig>;

/** One country's merchant wallet: its country, currency and merchant key. */
export type OrangeWebpayMerchant = OrangeWebpayConfig['merchants'][number];
