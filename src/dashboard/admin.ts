/**
 * Administration use cases, as SharePay's dashboard calls them: merchants (page, read, overview,
 * status, KYC level), staff (page, create ADMIN or SUPPORT, status, delete) and rails ("providers":
 * list, create, update, enable/disable, limits and fees). Role checks are the routes' job; every
 * change is audited here with its before/after.
 */
import { and, asc, count, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { accounts, applications, providers, transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import type { Services } from '../services.ts';
import { createAccount, findAccountById, profileView, type AccountRow } from './accounts.ts';
import { changedFields, recordAudit, type AuditActor } from './audit.ts';
import { revokeAccountSessions } from './tokens.ts';

/**
 * Account statuses an administrator may set: ACTIVE, INACTIVE, SUSPENDED, PENDING_VERIFICATION
 * (what SharePay's dashboard sends), and DELETED. Every status but ACTIVE closes the account's
 * sessions and refuses its logins.
 */
export const ACCOUNT_STATUSES = ['ACTIVE', 'INACTIVE', 'SUSPENDED', 'PENDING_VERIFICATION', 'DELETED'] as const;
/**
 * KYC levels: NONE, BASIC, ADVANCED, FULL (what SharePay's dashboard sends), and VERIFIED, which
 * SharePay's login response may carry. Levels are stored as sent (an account already at VERIFIED
 * keeps showing VERIFIED).
 */
export const KYC_LEVELS = ['NONE', 'BASIC', 'ADVANCED', 'FULL', 'VERIFIED'] as const;

/** A page of accounts with one of `roles`, newest first, optionally filtered by status and by a search of e-mail or name. */
export async function pageAccounts(db: Db, roles: string[], status: string | undefined, page: number, size: number, search?: string) {
  // `search`: a case-insensitive substring of the e-mail or the name; LIKE's own wildcards are escaped.
  const pattern = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = and(
    inArray(accounts.role, roles),
    status ? eq(accounts.status, status) : undefined,
    pattern ? or(ilike(accounts.email, pattern), ilike(accounts.fullName, pattern)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(accounts).where(where);
  const rows = await db.select().from(accounts).where(where).orderBy(desc(accounts.createdAt), asc(accounts.id)).limit(size).offset(page * size);
  return { rows: rows.map(profileView), total: Number(total) };
}

/** The account `id` if it has one of `roles`; 404 USER_NOT_FOUND otherwise. */
export async function accountWithRole(db: Db, id: string, roles: string[]): Promise<AccountRow> {
  const row = await findAccountById(db, id);
  if (!row || !roles.includes(row.role)) throw new ApiError('USER_NOT_FOUND');
  return row;
}

/** A merchant with counts of its applications and transactions by status. */
export async function merchantOverview(db: Db, id: string) {
  const merchant = await accountWithRole(db, id, ['MERCHANT']);
  const [{ applicationCount } = { applicationCount: 0 }] = await db
    .select({ applicationCount: count() })
    .from(applications)
    .where(and(eq(applications.merchantId, id), sql`${applications.deletedAt} is null`));
  const byStatus = await db
    .select({ status: transactions.status, n: count(), volume: sql<string>`coalesce(sum(${transactions.amount}), 0)` })
    .from(transactions)
    .innerJoin(applications, eq(applications.id, transactions.applicationId))
    .where(eq(applications.merchantId, id))
    .groupBy(transactions.status);
  return {
    merchant: profileView(merchant),
    applicationCount: Number(applicationCount),
    transactionCount: byStatus.reduce((sum, r) => sum + Number(r.n), 0),
    transactionsByStatus: Object.fromEntries(byStatus.map((r) => [r.status, { count: Number(r.n), volume: Number(r.volume) }])),
  };
}

/**
 * Sets an account's status (and closes its sessions unless ACTIVE). An administrator cannot
 * change their own status (403 ACCESS_DENIED), so the last one cannot lock everybody out by mistake.
 */
export async function setAccountStatus(services: Services, actor: AuditActor, target: AccountRow, status: string): Promise<AccountRow> {
  if (actor.actorId === target.id) throw new ApiError('ACCESS_DENIED', { message: 'Vous ne pouvez pas modifier le statut de votre propre compte.' });
  const now = services.clock.now();
  const [after] = await services.db.update(accounts).set({ status, updatedAt: now }).where(eq(accounts.id, target.id)).returning();
  if (status !== 'ACTIVE') await revokeAccountSessions(services.db, target.id, `STATUS_${status}`, now);
  await recordAudit(services, actor, {
    action: target.role === 'MERCHANT' ? 'MERCHANT_STATUS_CHANGED' : 'STAFF_STATUS_CHANGED',
    targetType: 'ACCOUNT',
    targetId: target.id,
    before: { status: target.status },
    after: { status },
  });
  return after!;
}

/** Sets a merchant's KYC level. */
export async function setKycLevel(services: Services, actor: AuditActor, target: AccountRow, kycLevel: string): Promise<AccountRow> {
  const [after] = await services.db.update(accounts).set({ kycLevel, updatedAt: services.clock.now() }).where(eq(accounts.id, target.id)).returning();
  await recordAudit(services, actor, {
    action: 'MERCHANT_KYC_CHANGED',
    targetType: 'ACCOUNT',
    targetId: target.id,
    before: { kycLevel: target.kycLevel },
    after: { kycLevel },
  });
  return after!;
}

/** Creates an ACTIVE staff account (ADMIN or SUPPORT). 409 EMAIL_ALREADY_EXISTS. */
export async function createStaff(
  services: Services,
  actor: AuditActor,
  input: { fullName: string; email: string; password: string; role: 'ADMIN' | 'SUPPORT'; phone?: string | undefined },
): Promise<AccountRow> {
  const row = await createAccount(services, { ...input, status: 'ACTIVE', emailVerified: true });
  await recordAudit(services, actor, {
    action: 'STAFF_CREATED',
    targetType: 'ACCOUNT',
    targetId: row.id,
    after: { email: row.email, fullName: row.fullName, role: row.role },
  });
  return row;
}

/** A rail as the admin API shows it. */
export function providerView(row: typeof providers.$inferSelect) {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    operator: row.operator,
    type: row.type,
    country: row.country,
    currency: row.currency,
    feePercentage: Number(row.feePercentage),
    feeFixed: row.feeFixed,
    payOutFeePercentage: Number(row.payOutFeePercentage),
    payOutFeeFixed: row.payOutFeeFixed,
    settlementDelaySeconds: row.settlementDelaySeconds,
    minAmount: row.minAmount,
    maxAmount: row.maxAmount,
    pendingTimeoutSeconds: row.pendingTimeoutSeconds,
    active: row.active,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Every rail, by code. */
export async function listProviders(db: Db) {
  return (await db.select().from(providers).orderBy(asc(providers.code))).map(providerView);
}

/**
 * Fields of a rail; limits and fees in the currency's base unit, fee percentages 0–100 in whole
 * basis points (`feePercentage`/`feeFixed`: pay-ins; `payOutFee…`: pay-outs).
 */
export interface ProviderInput {
  code: string;
  name: string;
  type: string;
  country: string;
  currency: string;
  feePercentage: number;
  feeFixed: number;
  payOutFeePercentage?: number | undefined;
  payOutFeeFixed?: number | undefined;
  settlementDelaySeconds?: number | undefined;
  minAmount: number;
  maxAmount: number;
  active: boolean;
  operator?: string | undefined;
  pendingTimeoutSeconds?: number | undefined;
}

function assertLimits(min: number, max: number): void {
  if (min > max) throw new ApiError('VALIDATION_ERROR', { data: { minAmount: 'doit être inférieur ou égal à maxAmount' } });
}

/**
 * Creates a rail. Its operator defaults to the code without the country suffix
 * (`MTN_MOMO_CM` → `MTN_MOMO`), which picks the connector. 409 PROVIDER_ALREADY_EXISTS.
 */
export async function createProvider(services: Services, actor: AuditActor, input: ProviderInput) {
  assertLimits(input.minAmount, input.maxAmount);
  const [clash] = await services.db.select({ id: providers.id }).from(providers).where(eq(providers.code, input.code));
  if (clash) throw new ApiError('PROVIDER_ALREADY_EXISTS');
  const now = services.clock.now();
  const [row] = await services.db
    .insert(providers)
    .values({
      id: services.ids.uuid(),
      code: input.code,
      name: input.name,
      operator: input.operator ?? input.code.replace(/_[A-Z]{2}$/, ''),
      type: input.type,
      country: input.country,
      currency: input.currency,
      feePercentage: String(input.feePercentage),
      feeFixed: input.feeFixed,
      payOutFeePercentage: String(input.payOutFeePercentage ?? 0),
      payOutFeeFixed: input.payOutFeeFixed ?? 0,
      settlementDelaySeconds: input.settlementDelaySeconds ?? 0,
      minAmount: input.minAmount,
      maxAmount: input.maxAmount,
      pendingTimeoutSeconds: input.pendingTimeoutSeconds ?? 900,
      active: input.active,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const view = providerView(row!);
  await recordAudit(services, actor, { action: 'PROVIDER_CREATED', targetType: 'PROVIDER', targetId: row!.id, after: view });
  return view;
}

async function providerById(db: Db, id: string) {
  if (!isUuid(id)) throw new ApiError('PROVIDER_NOT_FOUND');
  const [row] = await db.select().from(providers).where(eq(providers.id, id));
  if (!row) throw new ApiError('PROVIDER_NOT_FOUND');
  return row;
}

/** Updates a rail (all fields but its code). 404 PROVIDER_NOT_FOUND. */
export async function updateProvider(services: Services, actor: AuditActor, id: string, input: Omit<ProviderInput, 'code'> & { code?: string | undefined }) {
  const before = await providerById(services.db, id);
  if (input.code !== undefined && input.code !== before.code) {
    throw new ApiError('VALIDATION_ERROR', { data: { code: 'le code ne peut pas être modifié' } });
  }
  assertLimits(input.minAmount, input.maxAmount);
  const [row] = await services.db
    .update(providers)
    .set({
      name: input.name,
      type: input.type,
      country: input.country,
      currency: input.currency,
      feePercentage: String(input.feePercentage),
      feeFixed: input.feeFixed,
      ...(input.payOutFeePercentage !== undefined ? { payOutFeePercentage: String(input.payOutFeePercentage) } : {}),
      ...(input.payOutFeeFixed !== undefined ? { payOutFeeFixed: input.payOutFeeFixed } : {}),
      ...(input.settlementDelaySeconds !== undefined ? { settlementDelaySeconds: input.settlementDelaySeconds } : {}),
      minAmount: input.minAmount,
      maxAmount: input.maxAmount,
      active: input.active,
      ...(input.operator !== undefined ? { operator: input.operator } : {}),
      ...(input.pendingTimeoutSeconds !== undefined ? { pendingTimeoutSeconds: input.pendingTimeoutSeconds } : {}),
      updatedAt: services.clock.now(),
    })
    .where(eq(providers.id, id))
    .returning();
  const view = providerView(row!);
  await recordAudit(services, actor, {
    action: 'PROVIDER_UPDATED',
    targetType: 'PROVIDER',
    targetId: id,
    ...changedFields(providerView(before), view),
  });
  return view;
}

/** Enables a disabled rail or disables an enabled one. */
export async function toggleProvider(services: Services, actor: AuditActor, id: string) {
  const before = await providerById(services.db, id);
  const [row] = await services.db
    .update(providers)
    .set({ active: !before.active, updatedAt: services.clock.now() })
    .where(eq(providers.id, id))
    .returning();
  await recordAudit(services, actor, {
    action: 'PROVIDER_TOGGLED',
    targetType: 'PROVIDER',
    targetId: id,
    before: { active: before.active },
    after: { active: row!.active },
  });
  return providerView(row!);
}
