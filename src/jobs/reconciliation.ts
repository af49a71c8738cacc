/**
 * The daily reconciliation: from `RECONCILIATION_HOUR_UTC` each day, every LIVE rail whose
 * operator lists its transactions by API (reconciliation/operator-view.ts: Wave, M-Pesa) is reconciled
 * over the previous UTC day, once (a DONE run of that rail and period is not repeated; two
 * instances racing open no case twice, the case keys being unique). Rails reconciled from a
 * statement file (MTN, Orange) wait for staff to import it. A failed run is logged and tried again
 * at the next tick.
 */
import { and, eq } from 'drizzle-orm';
import { reconciliationRuns } from '../db/schema-reconciliation.ts';
import { hasOperatorApi, runReconciliation } from '../reconciliation/index.ts';
import type { Services } from '../services.ts';
import { startLoop, type Loop } from './status-poller.ts';

/** How often the loop looks whether the day's runs are due. */
const TICK_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

/**
 * Runs the previous UTC day's reconciliation of each LIVE rail with an operator API that has no
 * DONE run for that day yet, when the hour has come. Returns the rail codes reconciled now.
 */
export async function dailyReconciliationOnce(services: Services): Promise<string[]> {
  const now = services.clock.now();
  if (now.getUTCHours() < services.config.reconciliationHourUtc) return [];
  const to = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const from = new Date(to.getTime() - DAY_MS);
  const done: string[] = [];
  for (const railCode of [...services.connectors.live.keys()].filter(hasOperatorApi).sort()) {
    const [already] = await services.db
      .select({ id: reconciliationRuns.id })
      .from(reconciliationRuns)
      .where(and(eq(reconciliationRuns.railCode, railCode), eq(reconciliationRuns.periodFrom, from), eq(reconciliationRuns.periodTo, to), eq(reconciliationRuns.status, 'DONE')))
      .limit(1);
    if (already) continue;
    try {
      await runReconciliation(services, { railCode, from, to });
      done.push(railCode);
    } catch (error) {
      services.log.warn({ err: error, railCode }, 'daily reconciliation failed; tried again at the next tick');
    }
  }
  return done;
}

/** Starts the daily reconciliation loop (a look every 10 minutes). */
export function startReconciliationJob(services: Services): Loop {
  return startLoop('reconciliation', TICK_MS, () => dailyReconciliationOnce(services), services.log);
}
