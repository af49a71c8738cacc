import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatorWorker, type SimulatorWorker } from '../../bench/simulator-worker.ts';
import { absoluteNowMs } from '../../src/connectors/simulator-http.ts';

// The LIVE bench's simulators run in worker threads; the bench sees them through this handle.
describe('a simulator in a worker thread', () => {
  let sim: SimulatorWorker;
  beforeAll(async () => {
    sim = await startSimulatorWorker({ operator: 'MTN', options: { decisionDelayMs: 10 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('logs a request with times on the clock the bench shares', async () => {
    const before = absoluteNowMs();
    const res = await fetch(`${sim.url}/collection/token/`, { method: 'POST' });
    expect(res.status).toBe(401); // no credentials: still a request the simulator logged
    await res.text();

    // The simulator stamps the answer when the server's response closes, which can follow the
    // moment the client has read it; the snapshot's round trip through the worker comes after both.
    const snapshot = await sim.snapshot();
    const after = absoluteNowMs();
    expect(snapshot.requests).toHaveLength(1);
    const [request] = snapshot.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/collection/token/', answerStatus: 401 });
    expect(request).not.toHaveProperty('headers');
    expect(request!.receivedAtMs).toBeGreaterThanOrEqual(before - 1);
    expect(request!.answeredAtMs).toBeGreaterThanOrEqual(request!.receivedAtMs!);
    expect(request!.answeredAtMs).toBeLessThanOrEqual(after + 1);
    expect(snapshot.connectionsOpened).toBe(1);
    expect(snapshot.moved).toEqual([]);
  });

  it('forgets its logs and restarts its connection count on clear', async () => {
    await sim.clear();
    const snapshot = await sim.snapshot();
    expect(snapshot.requests).toEqual([]);
    expect(snapshot.callbacks).toEqual([]);
    expect(snapshot.connectionsOpened).toBe(0);
  });
});
