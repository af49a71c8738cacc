/**
 * MTN MoMo as `operators.ts` lists it: one connector per configured market, each serving its
 * market's rail only (`mtn-markets.ts`), callbacks by per-transaction URL.
 */
import { defineOperator } from '../operator.ts';
import { mtnMomoConfig } from './mtn-momo-config.ts';
import { createMtnMomoConnector } from './mtn-momo-connector.ts';

/** The MTN MoMo operator (every market of `MTN_MARKETS` that is configured). */
export const mtnMomo = defineOperator({
  key: 'mtnMomo',
  title: 'MTN MoMo',
  code: 'MTN_MOMO',
  callbackSegment: 'mtn-momo',
  enabledBy: 'MTN_MOMO_BASE_URL',
  config: mtnMomoConfig,
  connectors: (settings, deps) => settings.markets.map((market) => [market.railCode, createMtnMomoConnector({ ...deps, config: market })]),
  simulator: {
    command: 'mtn',
    title: 'MTN MoMo Open API',
    start: async (options) => (await import('./simulator/mtn-simulator.ts')).startMtnSimulator(options),
  },
});
