/**
 * MTN MoMo Open API configuration (Collection, Disbursement), one set of credentials per market
 * and product: its variables and the settings they make. The `MTN_MOMO_*` credentials serve the
 * market of `MTN_MOMO_TARGET_ENVIRONMENT` (Cameroon by default); `MTN_MOMO_MARKETS` adds others.
 */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';
import { MTN_MARKETS, mtnMarketByEnvironment } from './mtn-markets.ts';

const PRODUCT_KEYS = [
  'MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY',
  'MTN_MOMO_COLLECTION_API_USER',
  'MTN_MOMO_COLLECTION_API_KEY',
  'MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY',
  'MTN_MOMO_DISBURSEMENT_API_USER',
  'MTN_MOMO_DISBURSEMENT_API_KEY',
] as const;

/** The README's words for variables it documents together (one row). */
const COLLECTION_MEANING = 'Collection product (pay-ins): its `Ocp-Apim-Subscription-Key`, API user (UUID) and API key. Secret.';
const DISBURSEMENT_MEANING = 'Disbursement product (pay-outs): its own subscription key, API user and API key. Secret.';

/** One product's credentials, from the partner portal of its market. */
const productCredentials = z.object({ subscriptionKey: z.string().min(1), apiUser: z.string().min(1), apiKey: z.string().min(1) }).strict();

/** `MTN_MOMO_MARKETS`: market country → its products' credentials. */
const marketsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"CI":{"collection":{…},"disbursement":{…}}}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.partialRecord(
      z.enum(MTN_MARKETS.map((m) => m.country) as [string, ...string[]], { error: `market must be one of ${MTN_MARKETS.map((m) => m.country).join(', ')}` }),
      z.object({ baseUrl: z.string().url().optional(), collection: productCredentials, disbursement: productCredentials }).strict(),
    ),
  );

/** The settings of one market: where to call, under which `X-Target-Environment`, with which credentials. */
export interface MtnMomoMarketSettings {
  /** The rail this market's connector serves (`MTN_MOMO_CI`). */
  railCode: string;
  baseUrl: string;
  targetEnvironment: string;
  /** Collection product (pay-ins): credentials from the market's partner portal. */
  collection: z.output<typeof productCredentials>;
  /** Disbursement product (pay-outs). */
  disbursement: z.output<typeof productCredentials>;
}

/** On exactly when `MTN_MOMO_BASE_URL` is set; then both products' credentials are required. */
export const mtnMomoConfig = operatorConfig(
  {
    MTN_MOMO_BASE_URL: z.string().url().optional().describe('MTN MoMo Open API base URL (production `https://proxy.momoapi.mtn.com`). Set: LIVE keys may use the rail of the market of `MTN_MOMO_TARGET_ENVIRONMENT` (`MTN_MOMO_CM` by default), and every `MTN_MOMO_*` credential below is required.'),
    MTN_MOMO_TARGET_ENVIRONMENT: z.string().regex(/^[a-z]{3,40}$/, 'must be lowercase letters, e.g. mtncameroon').default('mtncameroon').describe("`X-Target-Environment` sent to MTN (`sandbox` in MTN's sandbox, which only takes EUR)."),
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_COLLECTION_API_USER: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_COLLECTION_API_KEY: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: z.string().optional().describe(DISBURSEMENT_MEANING),
    MTN_MOMO_DISBURSEMENT_API_USER: z.string().optional().describe(DISBURSEMENT_MEANING),
    MTN_MOMO_DISBURSEMENT_API_KEY: z.string().optional().describe(DISBURSEMENT_MEANING),
    MTN_MOMO_MARKETS: marketsJson
      .optional()
      .describe(
        'More MTN markets, as JSON: `{"CI":{"collection":{"subscriptionKey":"…","apiUser":"…","apiKey":"…"},"disbursement":{…}},"UG":{…}}` (CM, CI, BJ, CG, GH, UG, ZM, GN, SZ, ZA; a market may add its own `baseUrl`). Each makes LIVE keys able to use `MTN_MOMO_<country>` with its own credentials and `X-Target-Environment`. Secret.',
      ),
  },
  (e, ctx) => {
    if (!e.MTN_MOMO_BASE_URL || !requireAll(e, PRODUCT_KEYS, 'MTN_MOMO_BASE_URL', ctx)) return null;
    const baseUrl = e.MTN_MOMO_BASE_URL.replace(/\/+$/, '');
    // MTN's sandbox (`sandbox`, EUR only) is no market: its credentials stand for Cameroon's rail.
    const primary = mtnMarketByEnvironment(e.MTN_MOMO_TARGET_ENVIRONMENT)?.railCode ?? 'MTN_MOMO_CM';
    const markets: MtnMomoMarketSettings[] = [
      {
        railCode: primary,
        baseUrl,
        targetEnvironment: e.MTN_MOMO_TARGET_ENVIRONMENT,
        collection: {
          subscriptionKey: e.MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY!,
          apiUser: e.MTN_MOMO_COLLECTION_API_USER!,
          apiKey: e.MTN_MOMO_COLLECTION_API_KEY!,
        },
        disbursement: {
          subscriptionKey: e.MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY!,
          apiUser: e.MTN_MOMO_DISBURSEMENT_API_USER!,
          apiKey: e.MTN_MOMO_DISBURSEMENT_API_KEY!,
        },
      },
    ];
    for (const [country, entry] of Object.entries(e.MTN_MOMO_MARKETS ?? {})) {
      if (!entry) continue;
      const { baseUrl: marketUrl, ...credentials } = entry;
      const market = MTN_MARKETS.find((m) => m.country === country)!;
      if (market.railCode === primary) {
        ctx.addIssue({ code: 'custom', path: ['MTN_MOMO_MARKETS'], message: `${country} is already served by the MTN_MOMO_* credentials (MTN_MOMO_TARGET_ENVIRONMENT)` });
        continue;
      }
      markets.push({ railCode: market.railCode, baseUrl: marketUrl?.replace(/\/+$/, '') ?? baseUrl, targetEnvironment: market.targetEnvironment, ...credentials });
    }
    return { markets };
  },
);

/** MTN MoMo settings: one entry per market served; secrets never leave the connector. */
export type MtnMomoConfig = OperatorSettings<typeof mtnMomoConfig>;
