/**
 * `kolo simulate mtn|orange|mpesa|wave`: an operator simulator (tests and rehearsals only). Needs
 * no configuration nor database: a simulator is the operator's side.
 */
import { CommandError, type CliContext } from '../context.ts';
import { print } from '../output.ts';

/** Options of `simulate`; `webhookUrl` is Wave's only. */
export interface SimulateOptions {
  json?: boolean | undefined;
  port: number;
  host: string;
  decisionDelayMs?: number | undefined;
  webhookUrl?: string | undefined;
}

/** Starts the simulator of `which` (`name` for humans); `ctx.result` becomes `{ service }`, stopped by the caller on a signal. */
export async function simulate(ctx: CliContext, which: 'mtn' | 'orange' | 'mpesa' | 'wave', name: string, opts: SimulateOptions): Promise<void> {
  const overrides = { port: opts.port, host: opts.host, ...(opts.decisionDelayMs !== undefined ? { decisionDelayMs: opts.decisionDelayMs } : {}) };
  let sim: { url: string; close(): Promise<void> };
  try {
    switch (which) {
      case 'mtn':
        sim = await (await import('../../connectors/mtn-momo/simulator/mtn-simulator.ts')).startMtnSimulator(overrides);
        break;
      case 'orange':
        sim = await (await import('../../connectors/orange-money/simulator/orange-simulator.ts')).startOrangeSimulator(overrides);
        break;
      case 'mpesa':
        sim = await (await import('../../connectors/mpesa/simulator/mpesa-simulator.ts')).startMpesaSimulator(overrides);
        break;
      case 'wave':
        sim = await (await import('../../connectors/wave/simulator/wave-simulator.ts')).startWaveSimulator({ ...overrides, webhookUrl: opts.webhookUrl ?? null });
        break;
    }
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  print(ctx.io, opts.json, `${name} simulator listening on ${sim.url} (docs/going-live.md, "Check and rehearse")`, { simulator: which, url: sim.url });
  ctx.result = { service: { stop: () => sim.close() } };
}
