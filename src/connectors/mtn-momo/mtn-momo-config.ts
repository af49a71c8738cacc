/** MTN MoMo Open API configuration (Collection, Disbursement): its variables and the settings they make. */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

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

/** On exactly when `MTN_MOMO_BASE_URL` is set; then both products' credentials are required. */
export const mtnMomoConfig = operatorConfig(
  {
    MTN_MOMO_BASE_URL: z.string().url().optional().describe('MTN MoMo Open API base URL (production `https://proxy.momoapi.mtn.com`). Set: LIVE keys may use `MTN_MOMO_CM`, and every `MTN_MOMO_*` credential below is required.'),
    MTN_MOMO_TARGET_ENVIRONMENT: z.string().regex(/^[a-z]{3,40}$/, 'must be lowercase letters, e.g. mtncameroon').default('mtncameroon').describe("`X-Target-Environment` sent to MTN (`sandbox` in MTN's sandbox, which only takes EUR)."),
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_COLLECTION_API_USER: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_COLLECTION_API_KEY: z.string().optional().describe(COLLECTION_MEANING),
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: z.string().optional().describe(DISBURSEMENT_MEANING),
    MTN_MOMO_DISBURSEMENT_API_USER: z.string().optional().describe(DISBURSEMENT_MEANING),
    MTN_MOMO_DISBURSEMENT_API_KEY: z.string().optional().describe(DISBURSEMENT_MEANING),
  },
  (e, ctx) => {
    if (!e.MTN_MOMO_BASE_URL || !requireAll(e, PRODUCT_KEYS, 'MTN_MOMO_BASE_URL', ctx)) return null;
    return {
      baseUrl: e.MTN_MOMO_BASE_URL.replace(/\/+$/, ''),
      targetEnvironment: e.MTN_MOMO_TARGET_ENVIRONMENT,
      /** Collection product (pay-ins): credentials from the partner portal. */
      collection: {
        subscriptionKey: e.MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY!,
        apiUser: e.MTN_MOMO_COLLECTION_API_USER!,
        apiKey: e.MTN_MOMO_COLLECTION_API_KEY!,
      },
      /** Disbursement product (pay-outs). */
      disbursement: {
        subscriptionKey: e.MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY!,
        apiUser: e.MTN_MOMO_DISBURSEMENT_API_USER!,
        apiKey: e.MTN_MOMO_DISBURSEMENT_API_KEY!,
      },
    };
  },
);

/** MTN MoMo settings; secrets never leave the connector. */
export type MtnMomoConfig = OperatorSettings<typeof mtnMomoConfig>;
