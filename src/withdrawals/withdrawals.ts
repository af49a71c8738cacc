/**
 * Withdrawals: a merchant moves money from an application's available balance to their own
 * mobile-money account, as a pay-out through the same funded path as a transfer (amount + the
 * rail's pay-out fee reserved; 400 INSUFFICIENT_BALANCE otherwise). Accounts: add, list, delete,
 * choose the default. Configuration per currency: MANUAL (only `withdraw`), INSTANT (every run of
 * the background jobs sweeps what is available), THRESHOLD (sweeps an application whose available
 * balance reached `thresholdAmount`), PERIODIC (sweeps once per UTC day, ISO week or month: the
 * period is claimed by compare-and-set in the same database transaction as its pay-outs, so it runs
 * once, whatever the number of instances or crashes).
 */
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { type Db, transaction } from '../db/client.ts';
import { applications } from '../db/schema.ts';
import { oldestApplicationCurrency } from '../accounts/applications.ts';
import { accountBalance } from '../ledger/balances.ts';
import { merchantAccount } from '../ledger/accounts.ts';
import { withdrawalAccounts, withdrawalConfigs } from '../db/schema-withdrawals.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { normalizeMsisdn } from '../domain/msisdn.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import {
  computeFee,
  createFundedPayOut,
  ensureSandboxOpening,
  type FeeRule,
  findActiveRail,
  initiateTransaction,
  insertFundedPayOut,
  type RailRow,
  railTermsFor,
  resolveRailFor,
  type TransactionRow,
} from '../payments/index.ts';

/** A withdrawal account row. */
export type WithdrawalAccountRow = typeof withdrawalAccounts.$inferSelect;
/** Modes of automatic withdrawals, spelled as SharePay's dashboard sends them. */
export const WITHDRAWAL_MODES = ['MANUAL', 'INSTANT', 'THRESHOLD', 'PERIODIC'] as const;
/** Periods of PERIODIC withdrawals, in UTC. */
export const WITHDRAWAL_PERIODS = ['DAILY', 'WEEKLY', 'MONTHLY'] as const;

const notFound = () => new ApiError('RESOURCE_NOT_FOUND', { message: 'Compte de retrait introuvable.' });

/** The merchant's withdrawal accounts, oldest first. */
export async function listWithdrawalAccounts(db: Db, merchantId: string): Promise<WithdrawalAccountRow[]> {
  return db.select().from(withdrawalAccounts).where(eq(withdrawalAccounts.merchantId, merchantId)).orderBy(asc(withdrawalAccounts.createdAt), asc(withdrawalAccounts.id));
}

/**
 * Adds an account on an active rail; the number is normalised for the rail's country
 * (VALIDATION_ERROR otherwise). The first account, or one added with `isDefault`, becomes the
 * default. 404 PROVIDER_NOT_FOUND for an unknown rail.
 */
export async function addWithdrawalAccount(
  services: Services,
  merchantId: string,
  input: { providerCode: string; accountNumber: string; accountName: string; isDefault?: boolean | undefined },
): Promise<WithdrawalAccountRow> {
  const rail = await findActiveRail(services.db, input.providerCode);
  if (!rail) throw new ApiError('PROVIDER_NOT_FOUND');
  const msisdn = normalizeMsisdn(input.accountNumber, rail.country);
  if (!msisdn) throw validationError({ accountNumber: `n'est pas un numéro de téléphone valide (${rail.country})` });
  return transaction(services.db, async (tx) => {
    const existing = await tx.select({ id: withdrawalAccounts.id }).from(withdrawalAccounts).where(eq(withdrawalAccounts.merchantId, merchantId)).for('update');
    const isDefault = input.isDefault === true || existing.length === 0;
    if (isDefault) await tx.update(withdrawalAccounts).set({ isDefault: false }).where(eq(withdrawalAccounts.merchantId, merchantId));
    const [row] = await tx
      .insert(withdrawalAccounts)
      .values({
        id: services.ids.uuid(),
        merchantId,
        providerCode: rail.code,
        accountNumber: msisdn,
        accountName: input.accountName,
        isDefault,
        createdAt: services.clock.now(),
      })
      .returning();
    return row!;
  });
}

async function ownAccount(db: Db, merchantId: string, id: string): Promise<WithdrawalAccountRow> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound();
  const [row] = await db.select().from(withdrawalAccounts).where(and(eq(withdrawalAccounts.id, id), eq(withdrawalAccounts.merchantId, merchantId)));
  if (!row) throw notFound();
  return row;
}

/** Deletes one of the merchant's accounts (a configuration using it falls back to the default). */
export async function deleteWithdrawalAccount(services: Services, merchantId: string, id: string): Promise<void> {
  const row = await ownAccount(services.db, merchantId, id);
  await services.db.delete(withdrawalAccounts).where(eq(withdrawalAccounts.id, row.id));
}

/** Makes one of the merchant's accounts the default. */
export async function setDefaultWithdrawalAccount(services: Services, merchantId: string, id: string): Promise<WithdrawalAccountRow> {
  const row = await ownAccount(services.db, merchantId, id);
  return transaction(services.db, async (tx) => {
    await tx.update(withdrawalAccounts).set({ isDefault: false }).where(and(eq(withdrawalAccounts.merchantId, merchantId), ne(withdrawalAccounts.id, row.id)));
    const [updated] = await tx.update(withdrawalAccounts).set({ isDefault: true }).where(eq(withdrawalAccounts.id, row.id)).returning();
    return updated!;
  });
}

/** A withdrawal configuration as the dashboard reads it. */
export interface WithdrawalConfigView {
  mode: (typeof WITHDRAWAL_MODES)[number];
  account: WithdrawalAccountRow | null;
  thresholdAmount: number | null;
  period: (typeof WITHDRAWAL_PERIODS)[number] | null;
  currency: string;
  environment: 'LIVE' | 'TEST';
  lastTriggeredAt: Date | null;
  updatedAt: Date;
}

async function merchantCurrency(db: Db, merchantId: string, currency: string | undefined): Promise<string | null> {
  return currency ?? oldestApplicationCurrency(db, merchantId);
}

/** The configuration of `currency` (default: the merchant's oldest application's), or null (= MANUAL). */
export async function getWithdrawalConfig(services: Services, merchantId: string, currency?: string): Promise<WithdrawalConfigView | null> {
  const chosen = await merchantCurrency(services.db, merchantId, currency);
  if (!chosen) return null;
  const [row] = await services.db
    .select({ config: withdrawalConfigs, account: withdrawalAccounts })
    .from(withdrawalConfigs)
    .leftJoin(withdrawalAccounts, eq(withdrawalAccounts.id, withdrawalConfigs.accountId))
    .where(and(eq(withdrawalConfigs.merchantId, merchantId), eq(withdrawalConfigs.currency, chosen)));
  if (!row) return null;
  const c = row.config;
  return {
    mode: c.mode as WithdrawalConfigView['mode'],
    account: row.account,
    thresholdAmount: c.thresholdAmount,
    period: c.period as WithdrawalConfigView['period'],
    currency: c.currency,
    environment: c.environment as 'LIVE' | 'TEST',
    lastTriggeredAt: c.lastTriggeredAt,
    updatedAt: c.updatedAt,
  };
}

/** Input of `putWithdrawalConfig`. */
export interface WithdrawalConfigInput {
  mode: (typeof WITHDRAWAL_MODES)[number];
  accountId?: string | undefined;
  thresholdAmount?: number | undefined;
  period?: (typeof WITHDRAWAL_PERIODS)[number] | undefined;
  currency?: string | undefined;
  environment: 'LIVE' | 'TEST';
}

/**
 * Sets the configuration of a currency. THRESHOLD needs `thresholdAmount`, PERIODIC a `period`,
 * every automatic mode an account (the one given, else the default): VALIDATION_ERROR otherwise.
 */
export async function putWithdrawalConfig(services: Services, merchantId: string, input: WithdrawalConfigInput): Promise<WithdrawalConfigView> {
  const currency = await merchantCurrency(services.db, merchantId, input.currency);
  if (!currency) throw validationError({ currency: 'aucune application : précisez la devise' });
  if (input.mode === 'THRESHOLD' && input.thresholdAmount === undefined) throw validationError({ thresholdAmount: 'est obligatoire en mode THRESHOLD' });
  if (input.mode === 'PERIODIC' && input.period === undefined) throw validationError({ period: 'est obligatoire en mode PERIODIC' });
  let accountId: string | null = null;
  if (input.accountId) accountId = (await ownAccount(services.db, merchantId, input.accountId)).id;
  else {
    const [fallback] = await services.db
      .select({ id: withdrawalAccounts.id })
      .from(withdrawalAccounts)
      .where(and(eq(withdrawalAccounts.merchantId, merchantId), eq(withdrawalAccounts.isDefault, true)));
    accountId = fallback?.id ?? null;
  }
  if (input.mode !== 'MANUAL' && !accountId) throw validationError({ accountId: 'ajoutez un compte de retrait ou précisez-en un' });
  const now = services.clock.now();
  const values = {
    environment: input.environment,
    mode: input.mode,
    accountId,
    thresholdAmount: input.mode === 'THRESHOLD' ? input.thresholdAmount! : null,
    period: input.mode === 'PERIODIC' ? input.period! : null,
    updatedAt: now,
  };
  await services.db
    .insert(withdrawalConfigs)
    .values({ merchantId, currency, ...values })
    .onConflictDoUpdate({ target: [withdrawalConfigs.merchantId, withdrawalConfigs.currency], set: values });
  return (await getWithdrawalConfig(services, merchantId, currency))!;
}

/**
 * A manual withdrawal (the body of `POST /api/v1/merchants/withdrawals/withdraw` as SharePay's
 * dashboard sends it), plus which application and environment it draws from.
 */
export interface WithdrawInput {
  amount: number;
  currency: string;
  paymentMethod: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  description?: string | undefined;
  merchantReference?: string | undefined;
  applicationId?: string | undefined;
  environment: 'LIVE' | 'TEST';
}

/** The withdraw response in the shape SharePay's dashboard reads, plus the fee. */
export interface WithdrawData {
  reference: string;
  status: string;
  amount: number;
  feeAmount: number;
  currency: string;
  paymentMethod: string | null;
  beneficiaryAccount: string | null;
  beneficiaryName: string | null;
}

function withdrawData(row: TransactionRow): WithdrawData {
  return {
    reference: row.reference,
    status: row.status,
    amount: row.amount,
    feeAmount: row.feeAmount ?? 0,
    currency: row.currency,
    paymentMethod: row.paymentMethod,
    beneficiaryAccount: row.beneficiaryAccount,
    beneficiaryName: row.beneficiaryName,
  };
}

/**
 * Withdraws `amount` from an application of the merchant (the one named, else their only
 * application in that currency: VALIDATION_ERROR when there are several) to the account given.
 * Same checks as a transfer (rail, currency, limits, number), then funded.
 */
export async function withdraw(services: Services, merchantId: string, input: WithdrawInput): Promise<WithdrawData> {
  const apps = await services.db
    .select({ id: applications.id, currency: applications.currency })
    .from(applications)
    .where(
      and(
        eq(applications.merchantId, merchantId),
        isNull(applications.deletedAt),
        input.applicationId ? eq(applications.id, input.applicationId) : eq(applications.currency, input.currency),
      ),
    );
  if (input.applicationId && apps.length === 0) throw new ApiError('APP_NOT_FOUND');
  if (apps.length === 0) throw validationError({ currency: `aucune application en ${input.currency}` });
  if (apps.length > 1) throw validationError({ applicationId: `précisez l'application : vous en avez plusieurs en ${input.currency}` });
  const app = apps[0]!;
  const environment = input.environment;
  const { rail, connector } = await resolveRailFor(services, {
    paymentMethod: input.paymentMethod,
    currency: input.currency,
    amount: input.amount,
    applicationCurrency: app.currency,
    environment,
  });
  const beneficiaryAccount = normalizeMsisdn(input.beneficiaryAccount, rail.country);
  if (!beneficiaryAccount) throw validationError({ beneficiaryAccount: `n'est pas un numéro de téléphone valide (${rail.country})` });
  const terms = await railTermsFor(services.db, rail.code, 'PAY_OUT', app.id);
  const row = await createFundedPayOut(services, {
    applicationId: app.id,
    environment,
    type: 'WITHDRAWAL',
    amount: input.amount,
    feeAmount: computeFee(input.amount, terms.rule, 'PAY_OUT'),
    currency: input.currency,
    railCode: rail.code,
    beneficiaryAccount,
    beneficiaryName: input.beneficiaryName,
    beneficiaryEmail: null,
    merchantReference: input.merchantReference ?? null,
    description: input.description ?? 'Retrait',
  });
  await initiateTransaction(services, row, rail, connector);
  return withdrawData(row);
}

/**
 * The largest amount A ≤ rail maximum with A + fee(A) ≤ `available`, or 0 when below the rail's
 * minimum. Integers only; converges in a few steps (bounded).
 */
export function sweepAmount(available: number, rule: FeeRule, rail: Pick<RailRow, 'minAmount' | 'maxAmount'>): number {
  if (available <= rule.fixed) return 0;
  const fits = (a: number) => a + computeFee(a, rule, 'PAY_OUT') <= available;
  // The estimate is within a unit or two of the answer (rounding of the percentage part).
  let amount = Math.min(rail.maxAmount, Math.floor(((available - rule.fixed) * 10_000) / (10_000 + rule.basisPoints)));
  for (let i = 0; i < 8 && amount < rail.maxAmount && fits(amount + 1); i++) amount += 1;
  for (let i = 0; i < 8 && amount > 0 && !fits(amount); i++) amount -= 1;
  return amount >= rail.minAmount && amount + computeFee(amount, rule, 'PAY_OUT') <= available ? amount : 0;
}

/** The UTC period a date falls in, as a key: `D:2026-11-22`, `W:2026-11-16` (the ISO week's Monday), `M:2026-11`. */
export function periodKey(date: Date, period: (typeof WITHDRAWAL_PERIODS)[number]): string {
  const day = date.toISOString().slice(0, 10);
  if (period === 'DAILY') return `D:${day}`;
  if (period === 'MONTHLY') return `M:${day.slice(0, 7)}`;
  const monday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
  return `W:${monday.toISOString().slice(0, 10)}`;
}

/** Configurations handled per run of the jobs. */
const CONFIG_BATCH = 100;

/**
 * One run of automatic withdrawals (called by the background jobs). For every automatic
 * configuration due now, in one database transaction: claim the period (PERIODIC), then for each
 * of the merchant's applications in that currency and environment, withdraw what is available
 * (THRESHOLD: only from those at or above the threshold) to the configured account. Each
 * application's pay-out is its own savepoint, so one refused reservation does not undo the
 * others. Pay-outs are initiated after commit. Returns the number of pay-outs created.
 */
export async function runAutomaticWithdrawals(services: Services): Promise<number> {
  const now = services.clock.now();
  const configs = await services.db
    .select({ config: withdrawalConfigs, account: withdrawalAccounts })
    .from(withdrawalConfigs)
    .innerJoin(withdrawalAccounts, eq(withdrawalAccounts.id, withdrawalConfigs.accountId))
    .where(inArray(withdrawalConfigs.mode, ['INSTANT', 'THRESHOLD', 'PERIODIC']))
    .orderBy(asc(withdrawalConfigs.updatedAt))
    .limit(CONFIG_BATCH);
  let created = 0;
  for (const { config, account } of configs) {
    const key = config.mode === 'PERIODIC' && config.period ? periodKey(now, config.period as (typeof WITHDRAWAL_PERIODS)[number]) : null;
    if (key !== null && key === config.lastPeriodKey) continue;
    const rail = await findActiveRail(services.db, account.providerCode);
    const connector = rail ? resolveConnector(services.connectors, rail.code, config.environment as Environment) : null;
    if (!rail || !connector || rail.currency !== config.currency) {
      services.log.warn({ merchantId: config.merchantId, rail: account.providerCode }, 'automatic withdrawal skipped: rail unavailable');
      continue;
    }
    const rows = await transaction(services.db, async (tx) => {
      if (key !== null) {
        const claimed = await tx
          .update(withdrawalConfigs)
          .set({ lastPeriodKey: key, lastTriggeredAt: now })
          .where(
            and(
              eq(withdrawalConfigs.merchantId, config.merchantId),
              eq(withdrawalConfigs.currency, config.currency),
              sql`${withdrawalConfigs.lastPeriodKey} is distinct from ${key}`,
            ),
          )
          .returning({ merchantId: withdrawalConfigs.merchantId });
        if (claimed.length === 0) return [];
      }
      const apps = await tx
        .select({ id: applications.id })
        .from(applications)
        .where(and(eq(applications.merchantId, config.merchantId), eq(applications.currency, config.currency), isNull(applications.deletedAt)));
      const made: TransactionRow[] = [];
      for (const app of apps) {
        await ensureSandboxOpening(tx, services, app.id, config.environment, config.currency);
        const available = await accountBalance(tx, merchantAccount(app.id, config.environment, config.currency, 'AVAILABLE').key);
        if (config.mode === 'THRESHOLD' && available < (config.thresholdAmount ?? Number.MAX_SAFE_INTEGER)) continue;
        const terms = await railTermsFor(tx, rail.code, 'PAY_OUT', app.id);
        const amount = sweepAmount(available, terms.rule, rail);
        if (amount === 0) continue;
        try {
          const row = await transaction(tx, (savepoint) =>
            insertFundedPayOut(savepoint, services, {
              applicationId: app.id,
              environment: config.environment,
              type: 'WITHDRAWAL',
              amount,
              feeAmount: computeFee(amount, terms.rule, 'PAY_OUT'),
              currency: config.currency,
              railCode: rail.code,
              beneficiaryAccount: account.accountNumber,
              beneficiaryName: account.accountName,
              beneficiaryEmail: null,
              merchantReference: null,
              description: `Retrait automatique (${config.mode})`,
            }),
          );
          made.push(row);
        } catch (error) {
          // A concurrent pay-out took the money first: nothing to withdraw this time.
          if (!(error instanceof ApiError && error.code === 'INSUFFICIENT_BALANCE')) throw error;
        }
      }
      if (key === null && made.length > 0) {
        await tx
          .update(withdrawalConfigs)
          .set({ lastTriggeredAt: now })
          .where(and(eq(withdrawalConfigs.merchantId, config.merchantId), eq(withdrawalConfigs.currency, config.currency)));
      }
      return made;
    });
    for (const row of rows) await initiateTransaction(services, row, rail, connector);
    created += rows.length;
  }
  return created;
}
