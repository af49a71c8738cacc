/**
 * The running service: HTTP server plus background loops, with a graceful stop (stop taking
 * requests, finish the current poller tick, close the database).
 */
import type { FastifyInstance } from 'fastify';
import type { Runtime } from './bootstrap.ts';
import { buildApp } from './http/app.ts';
import { startStatusPoller, type Loop } from './jobs/status-poller.ts';
import { startWebhookWorker } from './jobs/webhook-worker.ts';

/** A started server. `url` is where it listens. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

/** Builds the app, listens on the configured host/port and starts the loops. */
export async function startServer(runtime: Runtime): Promise<RunningServer> {
  const { services } = runtime;
  const app = await buildApp(services);
  const url = await app.listen({ port: services.config.port, host: services.config.host });
  const loops: Loop[] = services.config.pollerEnabled ? [startStatusPoller(services)] : [];
  if (services.config.webhookWorkerEnabled) loops.push(startWebhookWorker(services));
  return {
    app,
    url,
    async stop() {
      await app.close();
      await Promise.all(loops.map((loop) => loop.stop()));
      await runtime.close();
    },
  };
}
