/**
 * The LIVE connectors the configuration turns on, by the rail code they serve. A rail is served
 * to LIVE keys exactly when its operator is configured (its `enabledBy` variable, such as
 * `MTN_MOMO_BASE_URL`, and the credentials that go with it): see `operators.ts`.
 */
import type { Config } from '../config.ts';
import type { Connector } from './connector.ts';
import type { LiveConnectorDeps } from './operator.ts';
import { operators, type OperatorKey } from './operators.ts';

export type { LiveConnectorDeps } from './operator.ts';

/** Rail code → connector, for every configured operator. */
export function createLiveConnectors(config: Config, deps: Omit<LiveConnectorDeps, 'timeoutMs'>): Map<string, Connector> {
  const live = new Map<string, Connector>();
  for (const operator of operators) {
    const settings = config[operator.key as OperatorKey];
    if (!settings) continue;
    for (const [railCode, connector] of operator.connectors(settings, { ...deps, timeoutMs: config.connectorTimeoutMs })) live.set(railCode, connector);
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
export function callbackBaseUrlWarning(config: Pick<Config, 'callbackBaseUrl' | OperatorKey>): string | null {
  if (!operators.some((operator) => config[operator.key as OperatorKey])) return null;
  const url = new URL(config.callbackBaseUrl);
  if (url.protocol !== 'https:' || PRIVATE_HOST.test(url.hostname)) {
    return `CALLBACK_BASE_URL (${config.callbackBaseUrl}) is not a public HTTPS URL: operators cannot call back, transactions will settle by polling only`;
  }
  return null;
}
