/**
 * Schemas of the dashboard transaction routes: list filters, items, stats, detail with history,
 * chart, rails for merchants, platform statistics. They validate requests (bad query → 400
 * INVALID_PARAMETER naming the field) and generate `/openapi.json`.
 */
import { z } from 'zod';
import { CHART_GROUPS, CHART_INTERVALS } from '../../dashboard/transaction-chart.ts';
import { DASHBOARD_TRANSACTION_TYPES } from '../../dashboard/transactions.ts';
import { TRANSACTION_STATUSES } from '../../domain/transaction-state.ts';
import { UUID_PATTERN } from '../../domain/ids.ts';
import { fr } from './common.ts';
import { documentedEnum } from './openapi.ts';
import { FAILURE_CODES } from '../../connectors/connector.ts';
import { dashboardEnvironmentQuery, pageQuery, timeZoneQuery } from './dashboard.ts';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;
const DATE_MESSAGE = 'doit être une date ISO 8601 (AAAA-MM-JJ ou AAAA-MM-JJThh:mm:ss, heure du serveur sans fuseau)';

/**
 * A date bound of the filters. `AAAA-MM-JJ` is a whole day in server local time (the time the
 * API shows): as `from` its first instant, as `to` the first instant of the next day, so
 * `from=2026-11-01&to=2026-11-30` covers the whole of November. A date-time without zone is
 * server local time too; `Z` or an offset are honoured.
 */
function dateBound(kind: 'from' | 'to') {
  return z
    .string()
    .regex(new RegExp(`${DATE_ONLY.source}|${DATE_TIME.source}`), fr(DATE_MESSAGE))
    .transform((value, ctx) => {
      const day = DATE_ONLY.exec(value);
      let date: Date;
      if (day) {
        const [y, m, d] = [Number(day[1]), Number(day[2]) - 1, Number(day[3])];
        const base = new Date(y, m, d);
        // 2026-02-31 would roll over to March in the Date constructor: refuse it instead.
        date = base.getMonth() === m && base.getDate() === d ? new Date(y, m, d + (kind === 'to' ? 1 : 0)) : new Date(Number.NaN);
      } else {
        date = new Date(value);
      }
      if (Number.isNaN(date.getTime())) {
        ctx.addIssue({ code: 'custom', message: DATE_MESSAGE });
        return z.NEVER;
      }
      return date;
    });
}

/** Filters shared by the lists, stats and exports. */
export const transactionFilterQuery = z.object({
  status: z.enum(TRANSACTION_STATUSES).optional().describe('PENDING, SUCCESS, FAILED, CANCELLED ou REFUNDED'),
  type: z
    .enum(DASHBOARD_TRANSACTION_TYPES)
    .optional()
    .describe('Paiements : CHECKOUT, CHARGE, FUND_COLLECTION ; virements : PAYOUT, WITHDRAWAL, REFUND'),
  appId: z.string().regex(UUID_PATTERN, fr('doit être un identifiant UUID')).optional().describe("Une seule de mes applications (404 APP_NOT_FOUND si elle n'est pas à moi)"),
  from: dateBound('from').optional().describe('Créées à partir de (inclus) : AAAA-MM-JJ ou date-heure ISO 8601'),
  to: dateBound('to').optional().describe("Créées avant (exclu) ; une date seule inclut toute la journée"),
  provider: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{1,60}$/, fr('doit être un code de moyen de paiement (ex. MTN_MOMO_CM)'))
    .optional()
    .describe('Code du moyen de paiement'),
  search: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[^\u0000]*$/, fr('ne doit pas contenir le caractère nul (U+0000)'))
    .optional()
    .describe(
      "Recherche libre, sans casse, dans notre référence (PI-…, PO-…, FC-…) et dans la référence du marchand ; exactement l'identifiant de transaction de l'opérateur (celui du SMS du client) ; ou (chiffres) le numéro du payeur ou du bénéficiaire",
    ),
  environment: dashboardEnvironmentQuery,
});

/** Refuses `from` ≥ `to` (an empty range is always a mistake). */
function checkRange<T extends { from?: Date | undefined; to?: Date | undefined }>(query: T, ctx: z.RefinementCtx) {
  // The refinement also runs when a bound failed its own check (then it is still the raw string).
  const { from, to } = query as { from?: unknown; to?: unknown };
  if (from instanceof Date && to instanceof Date && from.getTime() >= to.getTime()) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: fr('doit être postérieure à from').error });
  }
}

/** Query of `…/transactions-in` and `…/transactions-out`: page and filters. */
export const transactionListQuery = pageQuery.extend(transactionFilterQuery.shape).superRefine(checkRange);
/** `direction` of `…/transactions`: pay-ins by default, as SharePay's dashboard reads them. */
const listDirection = z
  .enum(['PAY_IN', 'PAY_OUT', 'ALL'], fr('doit valoir PAY_IN, PAY_OUT ou ALL'))
  .default('PAY_IN')
  .describe('PAY_IN (paiements, par défaut), PAY_OUT (virements) ou ALL (les deux)');
/** Query of `…/transactions`: also `direction`. */
export const allTransactionListQuery = pageQuery.extend(transactionFilterQuery.shape).extend({ direction: listDirection }).superRefine(checkRange);
/** Query of the stats and exports of one direction: the filters without paging. */
export const transactionFilterOnlyQuery = transactionFilterQuery.superRefine(checkRange);
/** Query of the stats and exports of `…/transactions`. */
export const allTransactionFilterQuery = transactionFilterQuery.extend({ direction: listDirection }).superRefine(checkRange);

/** `{id}` of a transaction: its UUID or its reference (PI-…, PO-…, FC-…). */
export const transactionKeyParams = z.object({
  transactionId: z
    .string()
    .regex(
      new RegExp(`${UUID_PATTERN.source}|^[A-Z]{2}-[A-Za-z0-9-]{1,60}$`),
      fr('doit être un identifiant UUID ou une référence de transaction (ex. PI-0A1B2C3D4E5F)'),
    )
    .describe('Identifiant UUID ou référence de la transaction'),
});

/** A transaction as the dashboard lists it, with the fields SharePay's dashboard reads. */
export const transactionItem = z.object({
  id: z.string(),
  reference: z.string(),
  merchantReference: z.string().nullable(),
  type: documentedEnum(DASHBOARD_TRANSACTION_TYPES).describe('CHECKOUT, CHARGE, FUND_COLLECTION, PAYOUT, WITHDRAWAL ou REFUND'),
  direction: z.enum(['PAY_IN', 'PAY_OUT']),
  environment: z.enum(['LIVE', 'TEST']),
  amount: z.number().describe('Unités de base'),
  feeAmount: z.number().nullable().describe('Frais de Kolo ; null tant qu’ils ne sont pas connus'),
  netAmount: z.number().nullable().describe('Paiement : montant − frais (crédité) ; virement : montant + frais (débité)'),
  currency: z.string(),
  status: documentedEnum(TRANSACTION_STATUSES),
  description: z.string().nullable(),
  provider: z.string().nullable().describe('Code du moyen de paiement'),
  payerAccount: z.string().nullable().describe('Paiement : le payeur ; virement : le bénéficiaire'),
  payerName: z.string().nullable(),
  payerEmail: z.string().nullable(),
  applicationId: z.string(),
  appName: z.string(),
  failureCode: documentedEnum(FAILURE_CODES).nullable(),
  failureReason: z.string().nullable(),
  isLateSuccess: z.boolean(),
  isInReconciliation: z.boolean().describe("true tant qu'un écart de rapprochement avec l'opérateur est ouvert sur cette transaction (« En rapprochement ») ; le statut ne change pas"),
  operatorTransactionId: z.string().nullable().describe("Identifiant de l'opérateur pour ce mouvement d'argent (celui du SMS du client)"),
  heldAmount: z.number().describe("Virement : montant + frais encore réservés tant que l'opérateur n'a pas répondu définitivement ; 0 pour un paiement"),
  queuedForFloat: z.boolean().describe("Virement en file d'attente : PENDING, pas encore envoyé, il attend le float de l'opérateur (annulable)"),
  refundedAmount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});

/** A transaction with its history, and what of it may be refunded. */
export const transactionDetailData = transactionItem.extend({
  isRefundable: z
    .boolean()
    .describe(
      'Vrai quand un remboursement demandé maintenant serait accepté par POST …/transactions/{reference}/refund ' +
        '(paiement reçu SUCCESS dont il reste un montant à rembourser, avec un payeur et un moyen de paiement actif) ; ' +
        'le remboursement peut encore être refusé pour le solde ou les limites du moyen de paiement',
    ),
  refundableAmount: z
    .number()
    .describe('Ce qui reste à rembourser (unités de base) : le montant moins les remboursements en cours, réussis ou encore payables ; 0 sauf pour un paiement reçu SUCCESS'),
  events: z.array(
    z.object({
      id: z.number(),
      fromStatus: documentedEnum(TRANSACTION_STATUSES).nullable(),
      toStatus: documentedEnum(TRANSACTION_STATUSES),
      cause: z.string(),
      failureCode: documentedEnum(FAILURE_CODES).nullable(),
      detail: z.record(z.string(), z.unknown()).nullable().describe('Diagnostic (personnel seulement ; null pour un marchand)'),
      createdAt: z.string(),
    }),
  ),
});

/** `…/stats` data. */
export const transactionStatsData = z.object({
  total: z.number(),
  successCount: z.number(),
  pendingCount: z.number(),
  failedCount: z.number(),
  cancelledCount: z.number(),
  refundedCount: z.number(),
  totalVolume: z.number().describe('Σ des montants, tous statuts'),
  successVolume: z.number().describe('Σ des montants SUCCESS et REFUNDED'),
});

/** Query of the chart. */
export const chartQuery = z.object({
  interval: z.enum(CHART_INTERVALS).default('LAST_7_DAYS'),
  groupBy: z.enum(CHART_GROUPS).default('STATUS'),
  direction: z.enum(['PAY_IN', 'PAY_OUT']).default('PAY_IN').describe('PAY_IN (par défaut) ou PAY_OUT'),
  environment: dashboardEnvironmentQuery,
  appId: transactionFilterQuery.shape.appId,
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, fr('doit être un code ISO 4217'))
    .optional()
    .describe('Devise (par défaut : celle de ma plus ancienne application)'),
  timeZone: timeZoneQuery,
});

/** Chart data. */
export const chartData = z.object({
  interval: z.enum(CHART_INTERVALS),
  groupBy: z.enum(CHART_GROUPS),
  currency: z.string().nullable(),
  labels: z.array(z.string()).describe('TODAY : heures « HH:00 » du jour ; sinon jours « AAAA-MM-JJ » ; dans le fuseau timeZone (UTC par défaut)'),
  series: z.array(
    z.object({
      key: z.string(),
      counts: z.array(z.number()),
      volumes: z
        .array(z.number())
        .describe('Montants nets, unités de base : paiement, montant − frais ; virement, montant + frais ; des frais pas encore pris comptent 0'),
    }),
  ),
});

/** A rail usable by the merchant. */
export const merchantProviderData = z.object({
  code: z.string(),
  name: z.string(),
  type: z.string(),
  country: z.string(),
  currency: z.string(),
  minAmount: z.number(),
  maxAmount: z.number(),
  feePercentage: z.number().describe('Frais des paiements, en % (les miens si un administrateur les a fixés)'),
  feeFixed: z.number(),
  payOutFeePercentage: z.number(),
  payOutFeeFixed: z.number(),
  environments: z.array(z.enum(['TEST', 'LIVE'])).describe('LIVE seulement si le connecteur est configuré'),
});

/** Query of the admin overview: a period (default the last 30 days) and an environment. */
export const adminStatsQuery = z
  .object({
    from: dateBound('from').optional().describe('Début (inclus) ; par défaut 30 jours avant to'),
    to: dateBound('to').optional().describe('Fin (exclue) ; par défaut maintenant'),
    environment: z.enum(['LIVE', 'TEST']).default('LIVE'),
  })
  .superRefine(checkRange);

const railStats = z.object({
  provider: z.string(),
  currency: z.string(),
  count: z.number(),
  successCount: z.number(),
  failedCount: z.number(),
  pendingCount: z.number(),
  successRate: z.number().nullable().describe('(SUCCESS + REFUNDED) ÷ terminées ; null si aucune'),
  volume: z.number(),
});

/** Admin overview data. */
export const adminStatsData = z.object({
  from: z.string(),
  to: z.string(),
  environment: z.enum(['LIVE', 'TEST']),
  merchants: z.object({ total: z.number(), active: z.number(), newInPeriod: z.number() }),
  transactions: z.object({
    count: z.number(),
    successCount: z.number(),
    failedCount: z.number(),
    pendingCount: z.number(),
    successRate: z.number().nullable(),
  }),
  volumes: z.array(z.object({ currency: z.string(), payInVolume: z.number(), payOutVolume: z.number() })),
  byRail: z.array(railStats),
});

/** Public stats data. */
export const publicStatsData = z.object({
  merchantCount: z.number(),
  transactionCount: z.number(),
  paymentMethodCount: z.number(),
});
