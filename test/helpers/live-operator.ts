/**
 * The setup every LIVE operator test file shares: one operator simulator, one webhook receiver and
 * one harness with a LIVE tenant for the whole file; before each test the simulator's fault switch
 * is off, it answers without latency and its callbacks are delivered once, at once; after the file
 * everything is closed.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { pollOnce, type PollTickResult } from '../../src/jobs/status-poller.ts';
import { NO_LATENCY, type SimCallback, type SimCallbackOptions, type SimFault, type SimLatency, type SimMovement, type SimRequest } from '../../src/connectors/simulator-http.ts';
import { startWaveSimulator, WAVE_SIM_DEFAULTS, type WaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import type { Harness, Tenant } from '../harness.ts';
import { startLiveHarness, waveEnv } from './live.ts';
import { startReceiver, type Receiver } from './webhooks.ts';

/** What the shared setup and the fault scenarios drive of an operator simulator (every simulator in `src/connectors/<operator>/simulator/` has it). */
export interface OperatorSimulator {
  url: string;
  options: { callbacks: SimCallbackOptions; latencyMs: SimLatency };
  /** Every request received, in order. */
  requests: SimRequest[];
  callbacks: SimCallback[];
  fault: SimFault | null;
  /** Makes every pending `…198` decision now; returns how many. */
  decideLate(): number;
  /** The money the operator moved, one row per successful request. */
  moved(): SimMovement[];
  close(): Promise<void>;
}

/**
 * A file's running LIVE setup. The fields are set by the `beforeAll` hook that `useLiveOperator`
 * registers: read them in tests and hooks, never while the file is being collected.
 */
export interface LiveOperator<S extends OperatorSimulator> {
  sim: S;
  receiver: Receiver;
  h: Harness;
  t: Tenant;
  /** Advances the manual clock by `ms` (past the next poll) and runs one poller tick. */
  pollAfter(ms: number): Promise<PollTickResult>;
}

/** How to start one operator's simulator and point Kolo at it. */
export interface LiveOperatorSetup<S extends OperatorSimulator> {
  startSimulator: () => Promise<S>;
  /** The connector's environment variables for `sim` (`mtnEnv`, `orangeEnv`, … of `live.ts`). */
  env: (sim: S) => Record<string, string>;
  /** The LIVE tenant's currency; XAF when absent. */
  currency?: string;
  /** Runs once the harness is up, before the first test: wiring the simulator back to Kolo, funding. */
  ready?: (live: LiveOperator<S>) => Promise<void> | void;
  /** Resets before each test, beyond the fault switch and callback delivery. */
  reset?: (sim: S) => void;
  /** Runs after the last test, before anything closes; the closing happens even when it throws. */
  beforeClose?: (live: LiveOperator<S>) => Promise<void>;
}

/**
 * Registers the file's `beforeAll`, `afterAll` and `beforeEach` hooks for one operator simulator
 * behind a LIVE tenant (see `LiveOperatorSetup`); returns the object those hooks fill in.
 */
export function useLiveOperator<S extends OperatorSimulator>(setup: LiveOperatorSetup<S>): LiveOperator<S> {
  // Filled in by beforeAll: collection must not start servers, and each file gets its own.
  const live = {
    async pollAfter(ms: number) {
      live.h.clock.advance(ms);
      return pollOnce(live.h.services);
    },
  } as LiveOperator<S>;

  beforeAll(async () => {
    live.sim = await setup.startSimulator();
    live.receiver = await startReceiver();
    ({ h: live.h, t: live.t } = await startLiveHarness(setup.env(live.sim), live.receiver.url, undefined, setup.currency));
    await setup.ready?.(live);
  });
  afterAll(async () => {
    try {
      // No harness: beforeAll failed, and that failure is the one to read.
      if (live.h && setup.beforeClose) await setup.beforeClose(live);
    } finally {
      // Optional chaining: whatever beforeAll had started before a failure is still closed.
      await live.h?.close();
      await live.sim?.close();
      await live.receiver?.close();
    }
  });
  beforeEach(() => {
    live.sim.fault = null;
    live.sim.options.callbacks = { delayMs: 0, duplicate: false, drop: false };
    live.sim.options.latencyMs = { ...NO_LATENCY };
    setup.reset?.(live.sim);
  });
  return live;
}

/**
 * The Wave setup both Wave LIVE files use: XOF tenant, the simulator's webhooks sent to Kolo and
 * its clock on the harness's manual clock (session expiry), signatures valid and the SN wallet
 * refilled before each test.
 */
export function waveOperator(): LiveOperatorSetup<WaveSimulator> {
  return {
    startSimulator: () => startWaveSimulator({ decisionDelayMs: 30 }),
    env: waveEnv,
    currency: 'XOF',
    ready(live) {
      live.sim.options.webhookUrl = `${live.h.baseUrl}/api/v1/callbacks/wave`;
      live.sim.options.nowMs = () => live.h.clock.now().getTime();
    },
    reset(sim) {
      sim.options.webhookSignature = 'valid';
      sim.options.wallets.SN.balance = WAVE_SIM_DEFAULTS.wallets.SN.balance;
    },
  };
}
