/**
 * The LIVE connectors the configuration turns on, by the rail code they serve. A rail is served
 * to LIVE keys exactly when its connector is configured (`MTN_MOMO_BASE_URL`,
 * `ORANGE_MONEY_BASE_URL`, `MPESA_BASE_URL`, `WAVE_BASE_URL` and their credentials).
 */
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Connector } from './connector.ts';
import type { FetchFn } from './operator-http.ts';
import type { SharedState } from './shared-state.ts';
import { createMtnMomoConnector } from './mtn-momo/mtn-momo-connector.ts';
import { createOrangeMoneyConnector } from './orange-money/orange-money-connector.ts';
import { createMpesaConnector } from './mpesa/mpesa-connector.ts';
import { createWaveConnector } from './wave/wave-connector.ts';

/** What the live connectors need besides their configuration. */
export interface LiveConnectorDeps {
  fetch: FetchFn;
  clock: Clock;
  uuid: () => string;
  /**
   * State shared by every instance on the database (`connector_state`): the Daraja token and
   * its pauses. Absent (`kolo connectors check`): this process's memory.
   */
  sharedState?: SharedState;
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Rail code → connector, for every configured operator. */
export function createLiveConnectors(config: Config, deps: LiveConnectorDeps): Map<string, Connector> {
  const live = new Map<string, Connector>();
  const common = { fetch: deps.fetch, clock: deps.clock, timeoutMs: config.connectorTimeoutMs, warn: deps.warn };
  if (config.mtnMomo) live.set('MTN_MOMO_CM', createMtnMomoConnector({ ...common, config: config.mtnMomo, uuid: deps.uuid }));
  if (config.orangeMoney) live.set('ORANGE_MONEY_CM', createOrangeMoneyConnector({ ...common, config: config.orangeMoney }));
  if (config.mpesa) live.set('MPESA_KE', createMpesaConnector({ ...common, config: config.mpesa, sharedState: deps.sharedState }));
  for (const wallet of config.wave?.wallets ?? []) {
    live.set(
      `WAVE_${wallet.country}`,
      createWaveConnector({ baseUrl: config.wave!.baseUrl, wallet, fetch: deps.fetch, timeoutMs: config.connectorTimeoutMs }),
    );
  }
  return live;
}

/** Hosts that an operator on the Internet cannot call back. */
const PRIVATE_HOST = /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|\[?::1\]?$|\[?f[cd][0-9a-f]{2}:|.*\.local$|.*\.internal$)/i;

/**
 * Why the callback base URL will not work in production, or null: operators call back only public
 * HTTPS URLs (MTN: "production is HTTPS only with an approved CA chain"). Only checked when a
 * LIVE connector is configured; without callbacks the poller still settles every transaction.
 */
export function callbackBaseUrlWarning(config: Pick<Config, 'callbackBaseUrl' | 'mtnMomo' | 'orangeMoney' | 'mpesa' | 'wave'>): string | null {
  if (!config.mtnMomo && !config.orangeMoney && !config.mpesa && !config.wave) return null;
  const url = new URL(config.callbackBaseUrl);
  if (url.protocol !== 'https:' || PRIVATE_HOST.test(url.hostname)) {
    return `CALLBACK_BASE_URL (${config.callbackBaseUrl}) is not a public HTTPS URL: operators cannot call back, transactions will settle by polling only`;
  }
  return null;
}
