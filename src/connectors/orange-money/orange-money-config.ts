/** Orange Money Cameroon OM API configuration (`omcoreapis`): its variables and the settings they make. */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

const CREDENTIALS = [
  'ORANGE_MONEY_CONSUMER_KEY',
  'ORANGE_MONEY_CONSUMER_SECRET',
  'ORANGE_MONEY_API_USERNAME',
  'ORANGE_MONEY_API_PASSWORD',
  'ORANGE_MONEY_CHANNEL_MSISDN',
  'ORANGE_MONEY_PIN',
] as const;

/** On exactly when `ORANGE_MONEY_BASE_URL` is set; then every other variable is required. */
export const orangeMoneyConfig = operatorConfig(
  {
    ORANGE_MONEY_BASE_URL: z.string().url().optional(),
    ORANGE_MONEY_CONSUMER_KEY: z.string().optional(),
    ORANGE_MONEY_CONSUMER_SECRET: z.string().optional(),
    ORANGE_MONEY_API_USERNAME: z.string().optional(),
    ORANGE_MONEY_API_PASSWORD: z.string().optional(),
    ORANGE_MONEY_CHANNEL_MSISDN: z.string().regex(/^6\d{8}$/, 'must be the 9-digit merchant number, e.g. 691234567').optional(),
    ORANGE_MONEY_PIN: z.string().regex(/^\d{4,6}$/, 'must be 4 to 6 digits').optional(),
  },
  (e, ctx) => {
    if (!e.ORANGE_MONEY_BASE_URL || !requireAll(e, CREDENTIALS, 'ORANGE_MONEY_BASE_URL', ctx)) return null;
    return {
      baseUrl: e.ORANGE_MONEY_BASE_URL.replace(/\/+$/, ''),
      consumerKey: e.ORANGE_MONEY_CONSUMER_KEY!,
      consumerSecret: e.ORANGE_MONEY_CONSUMER_SECRET!,
      apiUsername: e.ORANGE_MONEY_API_USERNAME!,
      apiPassword: e.ORANGE_MONEY_API_PASSWORD!,
      channelMsisdn: e.ORANGE_MONEY_CHANNEL_MSISDN!,
      pin: e.ORANGE_MONEY_PIN!,
    };
  },
);

/** Orange Money settings; secrets never leave the connector. */
export type OrangeMoneyConfig = OperatorSettings<typeof orangeMoneyConfig>;
