/**
 * Schemas of the events API (`GET /api/v1/events`): the cursor and page size, and the events as
 * the webhooks carry them. They validate requests (bad `after` or `limit` → 400
 * INVALID_PARAMETER) and generate `/openapi.json`.
 */
import { z } from 'zod';
import { decodeEventCursor, EVENT_PAGE_DEFAULT, EVENT_PAGE_MAX } from '../../payments/index.ts';
import { WEBHOOK_EVENT_NAMES } from '../../webhooks/webhook-events.ts';
import { fr } from './common.ts';

const CURSOR_MESSAGE = 'doit être un curseur rendu par l’API des événements (cursor ou nextCursor)';

/** Query of `GET /api/v1/events`. `after` keeps its text (it may come back as `nextCursor`) with its decoded position. */
export const eventsQuery = z.object({
  after: z
    .string()
    .max(100, fr(CURSOR_MESSAGE))
    .transform((cursor, ctx) => {
      const position = decodeEventCursor(cursor);
      if (position) return { cursor, position };
      ctx.addIssue({ code: 'custom', message: fr(CURSOR_MESSAGE).error });
      return z.NEVER;
    })
    .optional()
    .describe('Le cursor du dernier événement lu (ou nextCursor) ; absent : depuis le premier événement conservé'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(EVENT_PAGE_MAX)
    .default(EVENT_PAGE_DEFAULT)
    .describe(`Nombre d’événements : 1 à ${EVENT_PAGE_MAX}, ${EVENT_PAGE_DEFAULT} par défaut`),
});

/** One event of the feed. */
export const feedEvent = z.object({
  cursor: z.string().describe('Position opaque de cet événement dans le flux'),
  id: z.string().describe('Identifiant de l’événement (evt_…), le même que webhook-id et que payload.id'),
  event: z.enum(WEBHOOK_EVENT_NAMES),
  createdAt: z.string().describe('ISO 8601, heure locale du serveur, sans fuseau'),
  payload: z.record(z.string(), z.unknown()).describe('Le corps JSON du webhook, exactement tel qu’il est (ou serait) livré'),
});

/** `GET /api/v1/events` data. */
export const eventsData = z.object({
  events: z.array(feedEvent).describe('Dans l’ordre du flux'),
  nextCursor: z
    .string()
    .nullable()
    .describe('À passer en after pour la suite : le cursor du dernier événement rendu, sinon after tel que donné ; null seulement sans after ni événement'),
  hasMore: z.boolean().describe('true : d’autres événements suivent déjà (redemander tout de suite)'),
});
