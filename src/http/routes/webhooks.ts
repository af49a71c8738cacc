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
import { envelopeOf, errorEnvelope, ok } from '../envelope.ts';

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

const patchBody = z.object({
  webhookUrl: z.string().trim().min(1).max(WEBHOOK_URL_MAX).describe('URL http(s) absolue, 500 caractères au plus'),
});

const errors = { 400: errorEnvelope, 401: errorEnvelope, 409: errorEnvelope, 502: errorEnvelope };
const security = [{ apiKey: [] }];

/** Registers the three API-key webhook endpoints. */
export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.get(
    '/api/v1/webhook',
    { schema: { tags: ['Webhooks'], summary: 'Lire la configuration du webhook', security, response: { 200: envelopeOf(webhookSettingsData), ...errors } } },
    async (request) => ok(await getWebhookSettings(request.services, requireApiKey(request).applicationId), 'Configuration du webhook.', services.clock.now()),
  );

  r.patch(
    '/api/v1/webhook',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "Définir l'URL du webhook",
        security,
        body: patchBody,
        response: { 200: envelopeOf(webhookSettingsData), ...errors },
      },
    },
    async (request) => {
      const data = await updateWebhookUrl(request.services, requireApiKey(request).applicationId, request.body.webhookUrl);
      return ok(data, 'URL du webhook mise à jour.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/webhook/test',
    { schema: { tags: ['Webhooks'], summary: 'Envoyer un événement de test', security, response: { 200: envelopeOf(testWebhookData), ...errors } } },
    async (request) => {
      const data = await sendTestWebhook(request.services, requireApiKey(request).applicationId);
      return ok(data, data.delivered ? 'Événement de test livré.' : "Événement de test envoyé, mais le serveur n'a pas répondu 2xx.", services.clock.now());
    },
  );
}
