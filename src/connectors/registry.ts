/**
 * Which connector serves a transaction: TEST keys always get the sandbox; LIVE keys get the
 * connector registered for the rail's operator, or none (the rail then answers
 * PROVIDER_NOT_FOUND to LIVE keys until a connector is configured).
 */
import type { Connector } from './connector.ts';

/** Environment of an API key and of the transactions it creates. */
export type Environment = 'LIVE' | 'TEST';

/** Connectors by operator, plus the sandbox. */
export interface ConnectorRegistry {
  sandbox: Connector;
  live: ReadonlyMap<string, Connector>;
}

/** The connector for `operator` in `environment`, or null when LIVE has none configured. */
export function resolveConnector(registry: ConnectorRegistry, operator: string, environment: Environment): Connector | null {
  if (environment === 'TEST') return registry.sandbox;
  return registry.live.get(operator) ?? null;
}
