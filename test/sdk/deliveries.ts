/**
 * Real webhook deliveries for the SDK and snippet tests: a Kolo harness sends them, signed, to a
 * local receiver, with the harness clock set to the real time (verifiers compare the delivery's
 * timestamp with the real clock).
 */
import { eq } from 'drizzle-orm';
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { webhookDeliveries } from '../../src/db/schema-webhooks.ts';
import { createWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import type { Harness, Tenant } from '../harness.ts';
import { chargeTo, type Received, type Receiver } from '../helpers/webhooks.ts';

/** A tenant whose webhooks go to `receiver`, signed with `secret`. */
export interface SignedTenant extends Tenant {
  secret: string;
}

/** Creates a tenant with `receiver` as its webhook URL and a webhook secret. */
export async function signedTenant(h: Harness, receiver: Receiver): Promise<SignedTenant> {
  const tenant = await h.createTenant({ application: { webhookUrl: receiver.url } });
  const { plainTextWebhookSecret: secret } = await createWebhookSecret(h.services, tenant.applicationId);
  return { ...tenant, secret };
}

/**
 * Runs a charge of `tenant` to SUCCESS and has Kolo's webhook worker deliver its
 * `payment.success`, timestamped `at` (default: now); returns the delivery as received and the
 * charge's reference.
 */
export async function paymentSuccessDelivery(h: Harness, tenant: Tenant, receiver: Receiver, at: Date = new Date()): Promise<{ delivery: Received; reference: string }> {
  // Deliveries left over by an earlier call must not be sent now.
  await h.services.db.update(webhookDeliveries).set({ status: 'FAILED', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'PENDING'));
  h.clock.set(new Date(at.getTime() - h.config.sandboxDelayMs - 1000));
  const before = receiver.received.length;
  const reference = await chargeTo(h, tenant, 'SUCCESS');
  await deliverOnce(h.services);
  const delivered = receiver.received.slice(before);
  const delivery = delivered.find((r) => JSON.parse(r.body).data?.reference === reference);
  if (!delivery) throw new Error(`no delivery of ${reference}: got ${delivered.length}`);
  return { delivery, reference };
}
