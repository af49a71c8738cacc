/**
 * The entry of a simulator's worker thread (`startSimulatorWorker` starts it): starts the
 * simulator `workerData` names, says `ready` with its URL, then answers the bench's calls —
 * `snapshot` (copies of its logs since the last `clear`), `clear`, `close`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startMtnSimulator } from '../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { startOrangeSimulator } from '../src/connectors/orange-money/simulator/orange-simulator.ts';
import type { SimulatorCall, SimulatorReply, SimulatorSpec, SimSnapshot } from './simulator-worker.ts';

const port = parentPort;
if (!port) throw new Error('simulator-thread.ts runs in a worker thread (startSimulatorWorker), not as a script');
const spec = workerData as SimulatorSpec;
const sim = spec.operator === 'MTN' ? await startMtnSimulator(spec.options) : await startOrangeSimulator(spec.options);
/** `connectionsOpened()` at the last `clear`. */
let connectionsMark = 0;

const snapshot = (): SimSnapshot => ({
  requests: sim.requests.map(({ headers: _headers, ...record }) => record),
  callbacks: sim.callbacks,
  moved: sim.moved(),
  connectionsOpened: sim.connectionsOpened() - connectionsMark,
});

const reply = (message: SimulatorReply) => port.postMessage(message);

port.on('message', (message: SimulatorCall) => {
  const { id, op } = message;
  if (op === 'snapshot') return reply({ kind: 'answer', id, snapshot: snapshot() });
  if (op === 'clear') {
    sim.requests.splice(0);
    sim.callbacks.splice(0);
    connectionsMark = sim.connectionsOpened();
    return reply({ kind: 'answer', id });
  }
  // close: the bench ends the thread once answered.
  sim.close().then(
    () => reply({ kind: 'answer', id }),
    (error: unknown) => reply({ kind: 'failed', id, error: String(error) }),
  );
});
reply({ kind: 'ready', url: sim.url });
