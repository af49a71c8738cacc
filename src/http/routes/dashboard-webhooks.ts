/**
 * Webhook configuration by dashboard JWT, at the paths SharePay's dashboard calls:
 * `/api/v1/merchants/apps/{appId}/webhook` read / set URL, secret create / rotate / delete, test
 * event, delivery log (filtered by status or transaction reference) and replay. Thin adapters
 * over the same use cases as the API-key routes; access is `findAccessibleApplication` (a
 * merchant's own applications; SUPPORT reads only; ADMIN all).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.ts';
import { DELIVERY_STATUSES, listDeliveries, replayDelivery } from '../../webhooks/webhook-deliveries.ts';
import { createWebhookSecret, deleteWebhookSecret, rotateWebhookSecret } from '../../webhooks/webhook-secrets.ts';
import { getWebhookSettings, sendTestWebhook, updateWebhookUrl } from '../../webhooks/webhook-settings.ts';
import { WEBHOOK_URL_MAX } from '../../webhooks/webhook-url.ts';
import { recordAudit } from '../../dashboard/audit.ts';
import { auditActor, dashboardAuthHook, findAccessibleApplication, requireAccount } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, bearerSecurity, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS, EXAMPLE_WEBHOOK_SECRET } from '../schemas/examples.ts';
import { testWebhookData, webhookSettingsData } from './webhooks.ts';
import { uuidParam } from '../schemas/common.ts';
import { appIdKeyParams } from '../schemas/dashboard.ts';

const security = bearerSecurity;
/** Codes of a route on one application's webhook: its id, and whether this account may see or change it. */
const APP_ERRORS = ['INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND', 'ACCESS_DENIED'] as const;
const SETTINGS = {
  applicationId: EXAMPLE_IDS.application,
  applicationName: 'Boutique Awa',
  webhookUrl: 'https://boutique.example.cm/kolo/webhooks',
  webhookSecretPrefix: 'whsec_01234567...',
  updatedAt: new Date('2026-11-20T10:00:00.000Z'),
};
const SECRET = { ...SETTINGS, plainTextWebhookSecret: EXAMPLE_WEBHOOK_SECRET };
const DELIVERY = {
  id: '2b3c4d5e-6f70-4a81-9b2c-3d4e5f607182',
  eventId: 'evt_0123456789abcdef',
  eventName: 'payment.success',
  status: 'DELIVERED' as const,
  httpStatus: 200,
  attemptCount: 1,
  nextRetryAt: null,
  lastError: null,
  deliveredAt: new Date('2026-11-20T10:00:04.000Z'),
  createdAt: new Date('2026-11-20T10:00:03.000Z'),
};
const tags = ['Dashboard – webhooks'];
const appParams = appIdKeyParams;
const deliveryParams = appIdKeyParams.extend({ deliveryId: uuidParam });

const secretData = webhookSettingsData.extend({
  plainTextWebhookSecret: z.string().describe('Affiché une seule fois : conservez-le.'),
});
const deliveryData = z.object({
  id: z.string(),
  eventId: z.string(),
  eventName: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  httpStatus: z.number().int().nullable(),
  attemptCount: z.number().int(),
  nextRetryAt: z.date().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.date().nullable(),
  createdAt: z.date(),
});
const deliveriesPage = z.object({
  content: z.array(deliveryData),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
  size: z.number().int(),
  number: z.number().int(),
  page: z.number().int().describe('Le même index que number'),
  first: z.boolean(),
  last: z.boolean(),
});
const deliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  reference: z
    .string()
    .regex(/^[A-Z]{2}-[A-Za-z0-9-]{1,60}$/, 'doit être une référence de transaction (ex. PI-0A1B2C3D4E5F)')
    .optional()
    .describe("Seulement les livraisons des événements de cette transaction de l'application (sa référence)"),
  page: z.coerce.number().int().min(0).max(100_000).default(0),
  size: z.coerce.number().int().min(1).max(100).default(20),
});

/** Registers the dashboard webhook endpoints. */
export async function dashboardWebhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const base = '/api/v1/merchants/apps/:appId/webhook';
  const appOf = async (request: { params: { appId: string } } & Parameters<typeof requireAccount>[0], write: boolean) =>
    findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write });

  r.get(
    base,
    { schema: { tags, operationId: 'getAppWebhookSettings', summary: 'Lire la configuration du webhook', security, params: appParams, response: { 200: success(webhookSettingsData, "L'URL et le début du secret de signature", { message: 'Configuration du webhook.', data: SETTINGS }), ...errorResponses(...APP_ERRORS) } } },
    async (request) => ok(await getWebhookSettings(request.services, (await appOf(request, false)).id), 'Configuration du webhook.', services.clock.now()),
  );

  r.patch(
    base,
    {
      schema: {
        tags,
        operationId: 'updateAppWebhookUrl', summary: "Définir (ou effacer avec null) l'URL du webhook",
        security,
        params: appParams,
        body: z
          .object({ webhookUrl: z.string().trim().min(1).max(WEBHOOK_URL_MAX).nullable() })
          .meta({ examples: [{ webhookUrl: 'https://boutique.example.cm/kolo/webhooks' }] }),
        response: { 200: success(webhookSettingsData, 'La configuration mise à jour', { message: 'URL du webhook mise à jour.', data: SETTINGS }), ...errorResponses(...BODY_ERRORS, ...APP_ERRORS) },
      },
    },
    async (request) => {
      const app = await appOf(request, true);
      const before = await getWebhookSettings(request.services, app.id);
      const updated = await updateWebhookUrl(request.services, app.id, request.body.webhookUrl);
      await recordAudit(request.services, auditActor(request), {
        action: 'WEBHOOK_URL_UPDATED',
        targetType: 'APPLICATION',
        targetId: app.id,
        before: { webhookUrl: before.webhookUrl },
        after: { webhookUrl: updated.webhookUrl },
      });
      return ok(updated, 'URL du webhook mise à jour.', services.clock.now());
    },
  );

  r.post(
    `${base}/secret`,
    { schema: { tags, operationId: 'createWebhookSecret', summary: 'Créer le secret de signature', security, params: appParams, response: { 201: success(secretData, 'Le secret créé, affiché en entier cette seule fois', { message: 'Secret de webhook créé. Conservez-le : il ne sera plus affiché.', data: SECRET }), ...errorResponses(...APP_ERRORS, 'WEBHOOK_SECRET_ALREADY_EXISTS') } } },
    async (request, reply) => {
      const app = await appOf(request, true);
      const issued = await createWebhookSecret(request.services, app.id);
      await recordAudit(request.services, auditActor(request), { action: 'WEBHOOK_SECRET_CREATED', targetType: 'APPLICATION', targetId: app.id });
      const data = { ...(await getWebhookSettings(request.services, app.id)), plainTextWebhookSecret: issued.plainTextWebhookSecret };
      return reply.code(201).send(ok(data, 'Secret de webhook créé. Conservez-le : il ne sera plus affiché.', services.clock.now()));
    },
  );

  r.post(
    `${base}/rotate`,
    { schema: { tags, operationId: 'rotateWebhookSecret', summary: 'Remplacer le secret (l’ancien signe encore pendant la période de recouvrement)', security, params: appParams, response: { 200: success(secretData, "Le nouveau secret ; l'ancien signe encore pendant la période de recouvrement", { message: `Nouveau secret de webhook créé. L'ancien reste valide ${services.config.webhookSecretOverlapHours} h.`, data: SECRET }), ...errorResponses(...APP_ERRORS, 'WEBHOOK_SECRET_NOT_FOUND') } } },
    async (request) => {
      const app = await appOf(request, true);
      const issued = await rotateWebhookSecret(request.services, app.id);
      await recordAudit(request.services, auditActor(request), { action: 'WEBHOOK_SECRET_ROTATED', targetType: 'APPLICATION', targetId: app.id });
      const data = { ...(await getWebhookSettings(request.services, app.id)), plainTextWebhookSecret: issued.plainTextWebhookSecret };
      return ok(data, `Nouveau secret de webhook créé. L'ancien reste valide ${services.config.webhookSecretOverlapHours} h.`, services.clock.now());
    },
  );

  r.delete(
    `${base}/secret`,
    { schema: { tags, operationId: 'deleteWebhookSecret', summary: 'Supprimer le secret (les livraisons ne sont plus signées ; 204 sans corps)', security, params: appParams, response: { 204: z.null().meta({ description: 'Fait ; aucun contenu (204, sans corps).' }), ...errorResponses(...APP_ERRORS, 'WEBHOOK_SECRET_NOT_FOUND') } } },
    async (request, reply) => {
      const app = await appOf(request, true);
      await deleteWebhookSecret(request.services, app.id);
      await recordAudit(request.services, auditActor(request), { action: 'WEBHOOK_SECRET_DELETED', targetType: 'APPLICATION', targetId: app.id });
      return reply.code(204).send(null);
    },
  );

  r.post(
    `${base}/test`,
    {
      schema: {
        tags,
        operationId: 'sendAppTestWebhook', summary: 'Envoyer un événement de test',
        security,
        params: appParams,
        body: z
          .object({ data: z.record(z.string(), z.unknown()).nullish().describe("Données libres de l'événement de test") })
          .meta({ examples: [{ data: { commande: 'CMD-42' } }] }),
        response: { 200: success(testWebhookData, 'Le résultat de la livraison', { message: 'Événement de test livré.', data: { delivered: true, webhookUrl: SETTINGS.webhookUrl, httpStatus: 200, sentAt: new Date('2026-11-20T10:00:00.000Z') } }), ...errorResponses(...BODY_ERRORS, ...APP_ERRORS, 'WEBHOOK_URL_NOT_CONFIGURED', 'WEBHOOK_TEST_FAILED') },
      },
    },
    async (request) => {
      const app = await appOf(request, true);
      const data = await sendTestWebhook(request.services, app.id, request.body.data ?? undefined);
      return ok(data, data.delivered ? 'Événement de test livré.' : "Événement de test envoyé, mais le serveur n'a pas répondu 2xx.", services.clock.now());
    },
  );

  r.get(
    `${base}/deliveries`,
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries', summary: 'Journal des livraisons (plus récentes d’abord ; filtres : statut, référence de transaction)',
        security,
        params: appParams,
        querystring: deliveriesQuery,
        response: { 200: success(deliveriesPage, 'Une page de livraisons', { message: 'Livraisons du webhook.', data: { content: [DELIVERY], totalElements: 1, totalPages: 1, size: 20, number: 0, page: 0, first: true, last: true } }), ...errorResponses(...APP_ERRORS) },
      },
    },
    async (request) => {
      const app = await appOf(request, false);
      return ok(await listDeliveries(request.services, app.id, request.query), 'Livraisons du webhook.', services.clock.now());
    },
  );

  r.post(
    `${base}/deliveries/:deliveryId/replay`,
    { schema: { tags, operationId: 'replayWebhookDelivery', summary: 'Rejouer une livraison', security, params: deliveryParams, response: { 200: success(deliveryData, 'La livraison, reprogrammée', { message: 'Livraison reprogrammée.', data: { ...DELIVERY, status: 'PENDING', nextRetryAt: new Date('2026-11-20T10:05:00.000Z') } }), ...errorResponses(...APP_ERRORS, 'WEBHOOK_DELIVERY_NOT_FOUND') } } },
    async (request) => {
      const app = await appOf(request, true);
      const replayed = await replayDelivery(request.services, app.id, request.params.deliveryId);
      await recordAudit(request.services, auditActor(request), {
        action: 'WEBHOOK_DELIVERY_REPLAYED',
        targetType: 'WEBHOOK_DELIVERY',
        targetId: replayed.id,
        after: { applicationId: app.id, eventId: replayed.eventId },
      });
      return ok(replayed, 'Livraison reprogrammée.', services.clock.now());
    },
  );
}
