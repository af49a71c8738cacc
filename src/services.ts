/**
 * The plain object of dependencies every use case takes: database, clock, ids, connectors,
 * logger, configuration and the listeners run inside each status change's database
 * transaction (the webhook outbox registers one). Built by `createServices`; no container.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Clock } from './domain/clock.ts';
import type { Ids } from './domain/ids.ts';
import type { ConnectorRegistry } from './connectors/registry.ts';
import { createSandboxConnector } from './connectors/sandbox/sandbox-connector.ts';
import { createLiveConnectors } from './connectors/live-connectors.ts';
import { operatorTransport } from './connectors/operator-http.ts';
import { createConnectorStateStore } from './db/queries/connector-state.ts';
import type { StatusChangeListener } from './payments/index.ts';
import { createHttpSender, type WebhookSender } from './webhooks/http-sender.ts';
import { createSecretBox, loadWebhookEncryptionKey, type SecretBox } from './webhooks/secret-box.ts';
import { webhookOutboxListener } from './webhooks/webhook-events.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { instrumentRegistry } from './metrics/instrument-connector.ts';
import { finishedTransactionsListener } from './metrics/transaction-metrics.ts';
import { createApiActivity, type ApiActivity } from './jobs/fair-share.ts';

/** Everything a use case may need. */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  ids: Ids;
  connectors: ConnectorRegistry;
  log: Logger;
  /** Run inside the database transaction of every status change (outbox pattern). */
  statusListeners: StatusChangeListener[];
  /** Encrypts webhook secrets at rest (key from WEBHOOK_ENCRYPTION_KEY or generated). */
  webhookSecretBox: SecretBox;
  /** Sends webhook attempts (SSRF-filtered HTTP); tests may inject another. */
  webhookSender: WebhookSender;
  /** Prometheus metrics of this service (metrics/metrics.ts). */
  metrics: Metrics;
  /**
   * Requests the API has begun (counted by http/app.ts); the background loops read it to leave the
   * API its share of the event loop (jobs/fair-share.ts).
   */
  apiActivity: ApiActivity;
  /**
   * Set only in the services an HTTP request's use cases receive (`request.services`, http/app.ts):
   * that request's `X-Request-Id`, which the audit log records; `log` is then the request's logger,
   * every line of which carries it. Absent in background jobs.
   */
  requestId?: string;
}

/** Builds the services; `overrides` lets tests inject a clock, ids or connectors. */
export function createServices(
  base: Pick<Services, 'config' | 'db' | 'clock' | 'ids' | 'log'> & Partial<Pick<Services, 'connectors' | 'statusListeners' | 'webhookSecretBox' | 'webhookSender'>>,
): Services {
  const metrics = createMetrics(base.db, base.clock);
  const webhookSecretBox = base.webhookSecretBox ?? createSecretBox(loadWebhookEncryptionKey(base.config, base.log));
  const connectors = base.connectors ?? {
    sandbox: createSandboxConnector({
      clock: base.clock,
      delayMs: base.config.sandboxDelayMs,
      lateDelayMs: base.config.sandboxLateDelayMs,
    }),
    live: createLiveConnectors(base.config, {
      fetch: operatorTransport({ connectionsPerOrigin: base.config.operatorMaxConnections }),
      clock: base.clock,
      uuid: base.ids.uuid,
      // Operator tokens are secrets: sealed at rest with the webhook secrets' key.
      sharedState: createConnectorStateStore(base.db, webhookSecretBox, base.clock),
      warn: (fields, message) => base.log.warn(fields, message),
    }),
  };
  return {
    ...base,
    metrics,
    apiActivity: createApiActivity(),
    connectors: instrumentRegistry(connectors, metrics),
    // The webhook outbox is always on: every terminal status change writes its delivery.
    statusListeners: [webhookOutboxListener(base), finishedTransactionsListener(metrics), ...(base.statusListeners ?? [])],
    webhookSecretBox,
    webhookSender: base.webhookSender ?? createHttpSender(() => base.config.webhookAllowPrivateHosts),
  };
}
