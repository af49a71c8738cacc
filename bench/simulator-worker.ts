/**
 * An operator simulator in a worker thread of its own, and the bench's handle on it. The LIVE
 * path's load generator must measure Kolo, not itself: a simulator on the generator's event loop
 * would take its CPU and delay its arrivals, and that delay would count in the client latencies.
 * In a worker the simulator has its own event loop; the bench reads its logs only at step marks,
 * as copies (`snapshot()`), and every time in them is `absoluteNowMs()`, the clock both threads
 * share.
 */
import { Worker } from 'node:worker_threads';
import type { MtnSimulatorOptions } from '../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import type { OrangeSimulatorOptions } from '../src/connectors/orange-money/simulator/orange-simulator.ts';
import type { SimCallback, SimMovement, SimRequest } from '../src/connectors/simulator-http.ts';

/**
 * Which simulator to start and its options (merged over its defaults, as `startMtnSimulator` and
 * `startOrangeSimulator` do). The options cross to the thread by structured clone: data only, so
 * no `nowMs` function.
 */
export type SimulatorSpec =
  | { operator: 'MTN'; options: Partial<Omit<MtnSimulatorOptions, 'nowMs'>> }
  | { operator: 'ORANGE'; options: Partial<Omit<OrangeSimulatorOptions, 'nowMs'>> };

/** One request as a snapshot carries it: the simulator's record without its headers (the bench reads none). */
export type SimRequestRecord = Omit<SimRequest, 'headers'>;

/** A copy of a simulator's logs since the last `clear()` (since its start before any), and its money records. */
export interface SimSnapshot {
  /** Requests received, in order; `receivedAtMs`/`answeredAtMs` are `absoluteNowMs()` times. */
  requests: SimRequestRecord[];
  /** Callbacks sent (or tried); `status` null while one is in flight or when it failed. */
  callbacks: SimCallback[];
  /** Every money movement since the simulator started (never cleared: reconciliation reads them all). */
  moved: SimMovement[];
  /** TCP connections the simulator accepted. */
  connectionsOpened: number;
}

/** A simulator running in a worker thread. */
export interface SimulatorWorker {
  /** Its base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** A copy of its logs since the last `clear()`. */
  snapshot(): Promise<SimSnapshot>;
  /** Drops its request and callback logs and restarts its connection count (a step's start; its memory stays flat). */
  clear(): Promise<void>;
  /** Closes the simulator, then ends the thread. */
  close(): Promise<void>;
}

/** A message from the bench to the thread. */
export type SimulatorCall = { id: number; op: 'snapshot' | 'clear' | 'close' };

/** A message from the thread to the bench: started, or the answer to call `id`. */
export type SimulatorReply =
  | { kind: 'ready'; url: string }
  | { kind: 'answer'; id: number; snapshot?: SimSnapshot }
  | { kind: 'failed'; id: number; error: string };

/** Longest wait for the thread to start, or for one call's answer (a snapshot of a long step copies tens of MB). */
const CALL_TIMEOUT_MS = 60_000;

/**
 * Starts `spec`'s simulator in a new worker thread; resolves once it listens. Throws when the
 * thread fails to start or does not answer within 60 s.
 */
export async function startSimulatorWorker(spec: SimulatorSpec): Promise<SimulatorWorker> {
  // The thread's entry is TypeScript. On Node 20 a worker does not get the loader hooks that
  // `--import tsx` registers (its entry fails with ERR_UNKNOWN_FILE_EXTENSION), so the entry is
  // imported through tsx's `tsImport`, which registers them for that import's module tree; a
  // clean `execArgv` keeps the parent's flags (vitest's, the bench's) out of the thread.
  const entry = new URL('./simulator-thread.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  const worker = new Worker(boot, { eval: true, execArgv: [], workerData: spec });
  const pending = new Map<number, { resolve: (reply: SimulatorReply) => void; reject: (error: Error) => void }>();
  let ready: { resolve: (url: string) => void; reject: (error: Error) => void } | null = null;
  let ended: Error | null = null;
  const fail = (error: Error) => {
    ended = error;
    ready?.reject(error);
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('message', (reply: SimulatorReply) => {
    if (reply.kind === 'ready') return ready?.resolve(reply.url);
    const p = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.kind === 'failed') p?.reject(new Error(`${spec.operator} simulator thread: ${reply.error}`));
    else p?.resolve(reply);
  });
  worker.on('error', (error) => fail(new Error(`${spec.operator} simulator thread failed: ${error.message}`)));
  worker.on('exit', (code) => fail(new Error(`${spec.operator} simulator thread exited (${code})`)));

  const withTimeout = <T>(what: string, executor: (resolve: (value: T) => void, reject: (error: Error) => void) => void) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${spec.operator} simulator thread: no answer to ${what} within ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
      executor(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });

  let url: string;
  try {
    url = await withTimeout<string>('start', (resolve, reject) => {
      ready = { resolve, reject };
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  ready = null;

  let nextId = 0;
  const call = (op: SimulatorCall['op']) =>
    withTimeout<SimulatorReply>(op, (resolve, reject) => {
      if (ended) return reject(ended);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op } satisfies SimulatorCall);
    });

  return {
    url,
    async snapshot() {
      const reply = await call('snapshot');
      if (reply.kind !== 'answer' || !reply.snapshot) throw new Error(`${spec.operator} simulator thread: snapshot answered without one`);
      return reply.snapshot;
    },
    async clear() {
      await call('clear');
    },
    async close() {
      if (ended) return;
      try {
        await call('close');
      } finally {
        worker.removeAllListeners('exit');
        await worker.terminate();
      }
    },
  };
}
