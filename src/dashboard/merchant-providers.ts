/**
 * `GET /api/v1/merchants/providers`: the active rails a merchant can use, so the dashboard can
 * offer them for withdrawal accounts and payments — in the currencies of the merchant's
 * applications (every active rail when they have none yet), with the fees that apply to THIS
 * merchant (their own override when an administrator set one, else the rail's) and the environments
 * where the rail moves money (TEST always, through the sandbox; LIVE only when its connector is
 * configured).
 */
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import { resolveConnector } from '../connectors/registry.ts';
import type { Db } from '../db/client.ts';
import { applications, providers } from '../db/schema.ts';
import { listFeeOverrides } from './fee-overrides.ts';

/** A rail as a merchant sees it; fees as percentage (%) and fixed part (base units). */
export interface MerchantProvider {
  code: string;
  name: string;
  type: string;
  country: string;
  currency: string;
  minAmount: number;
  maxAmount: number;
  /** Fee on a pay-in, in %. */
  feePercentage: number;
  /** Fixed part of a pay-in's fee, base units. */
  feeFixed: number;
  payOutFeePercentage: number;
  payOutFeeFixed: number;
  environments: ('TEST' | 'LIVE')[];
}

/** The rails usable by `merchantId`, by currency then code. */
export async function merchantProviders(db: Db, connectors: ConnectorRegistry, merchantId: string): Promise<MerchantProvider[]> {
  const apps = await db
    .selectDistinct({ currency: applications.currency })
    .from(applications)
    .where(and(eq(applications.merchantId, merchantId), isNull(applications.deletedAt)));
  const currencies = apps.map((a) => a.currency);
  const rails = await db
    .select()
    .from(providers)
    .where(and(eq(providers.active, true), currencies.length > 0 ? inArray(providers.currency, currencies) : undefined))
    .orderBy(asc(providers.currency), asc(providers.code));
  const overrides = await listFeeOverrides(db, merchantId);
  const override = (code: string, direction: 'PAY_IN' | 'PAY_OUT') =>
    overrides.find((o) => o.providerCode === code && o.direction === direction);
  return rails.map((rail) => {
    const payIn = override(rail.code, 'PAY_IN');
    const payOut = override(rail.code, 'PAY_OUT');
    return {
      code: rail.code,
      name: rail.name,
      type: rail.type,
      country: rail.country,
      currency: rail.currency,
      minAmount: rail.minAmount,
      maxAmount: rail.maxAmount,
      feePercentage: payIn ? payIn.feePercentage : Number(rail.feePercentage),
      feeFixed: payIn ? payIn.feeFixed : rail.feeFixed,
      payOutFeePercentage: payOut ? payOut.feePercentage : Number(rail.payOutFeePercentage),
      payOutFeeFixed: payOut ? payOut.feeFixed : rail.payOutFeeFixed,
      environments: resolveConnector(connectors, rail.code, 'LIVE') ? ['TEST', 'LIVE'] : ['TEST'],
    };
  });
}
