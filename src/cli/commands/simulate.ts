/**
 * `kolo simulate <operator>` (`mtn`, `orange`, `mpesa`, `wave`: each registered operator's
 * simulator command, `connectors/operators.ts`): an operator simulator (tests and rehearsals
 * only). Needs no configuration nor database: a simulator is the operator's side.
 */
import type { SimulatorEntry } from '../../connectors/operator.ts';
import { CommandError, type CliContext } from '../context.ts';
import { print } from '../output.ts';

/** Options of `simulate`; `webhookUrl` only for simulators with `hasWebhookUrl` (Wave). */
export interface SimulateOptions {
  json?: boolean | undefined;
  port: number;
  host: string;
  decisionDelayMs?: number | undefined;
  webhookUrl?: string | undefined;
}

/** Starts `simulator`; `ctx.result` becomes `{ service }`, stopped by the caller on a signal. */
export async function simulate(ctx: CliContext, simulator: SimulatorEntry, opts: SimulateOptions): Promise<void> {
  const options = {
    port: opts.port,
    host: opts.host,
    ...(opts.decisionDelayMs !== undefined ? { decisionDelayMs: opts.decisionDelayMs } : {}),
    ...(simulator.hasWebhookUrl ? { webhookUrl: opts.webhookUrl } : {}),
  };
  let sim: { url: string; close(): Promise<void> };
  try {
    sim = await simulator.start(options);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  print(ctx.io, opts.json, `${simulator.title} simulator listening on ${sim.url} (docs/going-live.md, "Check and rehearse")`, { simulator: simulator.command, url: sim.url });
  ctx.result = { service: { stop: () => sim.close() } };
}
