/**
 * Schemas of the fund collection routes: the dashboard's create/update bodies and view, and the
 * public page's JSON payment. Dates are ISO 8601, with a zone (`Z`, `+01:00`) or without (server
 * local time, like the responses).
 */
import { z } from 'zod';
import { TRANSACTION_STATUSES } from '../../domain/transaction-state.ts';
import { documentedEnum } from './openapi.ts';
import { COLLECTION_STATUSES } from '../../collections/index.ts';
import { amountSchema, currencySchema, fr, optionalHttpUrl, optionalText, requiredText, uuidParam } from './common.ts';
import { dashboardEnvironmentQuery, pageQuery } from './dashboard.ts';

const NO_NUL = fr('ne doit pas contenir le caractère nul (U+0000)');

/** An ISO 8601 date-time, with or without zone, as a Date. */
const dateTime = z
  .iso.datetime({ offset: true, local: true, ...fr('doit être une date ISO 8601 (ex. 2026-12-31T23:59:00Z)') })
  .transform((v) => new Date(v));

/** Text that PATCH can clear with null. */
function clearableText(max: number) {
  return z.string().max(max).regex(/^[^\u0000]*$/, NO_NUL).nullable().optional();
}

/** Body of `POST /api/v1/merchants/apps/{applicationId}/fund-collections`. */
export const createCollectionRequest = z.object({
  title: requiredText(255).describe('Titre affiché sur la page'),
  description: optionalText(2000),
  coverImageUrl: optionalHttpUrl(500).describe("Image de couverture (URL https de préférence)"),
  currency: currencySchema.optional().describe("Celle de l'application (par défaut)"),
  isAmountFixed: z.boolean().optional().describe('true : chacun paie `amount` ; false (défaut) : montant libre'),
  amount: amountSchema
    .nullish()
    .transform((v) => v ?? undefined)
    .describe('Montant à payer (obligatoire si fixe) ; montant proposé si libre'),
  expiresAt: dateTime.nullish().transform((v) => v ?? undefined).describe('Fin de la collecte (date future) ; aucune par défaut'),
  collectCustomerInfo: z.boolean().optional().describe('Demander (facultativement) nom et e-mail au payeur'),
  thankYouMessage: optionalText(1000).describe('Message affiché après un paiement réussi'),
  environment: dashboardEnvironmentQuery.describe(
    'Extension : TEST (bac à sable) ou LIVE. Par défaut : LIVE si le marchand a une clé API LIVE active ou au moins une transaction LIVE, sinon TEST',
  ),
}).meta({
  examples: [
    {
      title: 'Cotisation de novembre',
      description: 'Cotisation mensuelle de la tontine',
      isAmountFixed: true,
      amount: 2000,
      expiresAt: '2026-12-31T23:59:00Z',
      collectCustomerInfo: true,
      thankYouMessage: 'Merci pour votre cotisation !',
      environment: 'TEST',
    },
  ],
});

/** Body of `PATCH …/fund-collections/{id}`: every field optional; null clears an optional text or the amount. */
export const updateCollectionRequest = z.object({
  title: requiredText(255).optional(),
  description: clearableText(2000),
  coverImageUrl: z
    .string()
    .max(500)
    .regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue'))
    .nullable()
    .optional(),
  isAmountFixed: z.boolean().optional(),
  amount: amountSchema.nullable().optional(),
  expiresAt: dateTime.optional(),
  removeExpiresAt: z.boolean().optional().describe("true : la collecte n'expire plus"),
  collectCustomerInfo: z.boolean().optional(),
  thankYouMessage: clearableText(1000),
}).meta({ examples: [{ title: 'Cotisation de décembre', amount: 2500 }] });

/** Body of `PATCH …/fund-collections/{id}/reopen` (optional). */
export const reopenCollectionRequest = z
  .object({
    expiresAt: dateTime.optional().describe('Nouvelle fin (obligatoire pour rouvrir une collecte expirée, sauf removeExpiresAt)'),
    removeExpiresAt: z.boolean().optional(),
  })
  .optional()
  .meta({ examples: [{ expiresAt: '2027-01-31T23:59:00Z' }] });

/** Most collections one list answer holds (its `size` default and bound). */
export const COLLECTION_LIST_MAX = 100;

/** Query of the list: a bare list of `size` (default and most: 100) collections, page `page` (0-based). */
export const collectionListQuery = pageQuery.extend({
  size: z.coerce.number().int().min(1).max(COLLECTION_LIST_MAX).default(COLLECTION_LIST_MAX),
  applicationId: uuidParam.optional(),
  status: z.enum(COLLECTION_STATUSES).optional().describe('Sans filtre : ACTIVE et CLOSED (les supprimées seulement avec DELETED)'),
  environment: z.enum(['LIVE', 'TEST'], fr('doit valoir LIVE ou TEST')).optional().describe('Seulement les collectes de cet environnement ; sans filtre : tous'),
});

/** A fund collection as the dashboard reads it. */
export const collectionData = z.object({
  id: z.string(),
  slug: z.string(),
  collectUrl: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(COLLECTION_STATUSES),
  currency: z.string(),
  environment: z.enum(['LIVE', 'TEST']),
  amountFixed: z.boolean(),
  amount: z.number().nullable(),
  coverImageUrl: z.string().nullable(),
  collectCustomerInfo: z.boolean(),
  thankYouMessage: z.string().nullable(),
  expiresAt: z.string().nullable(),
  applicationId: z.string(),
  applicationName: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The list: a bare array, as SharePay's dashboard reads it. */
export const collectionList = z.array(collectionData).describe('Les collectes de la page, les plus récentes d’abord (un tableau, sans objet de page)');

/** Body of `POST /api/v1/public/collect/confirm`. */
export const collectConfirmRequest = z
  .object({
  slug: z.string().regex(/^[a-z0-9-]{1,80}$/, fr('doit être le slug de la collecte')),
  amount: amountSchema.nullish().transform((v) => v ?? undefined).describe('Obligatoire pour un montant libre ; ignoré si fixe'),
  paymentMethod: requiredText(64).describe('Code du moyen de paiement (ex. MTN_MOMO_CM)'),
  payerAccount: requiredText(40).describe('Numéro mobile money qui paie'),
  payerName: optionalText(255).describe('Gardé si la collecte demande les informations du payeur'),
  payerEmail: z
    .string()
    .trim()
    .max(255)
    .email(fr('doit être une adresse e-mail valide'))
    .or(z.literal(''))
    .nullish()
    .transform((v) => (v ? v : undefined)),
  })
  .meta({
    examples: [{ slug: 'cotisation-6eac9b55', amount: 2000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', payerName: 'Awa Ngono', payerEmail: 'awa@example.cm' }],
  });

/** The started payment (201). */
export const collectPaymentData = z.object({
  reference: z.string().describe('Référence FC-…'),
  status: documentedEnum(TRANSACTION_STATUSES),
  amount: z.number(),
  currency: z.string(),
  paymentMethod: z.string().nullable(),
  payerAccount: z.string().nullable(),
  statusToken: z.string().describe('Jeton de suivi du paiement (GET …/collect/payments/{reference}?token=…)'),
  statusUrl: z.string().describe('Page de suivi du paiement'),
  redirectUrl: z.string().optional().describe("Moyens à redirection (Wave) : la page de l'opérateur"),
});

/** A payment's status as its payer follows it. */
export const collectStatusData = z.object({
  reference: z.string(),
  status: documentedEnum(TRANSACTION_STATUSES),
  amount: z.number(),
  currency: z.string(),
  failureCode: z.string().nullable(),
});
