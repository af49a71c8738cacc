/**
 * Schemas of the batch pay-out routes (merchant API and dashboard), for validation and the
 * OpenAPI document.
 */
import { z } from 'zod';
import { BATCH_ITEMS_MAX } from '../../batches/index.ts';
import { fr } from './common.ts';
import { dashboardEnvironmentQuery, pageQuery } from './dashboard.ts';

/** An example batch body: two salaries. */
export const BATCH_BODY_EXAMPLE = {
  items: [
    { amount: 50000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa Ngono', merchantReference: 'SAL-2026-11-001' },
    { amount: 45000, currency: 'XAF', paymentMethod: 'ORANGE_MONEY_CM', beneficiaryAccount: '237699000002', beneficiaryName: 'Paul Mbarga' },
  ],
};

/** Body of a batch creation: `items` (JSON) or `csv` (the file's text), and `dryRun`. */
export const batchCreateRequest = z
  .object({
    items: z
      .array(z.record(z.string(), z.unknown()))
      .max(BATCH_ITEMS_MAX, fr(`doit contenir au plus ${BATCH_ITEMS_MAX} éléments`))
      .optional()
      .describe('Les virements : amount (entier, unités de base), currency, paymentMethod, beneficiaryAccount, beneficiaryName, merchantReference facultatif'),
    csv: z
      .string()
      .max(512 * 1024, fr('doit contenir au plus 512 Kio'))
      .optional()
      .describe("Le texte d'un fichier CSV (UTF-8, virgules ou points-virgules) dont la ligne d'en-tête nomme amount, currency, paymentMethod, beneficiaryAccount, beneficiaryName et, si besoin, merchantReference"),
    dryRun: z.boolean(fr('doit être un booléen')).optional().describe('true : vérifie et chiffre le lot sans rien écrire'),
  })
  .meta({ examples: [BATCH_BODY_EXAMPLE] });

/** The totals of a batch, base units of `currency`. */
export const batchTotalsData = z.object({
  itemCount: z.number().int(),
  totalAmount: z.number().int(),
  feeAmount: z.number().int(),
  reservedAmount: z.number().int().describe('totalAmount + feeAmount : ce que l’approbation réserve'),
  currency: z.string(),
});

/** A batch with its progress. */
export const batchData = z.object({
  id: z.string(),
  status: z.string().describe('AWAITING_APPROVAL, APPROVED, PROCESSING, COMPLETED, PARTLY_FAILED, REJECTED, CANCELLED, EXPIRED'),
  environment: z.string(),
  currency: z.string(),
  itemCount: z.number().int(),
  totalAmount: z.number().int(),
  feeAmount: z.number().int(),
  reservedAmount: z.number().int(),
  progress: z.object({ waiting: z.number().int(), pending: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
  createdBy: z.string().nullable().describe('La personne du tableau de bord qui l’a créé ; null pour une clé API'),
  approvedBy: z.string().nullable().describe('La personne qui l’a approuvé ; null si approuvé automatiquement ou pas encore'),
  createdAt: z.string(),
  expiresAt: z.string(),
  approvedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
});

/** A batch with its items (the pay-out each became, once sent). */
export const batchDetailData = batchData.extend({
  items: z.array(
    z.object({
      rowNumber: z.number().int(),
      amount: z.number().int(),
      feeAmount: z.number().int(),
      paymentMethod: z.string(),
      beneficiaryAccount: z.string(),
      beneficiaryName: z.string(),
      merchantReference: z.string().nullable(),
      status: z.enum(['WAITING', 'PENDING', 'SUCCESS', 'FAILED']),
      reference: z.string().nullable(),
      failureReason: z.string().nullable(),
    }),
  ),
});

/** The answer of a batch creation: the totals, and the batch unless it was a dry run. */
export const batchCreateData = z.object({
  dryRun: z.boolean(),
  totals: batchTotalsData,
  batch: batchData.nullable(),
});

/** Path parameter of a batch. */
export const batchIdParams = z.object({ id: z.uuid(fr('doit être un identifiant de lot')) });

/** A batch in the dashboard's list: the batch and its application. */
export const batchListItemData = batchData.extend({ applicationId: z.string() });

/** Query of the dashboard's batch list: page, size, environment and optionally one application. */
export const batchListQuery = pageQuery.extend({
  environment: dashboardEnvironmentQuery,
  appId: z.uuid(fr('doit être un identifiant d’application')).optional().describe('Une seule de mes applications'),
});

/** What the signed-in person may do to a batch now, as the dashboard's batch screen offers it. */
export const BATCH_ACTIONS = ['APPROVE', 'REJECT', 'CANCEL', 'RETRY'] as const;

/** A batch with its items, and what the signed-in person may do to it (the dashboard). */
export const dashboardBatchDetailData = batchDetailData.extend({
  allowedActions: z
    .array(z.enum(BATCH_ACTIONS))
    .describe("Ce que la personne connectée peut faire maintenant selon son rôle et l'état du lot : APPROVE (approbateur qui ne l'a pas créé), REJECT, CANCEL, RETRY"),
});
