/**
 * A merchant's own fees (an optional per-merchant override): per rail and direction, replacing the
 * rail's fee for every application of the merchant. ADMIN edits them; every change is audited.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { merchantFeeOverrides, providers } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { recordAudit, type AuditActor } from './audit.ts';

/** A fee override as the admin API shows it (percentage in %, fixed in base units). */
export interface FeeOverrideView {
  providerCode: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  feePercentage: number;
  feeFixed: number;
  updatedAt: Date;
}

function view(row: typeof merchantFeeOverrides.$inferSelect): FeeOverrideView {
  return {
    providerCode: row.providerCode,
    direction: row.direction as 'PAY_IN' | 'PAY_OUT',
    feePercentage: Number(row.feePercentage),
    feeFixed: row.feeFixed,
    updatedAt: row.updatedAt,
  };
}

/** The merchant's overrides, by rail then direction. */
export async function listFeeOverrides(db: Db, merchantId: string): Promise<FeeOverrideView[]> {
  const rows = await db
    .select()
    .from(merchantFeeOverrides)
    .where(eq(merchantFeeOverrides.merchantId, merchantId))
    .orderBy(asc(merchantFeeOverrides.providerCode), asc(merchantFeeOverrides.direction));
  return rows.map(view);
}

/** Sets (creates or replaces) an override. 404 PROVIDER_NOT_FOUND for an unknown rail. */
export async function setFeeOverride(
  services: Services,
  actor: AuditActor,
  merchantId: string,
  input: { providerCode: string; direction: 'PAY_IN' | 'PAY_OUT'; feePercentage: number; feeFixed: number },
): Promise<FeeOverrideView> {
  const [rail] = await services.db.select({ id: providers.id }).from(providers).where(eq(providers.code, input.providerCode));
  if (!rail) throw new ApiError('PROVIDER_NOT_FOUND');
  const now = services.clock.now();
  const values = { feePercentage: String(input.feePercentage), feeFixed: input.feeFixed, updatedAt: now };
  const [row] = await services.db
    .insert(merchantFeeOverrides)
    .values({ merchantId, providerCode: input.providerCode, direction: input.direction, ...values })
    .onConflictDoUpdate({ target: [merchantFeeOverrides.merchantId, merchantFeeOverrides.providerCode, merchantFeeOverrides.direction], set: values })
    .returning();
  const result = view(row!);
  await recordAudit(services, actor, { action: 'FEE_OVERRIDE_SET', targetType: 'MERCHANT', targetId: merchantId, after: { ...result } });
  return result;
}

/** Removes an override (the rail's fee applies again). 404 RESOURCE_NOT_FOUND when there is none. */
export async function deleteFeeOverride(services: Services, actor: AuditActor, merchantId: string, providerCode: string, direction: string): Promise<void> {
  const deleted = await services.db
    .delete(merchantFeeOverrides)
    .where(
      and(
        eq(merchantFeeOverrides.merchantId, merchantId),
        eq(merchantFeeOverrides.providerCode, providerCode),
        eq(merchantFeeOverrides.direction, direction),
      ),
    )
    .returning();
  if (deleted.length === 0) throw new ApiError('RESOURCE_NOT_FOUND');
  await recordAudit(services, actor, { action: 'FEE_OVERRIDE_DELETED', targetType: 'MERCHANT', targetId: merchantId, before: { providerCode, direction } });
}
