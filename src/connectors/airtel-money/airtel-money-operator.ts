/**
 * Airtel Money as `operators.ts` lists it: one rail per configured country. Airtel calls back one
 * URL per application (registered on its portal): `/api/v1/callbacks/airtel`, checked by its hash
 * when callback authentication is on, and only ever triggering an enquiry.
 */
import { defineOperator } from '../operator.ts';
import { airtelMoneyConfig } from './airtel-money-config.ts';
import { createAirtelMoneyConnector } from './airtel-money-connector.ts';
import { airtelCallbackProblem, airtelCallbackReference } from './airtel-transformers.ts';

/** The Airtel Money operator (Airtel Africa Open API). */
export const airtelMoney = defineOperator({
  key: 'airtelMoney',
  title: 'Airtel Money',
  code: 'AIRTEL_MONEY',
  callbackSegment: 'airtel-money',
  enabledBy: 'AIRTEL_MONEY_BASE_URL',
  config: airtelMoneyConfig,
  connectors: (settings, deps) => {
    const connector = createAirtelMoneyConnector({ ...deps, config: settings });
    // One connector (one token) for every country; each rail reads its own country's wallet.
    return settings.countries.map((country) => [`AIRTEL_MONEY_${country}`, { ...connector, readBalance: (signal: AbortSignal) => connector.readBalanceOf(country, signal) }]);
  },
  signedCallback: {
    path: 'airtel',
    signatureHeader: 'x-airtel-hash',
    operationId: 'receiveAirtelCallback',
    summary: "Notification d'Airtel Money (déclenche une nouvelle interrogation du statut)",
    description:
      "Appelé par Airtel à l'adresse enregistrée sur son portail, pas par un marchand. Quand l'authentification des notifications est activée (AIRTEL_MONEY_CALLBACK_KEY), le champ hash du corps doit être le HMAC-SHA256 de transaction ; sinon 401. Ne fait qu'interroger Airtel.",
    railPrefix: 'AIRTEL_MONEY_',
    problem: (config, _header, raw) => (config ? airtelCallbackProblem(raw, config.callbackKey) : 'Airtel Money not configured'),
    referenceOf: airtelCallbackReference,
  },
  simulator: {
    command: 'airtel',
    title: 'Airtel Africa Open API',
    hasWebhookUrl: true,
    start: async (options) => (await import('./simulator/airtel-simulator.ts')).startAirtelSimulator(options),
  },
});
