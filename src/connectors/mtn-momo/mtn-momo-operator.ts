/** MTN MoMo as `operators.ts` lists it: rail `MTN_MOMO_CM`, callbacks by per-transaction URL. */
import { defineOperator } from '../operator.ts';
import { mtnMomoConfig } from './mtn-momo-config.ts';
import { createMtnMomoConnector } from './mtn-momo-connector.ts';

/** The MTN MoMo operator (Cameroon). */
export const mtnMomo = defineOperator({
  key: 'mtnMomo',
  title: 'MTN MoMo',
  enabledBy: 'MTN_MOMO_BASE_URL',
  config: mtnMomoConfig,
  connectors: (config, deps) => [['MTN_MOMO_CM', createMtnMomoConnector({ ...deps, config })]],
  simulator: {
    command: 'mtn',
    title: 'MTN MoMo Open API',
    start: async (options) => (await import('./simulator/mtn-simulator.ts')).startMtnSimulator(options),
  },
});
