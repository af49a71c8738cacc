/**
 * The background jobs of a serving instance: the status poller, the webhook worker and, with the
 * poller, the retention job (each enabled by its own setting).
 *
 * On PostgreSQL (`JOBS_THREAD`, on by default) they run in a worker thread of their own
 * (`jobs-thread.ts`), with their own pool of `JOBS_PG_POOL_MAX` connections: the settlements and
 * webhook sends never hold the thread that answers HTTP requests (issue 14: under the charge
 * load that thread was the limit, 85-95 % busy, while a quarter of the machine was idle;
 * docs/benchmarks.md). The thread is to the jobs what another instance is to them: the same
 * claims and leases share the work, the database is the only thing they share. On the embedded
 * PGlite, whose one connection lives in the serving thread, they run in process.
 *
 * The thread's counters and histograms are added to `/metrics` (`Metrics.addSource`); a thread
 * that ends unexpectedly is logged and started again (1 s, doubling up to 30 s), its leased work
 * picked up again when the leases run out, as after a crash.
 */
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import type { Runtime } from '../bootstrap.ts';
import type { Config } from '../config.ts';
import type { MetricsSnapshot } from '../metrics/metrics.ts';
import type { Services } from '../services.ts';
import { startRetentionJob } from './retention.ts';
import { startStatusPoller, type Loop } from './status-poller.ts';
import { startWebhookWorker } from './webhook-worker.ts';

/** The background jobs as started by `startBackgroundJobs`. */
export interface BackgroundJobs {
  /** Where they run: a worker thread, the serving thread, or nowhere (all disabled). */
  where: 'thread' | 'in-process' | 'none';
  /**
   * Stops them as each loop's `stop` does (the work under way finishes, the rest of a claimed
   * batch is released) and resolves once they have stopped; the caller bounds the wait.
   */
  stop(): Promise<void>;
}

/** What the serving thread hands the jobs thread (`workerData`, structured-cloned). */
export interface JobsThreadData {
  /** URL of jobs-thread.ts (sources, through tsx's loader) or jobs-thread.js (compiled). */
  entry: string;
  /** URL of tsx's ESM API when `entry` is TypeScript; null when compiled. */
  loader: string | null;
  /** The serving thread's configuration, its webhook encryption key resolved (hex). */
  config: Config;
}

/** Messages between the two threads. */
export type ToJobsThread = { type: 'stop' } | { type: 'metrics'; id: number };
export type FromJobsThread = { type: 'ready' } | { type: 'stopped' } | { type: 'metrics'; id: number; snapshot: MetricsSnapshot };

/** How long `/metrics` waits for the jobs thread's figures before using the last it sent. */
const METRICS_WAIT_MS = 2000;
const RESTART_FIRST_MS = 1000;
/**
 * V8 semi-space of the jobs thread, in MB: 8, as the embedded PGlite's serving thread; the
 * serving thread's 32 would add 40 MB resident to the process (issue 14, docs/benchmarks.md).
 */
const JOBS_SEMI_SPACE_MB = 8;
const RESTART_MAX_MS = 30_000;

// The thread's first module: registers tsx's loader when the jobs run from the sources (as
// bin/kolo.js does; a worker does not inherit the loader of its parent), then loads the entry.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.loader) (await import(workerData.loader)).register();
  await import(workerData.entry);
})().catch((error) => process.nextTick(() => { throw error; }));
`;

/** Starts the loops enabled by `services.config` in the calling thread. */
export function startLoops(services: Services): Loop[] {
  const { config } = services;
  const loops: Loop[] = config.pollerEnabled ? [startStatusPoller(services)] : [];
  if (config.webhookWorkerEnabled) loops.push(startWebhookWorker(services));
  // With the poller: an instance that runs background work also keeps the tables bounded.
  if (config.pollerEnabled) loops.push(startRetentionJob(services));
  return loops;
}

/** Stops `loops` together (see `Loop.stop`). */
export async function stopLoops(loops: Loop[]): Promise<void> {
  await Promise.all(loops.map((loop) => loop.stop()));
}

/** Starts the background jobs of `runtime`: in a worker thread on PostgreSQL (unless `JOBS_THREAD=false`), else in process. */
export function startBackgroundJobs(runtime: Runtime): BackgroundJobs {
  const { services, database } = runtime;
  const { config } = services;
  if (!config.pollerEnabled && !config.webhookWorkerEnabled) return { where: 'none', stop: async () => undefined };
  if (database.kind !== 'postgres' || !config.jobsThread) {
    const loops = startLoops(services);
    return { where: 'in-process', stop: () => stopLoops(loops) };
  }
  return startJobsThread(runtime);
}

function startJobsThread(runtime: Runtime): BackgroundJobs {
  const { services } = runtime;
  const log = services.log;
  const compiled = import.meta.url.endsWith('.js');
  const entry = new URL(compiled ? './jobs-thread.js' : './jobs-thread.ts', import.meta.url).href;
  const data: JobsThreadData = {
    entry,
    loader: compiled ? null : import.meta.resolve('tsx/esm/api'),
    config: { ...services.config, webhookEncryptionKey: runtime.webhookEncryptionKey.toString('hex') },
  };

  let worker: Worker | null = null;
  let stopping = false;
  let restartDelayMs = RESTART_FIRST_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let lastSnapshot: MetricsSnapshot = [];
  let nextId = 0;
  const waiting = new Map<number, (snapshot: MetricsSnapshot) => void>();

  const spawn = () => {
    // V8 reads its flags when it creates an isolate, and `--max-semi-space-size` (scripts/start.sh:
    // 32 MB on PostgreSQL, for the requests' short-lived objects) overrides a Worker's
    // `resourceLimits.maxYoungGenerationSizeMb`: set to the jobs' size just before the thread's
    // isolate is created. The serving thread's heap, configured at start, keeps its own
    // (measured: its new space stays at 57 MB; the jobs thread's 56 MB at 32, 16 MB at 8).
    setFlagsFromString(`--max-semi-space-size=${JOBS_SEMI_SPACE_MB}`);
    const thread = new Worker(BOOTSTRAP, { eval: true, workerData: data, name: 'kolo-jobs' });
    worker = thread;
    thread.on('message', (message: FromJobsThread) => {
      if (message.type === 'ready') {
        restartDelayMs = RESTART_FIRST_MS;
        log.info({ threadId: thread.threadId }, 'background jobs running in their own thread');
      } else if (message.type === 'metrics') {
        lastSnapshot = message.snapshot;
        waiting.get(message.id)?.(message.snapshot);
        waiting.delete(message.id);
      } else if (message.type === 'stopped') {
        void thread.terminate();
      }
    });
    thread.on('error', (error) => log.error({ err: error }, 'background jobs thread failed'));
    thread.on('exit', (code) => {
      worker = null;
      for (const answer of waiting.values()) answer(lastSnapshot);
      waiting.clear();
      if (stopping) return;
      log.error({ code, restartInMs: restartDelayMs }, 'background jobs thread ended; starting it again');
      restartTimer = setTimeout(spawn, restartDelayMs);
      restartDelayMs = Math.min(restartDelayMs * 2, RESTART_MAX_MS);
    });
  };
  spawn();

  services.metrics.addSource(
    () =>
      new Promise<MetricsSnapshot>((resolve) => {
        const thread = worker;
        if (!thread) return resolve(lastSnapshot);
        const id = (nextId += 1);
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve(lastSnapshot);
        }, METRICS_WAIT_MS);
        waiting.set(id, (snapshot) => {
          clearTimeout(timer);
          resolve(snapshot);
        });
        thread.postMessage({ type: 'metrics', id } satisfies ToJobsThread);
      }),
  );

  return {
    where: 'thread',
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const thread = worker;
      if (!thread) return;
      const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
      thread.postMessage({ type: 'stop' } satisfies ToJobsThread);
      await exited;
    },
  };
}
