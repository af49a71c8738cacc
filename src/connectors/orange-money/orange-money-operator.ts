/** Orange Money as `operators.ts` lists it: rail `ORANGE_MONEY_CM`, callbacks by per-transaction URL. */
import { defineOperator } from '../operator.ts';
import { orangeMoneyConfig } from './orange-money-config.ts';
import { createOrangeMoneyConnector } from './orange-money-connector.ts';

/** The Orange Money operator (Cameroon). */
export const orangeMoney = defineOperator({
  key: 'orangeMoney',
  title: 'Orange Money',
  code: 'ORANGE_MONEY',
  callbackSegment: 'orange-money',
  enabledBy: 'ORANGE_MONEY_BASE_URL',
  config: orangeMoneyConfig,
  connectors: (config, deps) => [['ORANGE_MONEY_CM', createOrangeMoneyConnector({ ...deps, config })]],
  simulator: {
    command: 'orange',
    title: 'Orange Money Cameroon OM API',
    start: async (options) => (await import('./simulator/orange-simulator.ts')).startOrangeSimulator(options),
  },
});
