/**
 * Wave configuration (Checkout and Payout APIs): base URL, webhook signing secret, one business
 * wallet per country with its separate Checkout and Payout keys.
 */
import { z } from 'zod';
import { operatorConfig, requireAll, type OperatorSettings } from '../operator.ts';

/** The countries Kolo serves with Wave, one wallet (and rail `WAVE_<country>`) each. */
const COUNTRIES = ['SN', 'CI'] as const;

/** The README's words for variables it documents together (one row). */
const SN_WALLET_MEANING = "The Senegal wallet's API keys for the Checkout API (pay-ins) and the Payout API (pay-outs), `wave_sn_prod_…`. Secret.";
const CI_WALLET_MEANING = "The same for the Côte d'Ivoire wallet (`wave_ci_prod_…`). Secret.";

/** On exactly when `WAVE_BASE_URL` is set; then the webhook secret and at least one whole wallet are required. */
export const waveConfig = operatorConfig(
  {
    WAVE_BASE_URL: z.string().url().optional().describe("Wave API base URL (production `https://api.wave.com`). Set: `WAVE_WEBHOOK_SECRET` and at least one wallet's two keys below are required; LIVE keys may use `WAVE_SN` / `WAVE_CI` for each configured wallet."),
    WAVE_WEBHOOK_SECRET: z.string().min(16).optional().describe("The webhook signing secret shown in Wave's Business Portal (`Wave-Signature` check). Secret."),
    WAVE_SN_CHECKOUT_API_KEY: z.string().optional().describe(SN_WALLET_MEANING),
    WAVE_SN_PAYOUT_API_KEY: z.string().optional().describe(SN_WALLET_MEANING),
    WAVE_CI_CHECKOUT_API_KEY: z.string().optional().describe(CI_WALLET_MEANING),
    WAVE_CI_PAYOUT_API_KEY: z.string().optional().describe(CI_WALLET_MEANING),
  },
  (e, ctx) => {
    if (!e.WAVE_BASE_URL || !requireAll(e, ['WAVE_WEBHOOK_SECRET'], 'WAVE_BASE_URL', ctx)) return null;
    const wallets = COUNTRIES.flatMap((country) => {
      const checkout = e[`WAVE_${country}_CHECKOUT_API_KEY`];
      const payout = e[`WAVE_${country}_PAYOUT_API_KEY`];
      if (checkout && payout) return [{ country, checkoutApiKey: checkout, payoutApiKey: payout }];
      if (checkout || payout) {
        const [missing, present] = checkout ? ['PAYOUT', 'CHECKOUT'] : ['CHECKOUT', 'PAYOUT'];
        ctx.addIssue({ code: 'custom', path: [`WAVE_${country}_${missing}_API_KEY`], message: `required with WAVE_${country}_${present}_API_KEY` });
      }
      return [];
    });
    if (wallets.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['WAVE_SN_CHECKOUT_API_KEY'], message: 'a wallet (SN or CI) is required when WAVE_BASE_URL is set' });
    }
    return { baseUrl: e.WAVE_BASE_URL.replace(/\/+$/, ''), webhookSecret: e.WAVE_WEBHOOK_SECRET!, wallets };
  },
);

/** Wave settings: base URL, webhook signing secret, wallets by country. */
export type WaveConfig = OperatorSettings<typeof waveConfig>;

/** One Wave business wallet (a country): its Checkout and Payout API keys. */
export type WaveWalletConfig = WaveConfig['wallets'][number];
