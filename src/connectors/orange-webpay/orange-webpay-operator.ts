/**
 * Orange Money Web Payment as `operators.ts` lists it: one redirect rail per configured country
 * (`ORANGE_WEBPAY_<country>`, operator `ORANGE_MONEY`: the customer pays from an Orange Money
 * wallet), one OAuth token for all. Orange posts its notification to the per-transaction URL
 * (`/api/v1/callbacks/orange-money/<token>`), checked by its `notif_token` (`callbackProblem`).
 */
import { defineOperator } from '../operator.ts';
import { createMemorySharedState } from '../shared-state.ts';
import { orangeWebpayConfig } from './orange-webpay-config.ts';
import { createOrangeWebpayConnector, createWebpayTokens } from './orange-webpay-connector.ts';

/** The Orange Money Web Payment operator (Côte d'Ivoire, Senegal, Mali, Burkina Faso, Guinea, Madagascar, Cameroon). */
export const orangeWebpay = defineOperator({
  key: 'orangeWebpay',
  title: 'Orange Money Web Payment',
  // The customer pays from an Orange Money wallet: its rails' operator, and its callbacks' path, are Orange Money's.
  code: 'ORANGE_MONEY',
  callbackSegment: 'orange-money',
  enabledBy: 'ORANGE_WEBPAY_BASE_URL',
  config: orangeWebpayConfig,
  connectors: (settings, deps) => {
    const tokens = createWebpayTokens(settings, deps.fetch, deps.clock, deps.timeoutMs);
    const sharedState = deps.sharedState ?? createMemorySharedState(() => deps.clock.now());
    return settings.merchants.map((merchant) => [
      `ORANGE_WEBPAY_${merchant.country}`,
      createOrangeWebpayConnector({ config: settings, merchant, tokens, fetch: deps.fetch, sharedState, clock: deps.clock, timeoutMs: deps.timeoutMs, warn: deps.warn }),
    ]);
  },
  simulator: {
    command: 'orange-webpay',
    title: 'Orange Money Web Payment',
    hasWebhookUrl: false,
    start: async (options) => (await import('./simulator/orange-webpay-simulator.ts')).startOrangeWebpaySimulator(options),
  },
});
