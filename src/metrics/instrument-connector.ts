/**
 * Connector call metrics: wraps a connector so that every `prepare`, `initiate` and `getStatus` call is
 * counted by operator, call and outcome (the result's `kind`, or `THREW` for an exception) and
 * timed. The wrapped connector behaves exactly as the original.
 */
import type { Connector } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import { secondsSince, type Metrics } from './metrics.ts';

/** `connector`, with its calls measured in `metrics`. */
export function instrumentConnector(connector: Connector, metrics: Metrics): Connector {
  const measure = async <T extends { kind: string }>(call: 'prepare' | 'initiate' | 'status', run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const result = await run();
      metrics.connectorCalls.inc({ operator: connector.operator, call, outcome: result.kind });
      return result;
    } catch (error) {
      metrics.connectorCalls.inc({ operator: connector.operator, call, outcome: 'THREW' });
      throw error;
    } finally {
      metrics.connectorDuration.observe({ operator: connector.operator, call }, secondsSince(started));
    }
  };
  return Object.assign(Object.create(connector) as Connector, {
    operator: connector.operator,
    prepare: (request: Parameters<Connector['prepare']>[0], signal: AbortSignal) => measure('prepare', () => connector.prepare(request, signal)),
    initiate: (request: Parameters<Connector['initiate']>[0], signal: AbortSignal) => measure('initiate', () => connector.initiate(request, signal)),
    getStatus: (query: Parameters<Connector['getStatus']>[0], signal: AbortSignal) => measure('status', () => connector.getStatus(query, signal)),
  });
}

/** The registry with every connector (sandbox and live) measured. */
export function instrumentRegistry(registry: ConnectorRegistry, metrics: Metrics): ConnectorRegistry {
  return {
    ...registry,
    sandbox: instrumentConnector(registry.sandbox, metrics),
    live: new Map([...registry.live].map(([operator, connector]) => [operator, instrumentConnector(connector, metrics)])),
  };
}
