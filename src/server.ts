/**
 * The running service: HTTP server plus background loops (and the metrics-only listener of
 * `METRICS_PORT`), with a graceful stop: stop taking connections and finish the requests in
 * flight, while the poller and the webhook worker finish the work under way and release the rest
 * of their batch; then close the metrics listener and the database. `main.ts` bounds it all by
 * `SHUTDOWN_TIMEOUT_MS`.
 */
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { enableProcessMetrics } from './metrics/metrics.ts';
import type { Services } from './services.ts';
import type { Runtime } from './bootstrap.ts';
import { buildApp } from './http/app.ts';
import { startStatusPoller, type Loop } from './jobs/status-poller.ts';
import { startLedgerRollUp } from './jobs/ledger-roll-up.ts';
import { startWebhookWorker } from './jobs/webhook-worker.ts';
import { startReconciliationJob } from './jobs/reconciliation.ts';
import { startRetentionJob } from './jobs/retention.ts';
import { startFloatJob } from './jobs/float-job.ts';
import { startBatchDispatcher } from './jobs/batch-dispatcher.ts';

type RunningServices = Pick<Services, 'metrics' | 'config' | 'log'>;

/** A started server. `url` is where it listens. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Longest the caller should wait for `stop` (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  stop(): Promise<void>;
}

/** Builds the app, listens on the configured host/port and starts the loops. */
export async function startServer(runtime: Runtime): Promise<RunningServer> {
  const { services } = runtime;
  const app = await buildApp(services);
  const url = await app.listen({ port: services.config.port, host: services.config.host });
  enableProcessMetrics(services.metrics);
  const metricsServer = services.config.metricsPort ? await listenMetrics(services) : null;
  const loops: Loop[] = services.config.pollerEnabled ? [startStatusPoller(services)] : [];
  if (services.config.webhookWorkerEnabled) loops.push(startWebhookWorker(services));
  // With the poller: an instance that runs background work also keeps the tables bounded.
  if (services.config.pollerEnabled) loops.push(startRetentionJob(services), startLedgerRollUp(services), startBatchDispatcher(services));
  if (services.config.pollerEnabled && services.config.reconciliationDaily) loops.push(startReconciliationJob(services));
  // With the poller too: the float job reads operator balances and sends the pay-outs waiting for float.
  if (services.config.pollerEnabled) loops.push(startFloatJob(services));
  return {
    app,
    url,
    shutdownTimeoutMs: services.config.shutdownTimeoutMs,
    async stop() {
      const log = services.log;
      await Promise.all([
        app.close().then(() => log.info('http: requests in flight finished, listener closed')),
        ...loops.map((loop) => loop.stop()),
      ]);
      log.info('background loops stopped');
      if (metricsServer) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      await runtime.close();
      log.info('database closed');
    },
  };
}

/** The metrics-only listener: `GET /metrics` on `METRICS_HOST:METRICS_PORT`, nothing else (404). */
async function listenMetrics(services: RunningServices): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    services.metrics.registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': services.metrics.registry.contentType, 'cache-control': 'no-store' }).end(body),
      (error: unknown) => {
        services.log.error({ err: error }, 'metrics collection failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(services.config.metricsPort, services.config.metricsHost, () => resolve());
  });
  services.log.info({ port: services.config.metricsPort, host: services.config.metricsHost }, 'metrics listening');
  return server;
}
