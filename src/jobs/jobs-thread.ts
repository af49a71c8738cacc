/**
 * The background jobs thread (started by `background-jobs.ts` on PostgreSQL): opens its own
 * runtime on the serving thread's configuration (its own pool of `JOBS_PG_POOL_MAX`
 * connections, no migration: the serving thread has run them), runs the enabled loops, answers
 * the serving thread's requests for its metrics, and on `stop` stops the loops as a serving
 * instance does, closes its pool and says so. Its log lines carry `thread: "jobs"`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, openRuntime } from '../bootstrap.ts';
import { snapshotOf } from '../metrics/metrics.ts';
import { startLoops, stopLoops, type FromJobsThread, type JobsThreadData, type ToJobsThread } from './background-jobs.ts';

const port = parentPort;
if (!port) throw new Error('jobs-thread.ts runs as a worker thread only');
const { config } = workerData as JobsThreadData;
const send = (message: FromJobsThread) => port.postMessage(message);

const runtime = await openRuntime(config, {
  log: createLogger(config.logLevel).child({ thread: 'jobs' }),
  migrate: false,
  poolMax: config.jobsPgPoolMax,
});
const loops = startLoops(runtime.services);
let stopping = false;

port.on('message', (message: ToJobsThread) => {
  if (message.type === 'metrics') {
    snapshotOf(runtime.services.metrics).then(
      (snapshot) => send({ type: 'metrics', id: message.id, snapshot }),
      (error: unknown) => runtime.services.log.error({ err: error }, 'jobs thread: metrics collection failed'),
    );
  } else if (message.type === 'stop' && !stopping) {
    stopping = true;
    stopLoops(loops)
      .then(() => runtime.services.log.info('background loops stopped'))
      .then(() => runtime.close())
      .then(
        () => send({ type: 'stopped' }),
        (error: unknown) => {
          runtime.services.log.error({ err: error }, 'jobs thread: error while stopping');
          send({ type: 'stopped' });
        },
      );
  }
});
send({ type: 'ready' });
