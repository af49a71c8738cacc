/**
 * The LIVE connectors the configuration turns on, by the rail code they serve. A rail is served
 * to LIVE keys exactly when its connector is configured (`MTN_MOMO_BASE_URL`,
 * `ORANGE_MONEY_BASE_URL` and their credentials): Kolo's operator connectors are for Cameroon.
 */
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Connector } from './connector.ts';
import type { FetchFn } from './operator-http.ts';
import { createMtnMomoConnector } from './mtn-momo/mtn-momo-connector.ts';
import { createOrangeMoneyConnector } from './orange-money/orange-money-connector.ts';

/** What the live connectors need besides their configuration. */
export interface LiveConnectorDeps {
  fetch: FetchFn;
  clock: Clock;
  uuid: () => string;
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Rail code → connector, for every configured operator. */
export function createLiveConnectors(config: Config, deps: LiveConnectorDeps): Map<string, Connector> {
  const live = new Map<string, Connector>();
  const common = { fetch: deps.fetch, clock: deps.clock, timeoutMs: config.connectorTimeoutMs, warn: deps.warn };
  if (config.mtnMomo) live.set('MTN_MOMO_CM', createMtnMomoConnector({ ...common, config: config.mtnMomo, uuid: deps.uuid }));
  if (config.orangeMoney) live.set('ORANGE_MONEY_CM', createOrangeMoneyConnector({ ...common, config: config.orangeMoney }));
  return live;
}
