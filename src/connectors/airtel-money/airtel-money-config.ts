/**
 * Airtel Money (Airtel Africa Open API) configuration: its variables and the settings they make.
 * One application (client id and secret) serves the countries listed in `AIRTEL_MONEY_COUNTRIES`,
 * each a rail `AIRTEL_MONEY_<country>` called with that country's `X-Country` and `X-Currency`.
 */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

/** The countries Kolo serves through Airtel, with their currency (Airtel's XAF markets first). */
export const AIRTEL_MARKETS: Readonly<Record<string, { currency: string }>> = {
  CG: { currency: 'XAF' },
  GA: { currency: 'XAF' },
  TD: { currency: 'XAF' },
};

const REQUIRED = ['AIRTEL_MONEY_CLIENT_ID', 'AIRTEL_MONEY_CLIENT_SECRET', 'AIRTEL_MONEY_PIN', 'AIRTEL_MONEY_PUBLIC_KEY'] as const;

/** On exactly when `AIRTEL_MONEY_BASE_URL` is set; then its credentials, PIN and public key are required. */
export const airtelMoneyConfig = operatorConfig(
  {
    AIRTEL_MONEY_BASE_URL: z.string().url().optional().describe('Airtel Africa Open API base URL (production `https://openapi.airtel.africa`, staging `https://openapiuat.airtel.africa`). Set: LIVE keys may use `AIRTEL_MONEY_<country>` for each of `AIRTEL_MONEY_COUNTRIES`, and the other `AIRTEL_MONEY_*` variables are required.'),
    AIRTEL_MONEY_CLIENT_ID: z.string().optional().describe('The Airtel application\'s client id and secret (`POST /auth/oauth2/token`). Secret.'),
    AIRTEL_MONEY_CLIENT_SECRET: z.string().optional().describe('The Airtel application\'s client id and secret (`POST /auth/oauth2/token`). Secret.'),
    AIRTEL_MONEY_PIN: z.string().regex(/^\d{4,6}$/, 'must be the 4 to 6 digits of the disbursement wallet PIN').optional().describe('PIN of the disbursement wallet, sent RSA-encrypted with `AIRTEL_MONEY_PUBLIC_KEY` in each disbursement. Secret.'),
    AIRTEL_MONEY_PUBLIC_KEY: z.string().optional().describe('Airtel\'s RSA public key for the PIN, as the portal gives it (base64 DER, or PEM).'),
    AIRTEL_MONEY_COUNTRIES: z
      .string()
      .regex(/^[A-Z]{2}(,[A-Z]{2})*$/, 'must be comma-separated country codes, e.g. CG,GA,TD')
      .refine((v) => v.split(',').every((c) => Object.hasOwn(AIRTEL_MARKETS, c)), `countries must be among ${Object.keys(AIRTEL_MARKETS).join(', ')}`)
      .default('CG')
      .describe('Countries served through Airtel, comma-separated (CG, GA, TD: XAF): each makes the rail `AIRTEL_MONEY_<country>` usable by LIVE keys.'),
    AIRTEL_MONEY_CALLBACK_KEY: z.string().optional().describe('Key of Airtel\'s callback authentication, when enabled on the portal: a callback whose `hash` does not verify is ignored. Either way a callback only triggers an enquiry. Secret.'),
  },
  (e, ctx) => {
    if (!e.AIRTEL_MONEY_BASE_URL || !requireAll(e, REQUIRED, 'AIRTEL_MONEY_BASE_URL', ctx)) return null;
    return {
      baseUrl: e.AIRTEL_MONEY_BASE_URL.replace(/\/+$/, ''),
      clientId: e.AIRTEL_MONEY_CLIENT_ID!,
      clientSecret: e.AIRTEL_MONEY_CLIENT_SECRET!,
      pin: e.AIRTEL_MONEY_PIN!,
      publicKey: e.AIRTEL_MONEY_PUBLIC_KEY!,
      countries: e.AIRTEL_MONEY_COUNTRIES.split(','),
      callbackKey: e.AIRTEL_MONEY_CALLBACK_KEY ?? null,
    };
  },
);

/** Airtel Money settings; secrets never leave the connector. */
export type AirtelMoneyConfig = OperatorSettings<typeof airtelMoneyConfig>;
