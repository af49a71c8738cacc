/**
 * Schemas of the money routes: balances, dashboard summary, refunds. They validate requests and
 * generate `/openapi.json`.
 */
import { z } from 'zod';
import { amountSchema, fr, optionalText, requiredText } from './common.ts';
import { dashboardEnvironmentQuery, timeZoneQuery } from './dashboard.ts';
import { transactionItem as dashboardTransaction } from './transactions.ts';

/** Query of the balance and dashboard routes. */
export const balanceQuery = z.object({
  environment: dashboardEnvironmentQuery,
  appId: z.string().uuid(fr('doit être un identifiant (UUID)')).optional().describe('Une seule de mes applications'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, fr('doit être un code ISO 4217'))
    .optional()
    .describe('Devise du tableau de bord (par défaut : celle de ma plus ancienne application)'),
});

/** Query of the dashboard summary: the balance query and the zone of its "today". */
export const dashboardSummaryQuery = balanceQuery.extend({ timeZone: timeZoneQuery });

/** One balance line (base units). */
export const balanceLine = z.object({
  availableAmount: z.number().describe('Disponible pour des virements et retraits'),
  pendingAmount: z.number().describe('Encaissé, pas encore réglé par le moyen de paiement'),
  reservedAmount: z.number().describe('Réservé pour des virements en cours'),
  batchReservedAmount: z.number().describe('Réservé pour les éléments de lots approuvés pas encore envoyés (montants et frais)'),
  currency: z.string(),
});

/** `GET /api/v1/merchants/dashboard` data. */
export const dashboardSummaryData = z.object({
  availableBalance: z.number(),
  pendingBalance: z.number(),
  currency: z.string().nullable(),
  dailyVolume: z
    .number()
    .describe('Montant net (montant − frais) des paiements reçus réussis du jour (fuseau timeZone, UTC par défaut), unités de base'),
  todayTransactionCount: z.number().describe('Paiements reçus créés aujourd’hui, tous statuts (ni virements, ni retraits, ni remboursements)'),
  todayTransactions: z.array(dashboardTransaction).describe('Paiements reçus du jour, du plus récent au plus ancien ; payerAccount masqué (••••0001)'),
  lastFiveTransactions: z.array(dashboardTransaction).describe('Les cinq derniers paiements reçus ; payerAccount masqué (••••0001)'),
});

/** `POST /api/v1/pay-in/refund` body. */
export const refundRequest = z
  .object({
    reference: requiredText(64).describe('Référence du paiement à rembourser (PI-…)'),
    amount: amountSchema.optional().describe('Montant à rembourser (unités de base) ; par défaut tout ce qui reste'),
    reason: optionalText(255),
  })
  .meta({ examples: [{ reference: 'PI-E902FAF36DC3', amount: 1000, reason: 'Article retourné' }] });

/** Body of the dashboard refund route. */
export const dashboardRefundRequest = refundRequest.omit({ reference: true }).meta({ examples: [{ amount: 1000, reason: 'Article retourné' }] });

/** A refund as answered when it is created. */
export const refundData = z.object({
  reference: z.string().describe('Référence du virement de remboursement (PO-…)'),
  paymentReference: z.string(),
  status: z.literal('PENDING'),
  amount: z.number(),
  feeAmount: z.number().describe('Frais de virement du remboursement, à la charge du marchand'),
  currency: z.string(),
  reason: z.string().nullable(),
});
