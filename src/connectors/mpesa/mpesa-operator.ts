/**
 * M-Pesa as `operators.ts` lists it: rail `MPESA_KE`, callbacks by per-transaction URL under
 * `daraja` (their bodies are read by the connector's `readCallback`).
 */
import { defineOperator } from '../operator.ts';
import { mpesaConfig } from './mpesa-config.ts';
import { createMpesaConnector } from './mpesa-connector.ts';

/** The M-Pesa Daraja operator (Kenya). */
export const mpesa = defineOperator({
  key: 'mpesa',
  title: 'M-Pesa',
  code: 'MPESA',
  // Safaricom refuses callback URLs containing "mpesa" (Safaricom's Daraja documentation).
  callbackSegment: 'daraja',
  enabledBy: 'MPESA_BASE_URL',
  config: mpesaConfig,
  connectors: (config, deps) => [['MPESA_KE', createMpesaConnector({ ...deps, config })]],
  simulator: {
    command: 'mpesa',
    title: 'M-Pesa Daraja',
    start: async (options) => (await import('./simulator/mpesa-simulator.ts')).startMpesaSimulator(options),
  },
});
