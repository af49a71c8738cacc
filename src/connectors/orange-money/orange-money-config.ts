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

/** The README's words for variables it documents together (one row). */
const CONSUMER_MEANING = 'OAuth client credentials (`POST /token`). Secret.';
const API_USER_MEANING = 'Channel API user, sent as `X-AUTH-TOKEN`. Secret.';
const CHANNEL_MEANING = 'The merchant (channel) number, 9 digits (`6XXXXXXXX`), and its PIN, sent in `pay` bodies. The PIN is secret.';

/** On exactly when `ORANGE_MONEY_BASE_URL` is set; then every other variable is required. */
export const orangeMoneyConfig = operatorConfig(
  {
    ORANGE_MONEY_BASE_URL: z.string().url().optional().describe('Orange Money Cameroon OM API host (e.g. `https://api-s1.orange.cm`). Set: LIVE keys may use `ORANGE_MONEY_CM`, and every `ORANGE_MONEY_*` variable below is required.'),
    ORANGE_MONEY_CONSUMER_KEY: z.string().optional().describe(CONSUMER_MEANING),
    ORANGE_MONEY_CONSUMER_SECRET: z.string().optional().describe(CONSUMER_MEANING),
    ORANGE_MONEY_API_USERNAME: z.string().optional().describe(API_USER_MEANING),
    ORANGE_MONEY_API_PASSWORD: z.string().optional().describe(API_USER_MEANING),
    ORANGE_MONEY_CHANNEL_MSISDN: z.string().regex(/^6\d{8}$/, 'must be the 9-digit merchant number, e.g. 691234567').optional().describe(CHANNEL_MEANING),
    ORANGE_MONEY_PIN: z.string().regex(/^\d{4,6}$/, 'must be 4 to 6 digits').optional().describe(CHANNEL_MEANING),
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
