/**
 * Rail lookups and the checks of the merchant API that depend on the rail: PROVIDER_NOT_FOUND for
 * an unknown or inactive provider code (or, for LIVE keys, a rail with no connector),
 * CURRENCY_MISMATCH when the currency is not the application's or not the rail's, and the rail's
 * amount limits.
 */
import { and, eq } from 'drizzle-orm';
import { railByCode, type RailRow } from '../db/queries/rails.ts';
import type { Db } from '../db/client.ts';
import { accounts, applications, providers } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Connector } from '../connectors/connector.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';

export type { RailRow };

/** The active rail with this provider code, or null. */
export async function findActiveRail(db: Db, code: string): Promise<RailRow | null> {
  const rail = await findRail(db, code);
  return rail?.active ? rail : null;
}

/**
 * The rail with this provider code, active or not. The backstop uses it: deactivating a rail
 * stops new transactions on it, but the ones already accepted must still be settled. Lookups of
 * one event-loop turn share one statement (db/batch.ts: nothing is cached between turns, so a
 * rail deactivated by an administrator refuses the very next request).
 */
export async function findRail(db: Db, code: string): Promise<RailRow | null> {
  return railByCode(db, { code });
}

/** Active rails of a currency, by code. */
export async function activeRailsForCurrency(db: Db, currency: string): Promise<RailRow[]> {
  return db
    .select()
    .from(providers)
    .where(and(eq(providers.currency, currency), eq(providers.active, true)))
    .orderBy(providers.code);
}

/**
 * The rails a hosted page (checkout, fund collection) offers its payer: active rails of the page's
 * `currency` that serve its `environment` (a connector exists), narrowed to the merchant account's
 * country when the account has one and at least one of those rails is in it. A currency is shared
 * by several markets (XOF: Senegal, Côte d'Ivoire, Mali…): a Senegalese merchant's payers are
 * offered Senegal's rails, not Mali's. An account without a country, or whose country has none
 * of those rails, is offered every country's.
 */
export async function offeredRails(
  services: Pick<Services, 'db' | 'connectors'>,
  page: { currency: string; environment: string; applicationId: string },
): Promise<RailRow[]> {
  const rails = (await activeRailsForCurrency(services.db, page.currency)).filter(
    (r) => resolveConnector(services.connectors, r.code, page.environment as Environment) !== null,
  );
  const [owner] = await services.db
    .select({ country: accounts.country })
    .from(applications)
    .innerJoin(accounts, eq(accounts.id, applications.merchantId))
    .where(eq(applications.id, page.applicationId))
    .limit(1);
  const country = owner?.country ?? null;
  const local = country ? rails.filter((r) => r.country === country) : [];
  return local.length > 0 ? local : rails;
}

/** Throws AMOUNT_BELOW_MINIMUM / AMOUNT_ABOVE_MAXIMUM against `[min, max]` (base units). */
export function checkAmountLimits(amount: number, minAmount: number, maxAmount: number): void {
  if (amount < minAmount) {
    throw new ApiError('AMOUNT_BELOW_MINIMUM', {
      message: `Le montant est inférieur au minimum autorisé (${minAmount}).`,
    });
  }
  if (amount > maxAmount) {
    throw new ApiError('AMOUNT_ABOVE_MAXIMUM', {
      message: `Le montant est supérieur au maximum autorisé (${maxAmount}).`,
    });
  }
}

/** Throws CURRENCY_MISMATCH unless `currency` is the application's. */
export function checkApplicationCurrency(currency: string, applicationCurrency: string): void {
  if (currency !== applicationCurrency) {
    throw new ApiError('CURRENCY_MISMATCH', {
      message: `La devise ${currency} ne correspond pas à celle de l'application (${applicationCurrency}).`,
    });
  }
}

/**
 * Resolves a rail for a charge or transfer: checks, in order, the application's currency, the
 * provider code (and a connector for LIVE keys), the rail's currency and its amount limits.
 */
export async function resolveRailFor(
  services: Pick<Services, 'db' | 'connectors'>,
  input: { paymentMethod: string; currency: string; amount: number; applicationCurrency: string; environment: Environment },
): Promise<{ rail: RailRow; connector: Connector }> {
  checkApplicationCurrency(input.currency, input.applicationCurrency);
  const found = await findRail(services.db, input.paymentMethod);
  const rail = found?.active ? found : null;
  const connector = rail ? resolveConnector(services.connectors, rail.code, input.environment) : null;
  if (!rail || !connector) throw new ApiError('PROVIDER_NOT_FOUND');
  if (rail.currency !== input.currency) {
    throw new ApiError('CURRENCY_MISMATCH', {
      message: `La devise ${input.currency} ne correspond pas à celle du moyen de paiement ${rail.code} (${rail.currency}).`,
    });
  }
  checkAmountLimits(input.amount, rail.minAmount, rail.maxAmount);
  return { rail, connector };
}
