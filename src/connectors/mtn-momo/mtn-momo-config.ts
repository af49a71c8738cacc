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

/** On exactly when `MTN_MOMO_BASE_URL` is set; then both products' credentials are required. */
export const mtnMomoConfig = operatorConfig(
  {
    MTN_MOMO_BASE_URL: z.string().url().optional(),
    MTN_MOMO_TARGET_ENVIRONMENT: z.string().regex(/^[a-z]{3,40}$/, 'must be lowercase letters, e.g. mtncameroon').default('mtncameroon'),
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: z.string().optional(),
    MTN_MOMO_COLLECTION_API_USER: z.string().optional(),
    MTN_MOMO_COLLECTION_API_KEY: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_API_USER: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_API_KEY: z.string().optional(),
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
