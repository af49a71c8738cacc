/**
 * Webhook configuration of an application, shared by the API-key routes (`/api/v1/webhook`) and
 * the dashboard routes (`/api/v1/merchants/apps/{appId}/webhook`): read it, set the URL, send a
 * test event. Access control is the caller's job; these take an application id already checked.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { applications } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import { insertEventWithDelivery } from './webhook-events.ts';
import { checkWebhookUrl } from './webhook-url.ts';
import { currentSecretPrefix } from './webhook-secrets.ts';
import { webhookDeliveries } from '../db/schema-webhooks.ts';

/** What both route families show (the fields SharePay's dashboard and integrations read). */
export interface WebhookSettings {
  applicationId: string;
  applicationName: string;
  webhookUrl: string | null;
  webhookSecretPrefix: string | null;
  updatedAt: Date;
}

async function loadApplication(db: Db, applicationId: string) {
  const [app] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.id, applicationId), isNull(applications.deletedAt)));
  if (!app) throw new ApiError('RESOURCE_NOT_FOUND');
  return app;
}

/** The webhook settings of an application. Throws RESOURCE_NOT_FOUND for an unknown or deleted one. */
export async function getWebhookSettings(services: Pick<Services, 'db'>, applicationId: string): Promise<WebhookSettings> {
  const app = await loadApplication(services.db, applicationId);
  return {
    applicationId: app.id,
    applicationName: app.name,
    webhookUrl: app.webhookUrl,
    webhookSecretPrefix: await currentSecretPrefix(services.db, app.id),
    updatedAt: app.updatedAt,
  };
}

/**
 * Sets (or, with null, clears) the webhook URL after the configuration-time checks of
 * `checkWebhookUrl` (VALIDATION_ERROR on `webhookUrl`). New events go to the new URL, and so do
 * pending retries (the URL is read at each attempt).
 */
export async function updateWebhookUrl(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  applicationId: string,
  rawUrl: string | null,
): Promise<WebhookSettings> {
  await loadApplication(services.db, applicationId);
  const url = rawUrl === null ? null : await checkWebhookUrl(rawUrl, { allowPrivateHosts: services.config.webhookAllowPrivateHosts });
  await services.db
    .update(applications)
    .set({ webhookUrl: url, updatedAt: services.clock.now() })
    .where(eq(applications.id, applicationId));
  return getWebhookSettings(services, applicationId);
}

/** Reply of a test event, in the shape existing integrations read. */
export interface TestWebhookResult {
  delivered: boolean;
  webhookUrl: string;
  httpStatus: number | null;
  sentAt: Date;
}

/**
 * Sends a `webhook.test` event now, once, signed like any other, and records it in the delivery
 * log. Throws 409 WEBHOOK_URL_NOT_CONFIGURED without a URL and 502 WEBHOOK_TEST_FAILED when no
 * answer arrives (refused address, DNS, connection, timeout). Any HTTP answer is a reply, with
 * `delivered` true only for 2xx.
 */
export async function sendTestWebhook(services: Services, applicationId: string, data?: unknown): Promise<TestWebhookResult> {
  const app = await loadApplication(services.db, applicationId);
  if (!app.webhookUrl) throw new ApiError('WEBHOOK_URL_NOT_CONFIGURED');
  const leaseToken = randomUUID();
  // Inserted already leased, so no worker sends it meanwhile; one try, no retries.
  const { deliveryId } = await insertEventWithDelivery(services.db, services, {
    applicationId,
    // A test announces nothing of either environment: the events API lists it with TEST keys.
    environment: 'TEST',
    event: 'webhook.test',
    data: data ?? { message: 'Ceci est un événement de test envoyé par Kolo.' },
    leaseToken,
    leaseUntil: new Date(services.clock.now().getTime() + services.config.webhookLeaseMs),
  });
  const [delivery] = await services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
  const outcome = await attemptDelivery(services, delivery!, { retry: false });
  if (outcome.httpStatus === undefined) {
    throw new ApiError('WEBHOOK_TEST_FAILED', { message: `Le webhook de test n'a pas pu être livré : ${outcome.error ?? 'pas de réponse'}.` });
  }
  return { delivered: outcome.step === 'DELIVERED', webhookUrl: outcome.url ?? app.webhookUrl, httpStatus: outcome.httpStatus, sentAt: outcome.sentAt };
}
