/**
 * Schemas of the merchant API's reads with an API key: the balance and the list of transactions.
 * They validate requests (a bad query parameter → 400 INVALID_PARAMETER naming it) and generate
 * `/openapi.json`.
 */
import { z } from 'zod';
import { decodeTransactionCursor, TRANSACTION_PAGE_DEFAULT, TRANSACTION_PAGE_MAX } from '../../payments/index.ts';
import { fr } from './common.ts';
import { payInStatusData, payOutStatusData } from './payments.ts';
import { transactionFilterQuery } from './transactions.ts';

/** `GET /api/v1/balance` data. */
export const balanceData = z.object({
  applicationId: z.string(),
  environment: z.enum(['LIVE', 'TEST']).describe("Celui de la clé : une clé de test lit le solde de test"),
  currency: z.string(),
  availableAmount: z.number().int().describe('Disponible pour des virements ou un retrait (unités de base)'),
  pendingAmount: z.number().int().describe('Paiements reçus, pas encore disponibles (unités de base)'),
  reservedAmount: z.number().int().describe("Réservé par des virements en attente de la réponse de l'opérateur (unités de base)"),
});

const CURSOR_MESSAGE = 'doit être un curseur rendu par une page précédente (nextCursor)';

/** Query of `GET /api/v1/transactions`: filters, page size and cursor. */
export const transactionsQuery = z
  .object({
    status: transactionFilterQuery.shape.status,
    type: transactionFilterQuery.shape.type,
    from: transactionFilterQuery.shape.from.describe(
      'Créées à partir de (inclus) : AAAA-MM-JJ (le jour entier) ou date-heure ISO 8601 ; sans fuseau, heure locale du serveur, comme les horodatages de l’API',
    ),
    to: transactionFilterQuery.shape.to.describe('Créées avant (exclu) ; une date seule inclut toute la journée ; même fuseau que from'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(TRANSACTION_PAGE_MAX)
      .default(TRANSACTION_PAGE_DEFAULT)
      .describe(`Taille de la page : 1 à ${TRANSACTION_PAGE_MAX}, ${TRANSACTION_PAGE_DEFAULT} par défaut`),
    cursor: z
      .string()
      .max(200, fr(CURSOR_MESSAGE))
      .transform((value, ctx) => {
        const position = decodeTransactionCursor(value);
        if (position) return position;
        ctx.addIssue({ code: 'custom', message: fr(CURSOR_MESSAGE).error });
        return z.NEVER;
      })
      .optional()
      .describe('nextCursor de la page précédente ; absent : la première page (les plus récentes)'),
  })
  .superRefine((query, ctx) => {
    // Also runs when a bound failed its own check (then it is still the raw string).
    const { from, to } = query as { from?: unknown; to?: unknown };
    if (from instanceof Date && to instanceof Date && from.getTime() >= to.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: fr('doit être postérieure à from').error });
    }
  });

const listed = {
  merchantReference: z.string().nullable(),
  createdAt: z.string().describe('ISO 8601, heure locale du serveur, sans fuseau'),
  updatedAt: z.string().describe('ISO 8601, heure locale du serveur, sans fuseau'),
};

/** An item of the list: the status read's view of its direction, with `direction` and the fields of the list. */
export const transactionListItem = z.discriminatedUnion('direction', [
  payInStatusData.extend({ direction: z.literal('PAY_IN'), ...listed }),
  payOutStatusData.extend({ direction: z.literal('PAY_OUT'), ...listed }),
]);

/** `GET /api/v1/transactions` data. */
export const transactionsData = z.object({
  items: z.array(transactionListItem).describe('Les plus récentes d’abord'),
  nextCursor: z.string().nullable().describe('À passer en cursor pour la page suivante ; null : dernière page'),
});
