/** M-Pesa Daraja 3.0 configuration (M-Pesa Express, B2C): its variables and the settings they make. */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

const SHORTCODE = /^\d{5,7}$/;
const CREDENTIALS = [
  'MPESA_CONSUMER_KEY',
  'MPESA_CONSUMER_SECRET',
  'MPESA_SHORTCODE',
  'MPESA_PASSKEY',
  'MPESA_B2C_SHORTCODE',
  'MPESA_INITIATOR_NAME',
  'MPESA_SECURITY_CREDENTIAL',
] as const;

/** The README's words for variables it documents together (one row). */
const CONSUMER_MEANING = "The Daraja app's OAuth consumer key and secret. Secret.";
const SHORTCODE_MEANING = 'STK push `BusinessShortCode` (paybill or store number) and its Lipa Na M-Pesa Online passkey (sandbox `174379` and the public sandbox passkey). The passkey is secret.';
const B2C_MEANING = "B2C pay-outs: the organisation shortcode (`PartyA`, sandbox `600xxx`), the initiator name (sandbox `testapi`) and the initiator password encrypted with Safaricom's certificate, base64 (the Daraja portal generates it). The credential is secret.";

/** On exactly when `MPESA_BASE_URL` is set; then every variable but the till number is required. */
export const mpesaConfig = operatorConfig(
  {
    MPESA_BASE_URL: z.string().url().optional().describe('M-Pesa Daraja base URL (production `https://api.safaricom.co.ke`, sandbox `https://sandbox.safaricom.co.ke`). Set: LIVE keys may use `MPESA_KE`, and every `MPESA_*` variable below (but the till number) is required.'),
    MPESA_CONSUMER_KEY: z.string().optional().describe(CONSUMER_MEANING),
    MPESA_CONSUMER_SECRET: z.string().optional().describe(CONSUMER_MEANING),
    MPESA_SHORTCODE: z.string().regex(SHORTCODE, 'must be the 5 to 7-digit paybill or store number, e.g. 174379').optional().describe(SHORTCODE_MEANING),
    MPESA_PASSKEY: z.string().optional().describe(SHORTCODE_MEANING),
    MPESA_TRANSACTION_TYPE: z.enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']).default('CustomerPayBillOnline').describe('Or `CustomerBuyGoodsOnline` (a till: `MPESA_TILL_NUMBER` is then required and sent as `PartyB`).'),
    MPESA_TILL_NUMBER: z.string().regex(SHORTCODE, 'must be the 5 to 7-digit till number').optional().describe('Till number for `CustomerBuyGoodsOnline`.'),
    MPESA_B2C_SHORTCODE: z.string().regex(SHORTCODE, 'must be the 5 to 7-digit B2C shortcode, e.g. 600996').optional().describe(B2C_MEANING),
    MPESA_INITIATOR_NAME: z.string().optional().describe(B2C_MEANING),
    MPESA_SECURITY_CREDENTIAL: z.string().optional().describe(B2C_MEANING),
  },
  (e, ctx) => {
    const isBuyGoods = e.MPESA_TRANSACTION_TYPE === 'CustomerBuyGoodsOnline';
    if (isBuyGoods && e.MPESA_BASE_URL && !e.MPESA_TILL_NUMBER) {
      ctx.addIssue({ code: 'custom', path: ['MPESA_TILL_NUMBER'], message: 'required when MPESA_TRANSACTION_TYPE is CustomerBuyGoodsOnline' });
    }
    if (!e.MPESA_BASE_URL || !requireAll(e, CREDENTIALS, 'MPESA_BASE_URL', ctx)) return null;
    return {
      baseUrl: e.MPESA_BASE_URL.replace(/\/+$/, ''),
      consumerKey: e.MPESA_CONSUMER_KEY!,
      consumerSecret: e.MPESA_CONSUMER_SECRET!,
      /** STK `BusinessShortCode` (paybill or store number). */
      shortCode: e.MPESA_SHORTCODE!,
      passkey: e.MPESA_PASSKEY!,
      transactionType: e.MPESA_TRANSACTION_TYPE,
      /** STK `PartyB`: the shortcode (paybill) or the till number (buy goods). */
      partyB: isBuyGoods ? (e.MPESA_TILL_NUMBER ?? '') : e.MPESA_SHORTCODE!,
      /** B2C `PartyA`: the organisation shortcode that pays out. */
      b2cShortCode: e.MPESA_B2C_SHORTCODE!,
      initiatorName: e.MPESA_INITIATOR_NAME!,
      /** The initiator password RSA-encrypted with Safaricom's certificate, base64. */
      securityCredential: e.MPESA_SECURITY_CREDENTIAL!,
    };
  },
);

/** M-Pesa settings (a `DarajaAccount` plus its base URL and app credentials); secrets never leave the connector. */
export type MpesaConfig = OperatorSettings<typeof mpesaConfig>;
