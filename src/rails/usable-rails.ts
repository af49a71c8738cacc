/**
 * The rails (rows of `providers`) and whether an API key may use one: active, and reachable in the
 * key's environment (TEST: the sandbox, always; LIVE: only when the rail's connector is configured).
 */
import { asc, eq } from 'drizzle-orm';
import type { Environment } from '../connectors/registry.ts';
import { resolveConnector } from '../connectors/registry.ts';
import type { RailRow } from '../db/queries/rails.ts';
import { providers } from '../db/schema.ts';
import type { Services } from '../services.ts';

/** Every active rail, by code. */
export async function activeRails(services: Pick<Services, 'db'>): Promise<RailRow[]> {
  return services.db.select().from(providers).where(eq(providers.active, true)).orderBy(asc(providers.code));
}

/**
 * True when a key of an application in `currency` and `environment` can move money on `rail`:
 * same currency (a charge in another currency is refused with CURRENCY_MISMATCH), and a connector
 * for the rail in that environment.
 */
export function isRailUsable(services: Pick<Services, 'connectors'>, rail: Pick<RailRow, 'code' | 'currency'>, currency: string, environment: Environment): boolean {
  return rail.currency === currency && resolveConnector(services.connectors, rail.code, environment) !== null;
}
