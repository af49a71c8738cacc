/**
 * Schemas of the home screen's reads (`GET /api/v1/merchants/home/today` and `…/period`), which
 * only Kolo's web app calls. They validate requests and generate `/openapi.json`.
 */
import { z } from 'zod';
import { HOME_INTERVALS, HOME_LAST_COUNT } from '../../dashboard/home.ts';
import { dashboardEnvironmentQuery, timeZoneQuery } from './dashboard.ts';
import { transactionItem } from './transactions.ts';

/** Query of `…/home/today`. */
export const homeTodayQuery = z.object({ environment: dashboardEnvironmentQuery, timeZone: timeZoneQuery });

/** Query of `…/home/period`. */
export const homePeriodQuery = homeTodayQuery.extend({
  interval: z.enum(HOME_INTERVALS).default('LAST_7_DAYS').describe('Les 7 ou les 30 derniers jours du lecteur, aujourd’hui compris'),
});

/** `…/home/today` data. */
export const homeTodayData = z.object({
  currency: z.string().nullable().describe('Devise des chiffres et de la liste : celle de ma plus ancienne application ; null sans application'),
  volume: z.number().describe('Σ des paiements reçus SUCCESS ou REFUNDED depuis minuit (fuseau timeZone), unités de base'),
  count: z.number().describe('Nombre de transactions (paiements et virements) depuis minuit (fuseau timeZone)'),
  lastTransactions: z.array(transactionItem).describe(`Les ${HOME_LAST_COUNT} transactions les plus récentes, paiements et virements`),
});

/** `…/home/period` data. */
export const homePeriodData = z.object({
  interval: z.enum(HOME_INTERVALS),
  currency: z.string().nullable().describe('Devise du volume : celle de ma plus ancienne application ; null sans application'),
  successRate: z
    .number()
    .nullable()
    .describe('Paiements reçus SUCCESS ou REFUNDED sur les paiements terminés (tous statuts sauf PENDING), toutes devises, depuis le début de la période ; null sans paiement terminé'),
  labels: z.array(z.string()).describe('Les jours de la période, « AAAA-MM-JJ », dans le fuseau timeZone'),
  volumes: z.array(z.number()).describe('Par jour de labels : Σ des paiements reçus SUCCESS ou REFUNDED, nets de frais (comme le graphique), unités de base'),
});
