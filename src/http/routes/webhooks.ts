/**
 * Webhook configuration by API key, at the paths existing integrations call: `GET /api/v1/webhook`,
 * `PATCH /api/v1/webhook {webhookUrl}`, `POST /api/v1/webhook/test`. Thin adapters over
 * webhooks/webhook-settings.ts, the same use cases as the dashboard routes.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.ts';
import { getWebhookSettings, sendTestWebhook, updateWebhookUrl } from '../../webhooks/webhook-settings.ts';
import { WEBHOOK_URL_MAX } from '../../webhooks/webhook-url.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { ok } from '../envelope.ts';
import { API_KEY_ERRORS, BODY_ERRORS, apiKeySecurity, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS } from '../schemas/examples.ts';

/** `data` of the settings responses. */
export const webhookSettingsData = z.object({
  applicationId: z.string(),
  applicationName: z.string(),
  webhookUrl: z.string().nullable(),
  webhookSecretPrefix: z.string().nullable().describe('14 premiers caractères du secret puis "..."'),
  updatedAt: z.date(),
});

/** `data` of a test event reply. */
export const testWebhookData = z.object({
  delivered: z.boolean(),
  webhookUrl: z.string(),
  httpStatus: z.number().int().nullable(),
  sentAt: z.date(),
});

const patchBody = z
  .object({
    webhookUrl: z.string().trim().min(1).max(WEBHOOK_URL_MAX).describe('URL http(s) absolue, 500 caractères au plus'),
  })
  .meta({ examples: [{ webhookUrl: 'https://boutique.example.cm/kolo/webhooks' }] });

const security = apiKeySecurity;
/** The settings of the examples (a Date is written as ISO 8601 with its zone). */
const settingsExample = {
  applicationId: EXAMPLE_IDS.application,
  applicationName: 'Boutique Awa',
  webhookUrl: 'https://boutique.example.cm/kolo/webhooks',
  webhookSecretPrefix: 'whsec_01234567...',
  updatedAt: new Date('2026-11-20T10:00:00.000Z'),
};

/** Registers the three API-key webhook endpoints. */
export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.get(
    '/api/v1/webhook',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Lire la configuration du webhook',
        operationId: 'getWebhookSettings',
        security,
        response: {
          200: success(webhookSettingsData, "L'URL et le début du secret de signature", { message: 'Configuration du webhook.', data: settingsExample }),
          ...errorResponses(...API_KEY_ERRORS, 'RESOURCE_NOT_FOUND'),
        },
      },
    },
    async (request) => ok(await getWebhookSettings(request.services, requireApiKey(request, ['READ']).applicationId), 'Configuration du webhook.', services.clock.now()),
  );

  r.patch(
    '/api/v1/webhook',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "Définir l'URL du webhook",
        operationId: 'updateWebhookUrl',
        security,
        body: patchBody,
        response: {
          200: success(webhookSettingsData, 'La configuration mise à jour', { message: 'URL du webhook mise à jour.', data: settingsExample }),
          ...errorResponses(...BODY_ERRORS, ...API_KEY_ERRORS, 'RESOURCE_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const data = await updateWebhookUrl(request.services, requireApiKey(request, 'ALL').applicationId, request.body.webhookUrl);
      return ok(data, 'URL du webhook mise à jour.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/webhook/test',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Envoyer un événement de test',
        description: "Livre un événement de test à l'URL configurée et rend la réponse du serveur du marchand (delivered : réponse 2xx).",
        operationId: 'sendTestWebhook',
        security,
        response: {
          200: success(testWebhookData, 'Le résultat de la livraison', {
            message: 'Événement de test livré.',
            data: { delivered: true, webhookUrl: settingsExample.webhookUrl, httpStatus: 200, sentAt: new Date('2026-11-20T10:00:00.000Z') },
          }),
          ...errorResponses(...API_KEY_ERRORS, 'RESOURCE_NOT_FOUND', 'WEBHOOK_URL_NOT_CONFIGURED', 'WEBHOOK_TEST_FAILED'),
        },
      },
    },
    async (request) => {
      const data = await sendTestWebhook(request.services, requireApiKey(request, 'ALL').applicationId);
      return ok(data, data.delivered ? 'Événement de test livré.' : "Événement de test envoyé, mais le serveur n'a pas répondu 2xx.", services.clock.now());
    },
  );
}
