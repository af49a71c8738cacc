/**
 * Which connector serves a transaction: TEST keys always get the sandbox; LIVE keys get the
 * connector registered for the rail's operator, or none (the rail then answers
 * PROVIDER_NOT_FOUND to LIVE keys until a connector is configured).
 */
import type { Connector } from './connector.ts';

/** Environment of an API key and of the transactions it creates. */
export type Environment = 'LIVE' | 'TEST';

/**
 * Live connectors by rail code (`MTN_MOMO_CM`), plus the sandbox. Keyed by rail, not operator:
 * a connector configured for MTN Cameroon must not serve MTN Côte d'Ivoire.
 */
export interface ConnectorRegistry {
  sandbox: Connector;
  live: ReadonlyMap<string, Connector>;
}

/** The connector for the rail `railCode` in `environment`, or null when LIVE has none configured. */
export function resolveConnector(registry: ConnectorRegistry, railCode: string, environment: Environment): Connector | null {
  if (environment === 'TEST') return registry.sandbox;
  return registry.live.get(railCode) ?? null;
}
