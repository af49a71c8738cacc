/**
 * Wave as `operators.ts` lists it: one rail per configured wallet (`WAVE_SN`, `WAVE_CI`), and
 * one signed webhook URL (`Wave-Signature`, Wave's Webhooks documentation) whose events name our
 * `client_reference`.
 */
import { defineOperator } from '../operator.ts';
import { waveConfig } from './wave-config.ts';
import { createWaveConnector } from './wave-connector.ts';
import { waveEventSubject, waveSignatureProblem } from './wave-transformers.ts';

/** The Wave operator (Senegal, Côte d'Ivoire). */
export const wave = defineOperator({
  key: 'wave',
  title: 'Wave',
  code: 'WAVE',
  callbackSegment: 'wave',
  enabledBy: 'WAVE_BASE_URL',
  config: waveConfig,
  connectors: (config, deps) =>
    config.wallets.map((wallet) => [
      `WAVE_${wallet.country}`,
      createWaveConnector({ baseUrl: config.baseUrl, wallet, fetch: deps.fetch, timeoutMs: deps.timeoutMs }),
    ]),
  signedCallback: {
    path: 'wave',
    signatureHeader: 'wave-signature',
    operationId: 'receiveWaveWebhook',
    summary: 'Webhook signé de Wave (déclenche une nouvelle interrogation du statut)',
    description: "Appelé par Wave, pas par un marchand ; authentifié par l'en-tête Wave-Signature.",
    railPrefix: 'WAVE_',
    problem: (config, signature, raw, nowMs) => (config ? waveSignatureProblem(signature, raw, config.webhookSecret, nowMs) : 'Wave not configured'),
    referenceOf: (body) => waveEventSubject(body).clientReference ?? null,
  },
  simulator: {
    command: 'wave',
    title: 'Wave',
    hasWebhookUrl: true,
    start: async (options) => (await import('./simulator/wave-simulator.ts')).startWaveSimulator({ ...options, webhookUrl: options.webhookUrl ?? null }),
  },
});
