/**
 * `kolo connectors check`: fetches a token from each configured operator (secrets masked), warns
 * about a callback base URL operators cannot reach; exit 1 when one fails or none is configured.
 */
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../domain/clock.ts';
import { callbackBaseUrlWarning, createLiveConnectors } from '../../connectors/live-connectors.ts';
import { operators } from '../../connectors/operators.ts';
import { operatorTransport } from '../../connectors/operator-http.ts';
import type { CliContext } from '../context.ts';
import { configOf } from '../database.ts';
import { print } from '../output.ts';

/** `kolo connectors check`. */
export async function connectorsCheck(ctx: CliContext, opts: { json?: boolean | undefined }): Promise<void> {
  const config = configOf(ctx);
  const live = createLiveConnectors(config, { fetch: operatorTransport(), clock: systemClock, uuid: randomUUID });
  if (live.size === 0) {
    const switches = operators.map((operator) => operator.enabledBy);
    const set = `${switches.slice(0, -1).join(', ')} or ${switches.at(-1)}`;
    print(ctx.io, opts.json, `no operator connector configured (set ${set} and their credentials)`, { connectors: [] });
    ctx.result = { exitCode: 1 };
    return;
  }
  const results = [];
  for (const [rail, connector] of live) {
    for (const line of (await connector.check?.()) ?? []) results.push({ rail, ...line });
  }
  const warning = callbackBaseUrlWarning(config);
  const human = results.map((r) => `${r.ok ? 'OK  ' : 'FAIL'} ${r.rail} ${r.product}: ${r.detail}`);
  if (warning) human.push(`WARN ${warning}`);
  print(ctx.io, opts.json, human.join('\n'), { connectors: results, callbackBaseUrl: config.callbackBaseUrl, warning });
  ctx.result = { exitCode: results.every((r) => r.ok) ? 0 : 1 };
}
