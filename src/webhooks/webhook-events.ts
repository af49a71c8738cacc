/**
 * Webhook events and the outbox. The status listener gives every status change
 * (payments/apply-transition.ts) the event it announces (its exact body, built now so that
 * `data.status` is the status announced), which the events API lists, and, when the application
 * has a webhook URL, one PENDING delivery due at once. The status change writes them in its own
 * statement: no status change without its event and delivery.
 */
import type { Environment } from '../connectors/registry.ts';
import { insertEventsWithDeliveries } from '../db/queries/webhooks.ts';
import type { Db } from '../db/client.ts';
import { type StatusChangeListener, statusView, type TransactionRow } from '../payments/core.ts';
import type { Services } from '../services.ts';

/** Event names, as existing webhook receivers of SharePay's interface expect them. */
export const WEBHOOK_EVENT_NAMES = [
  'payment.success',
  'payment.failed',
  'payment.cancelled',
  'payout.success',
  'payout.failed',
  'payment.refunded',
  'refund.success',
  'refund.failed',
  'payment.late_success',
  'payout.late_success',
  'payout.reservation_released',
  'batch.completed',
  'batch.partly_failed',
  'webhook.test',
] as const;
/** One of the event names. */
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/**
 * The event a status announces, or null (no event for PENDING or a pay-out CANCELLED).
 * A refund (a pay-out with `refundOf`) announces `refund.success` / `refund.failed`; a pay-in
 * reaching REFUNDED announces `payment.refunded`.
 */
export function eventNameFor(row: Pick<TransactionRow, 'direction' | 'status'> & Partial<Pick<TransactionRow, 'refundOf'>>): WebhookEventName | null {
  if (row.direction === 'PAY_IN') {
    if (row.status === 'SUCCESS') return 'payment.success';
    if (row.status === 'FAILED') return 'payment.failed';
    if (row.status === 'CANCELLED') return 'payment.cancelled';
    if (row.status === 'REFUNDED') return 'payment.refunded';
    return null;
  }
  const isRefund = Boolean(row.refundOf);
  if (row.status === 'SUCCESS') return isRefund ? 'refund.success' : 'payout.success';
  if (row.status === 'FAILED') return isRefund ? 'refund.failed' : 'payout.failed';
  return null;
}

/**
 * The JSON body of an event, keys in the order existing receivers expect: `event`, `timestamp`
 * (Unix seconds of the event), `applicationId`, `data`, then our unique `id` (also sent as
 * `webhook-id`, the same on every retry so receivers can deduplicate).
 */
export function eventBody(input: { id: string; event: WebhookEventName; createdAt: Date; applicationId: string; data: unknown }): string {
  return JSON.stringify({
    event: input.event,
    timestamp: Math.floor(input.createdAt.getTime() / 1000),
    applicationId: input.applicationId,
    data: input.data,
    id: input.id,
  });
}

/** `data` of a transaction event: the status read's view (pay-in or pay-out) plus `merchantReference`. */
export function transactionEventData(row: TransactionRow, publicBaseUrl: string) {
  return Object.assign(statusView(row, publicBaseUrl), { merchantReference: row.merchantReference });
}

/** A new event id: `evt_` + 32 hex characters. */
export function newEventId(services: Pick<Services, 'ids'>): string {
  return `evt_${services.ids.hex(16)}`;
}

/**
 * Writes an event in `db` (the caller's transaction), with its delivery when the application has
 * a webhook URL: `insertEventsWithDeliveries` of one. The delivery is due now, or, with
 * `leaseUntil` and `leaseToken`, pre-claimed by its caller until then (and then written whatever
 * the URL: its caller sends it itself). `environment` is that of what the event announces.
 */
export async function insertEventWithDelivery(
  db: Db,
  services: Pick<Services, 'ids' | 'clock'>,
  input: {
    applicationId: string;
    environment: Environment;
    event: WebhookEventName;
    data: unknown;
    transactionId?: string | null;
    leaseUntil?: Date;
    leaseToken?: string;
  },
): Promise<{ eventId: string; deliveryId: string; payload: string }> {
  const now = services.clock.now();
  const eventId = newEventId(services);
  const payload = eventBody({ id: eventId, event: input.event, createdAt: now, applicationId: input.applicationId, data: input.data });
  const deliveryId = services.ids.uuid();
  await insertEventsWithDeliveries(
    db,
    [
      {
        eventId,
        applicationId: input.applicationId,
        environment: input.environment,
        event: input.event,
        transactionId: input.transactionId ?? null,
        payload,
        deliveryId,
        nextAttemptAt: input.leaseUntil ?? now,
        leaseToken: input.leaseToken ?? null,
      },
    ],
    now,
  );
  return { eventId, deliveryId, payload };
}

/**
 * The outbox listener registered by `createServices` (always on): the events of every announced
 * change (`StatusChangeListener.events`), which the status change writes in its own statement,
 * each with its delivery when its application has a webhook URL.
 */
export function webhookOutboxListener(services: Pick<Services, 'config' | 'ids' | 'clock'>): StatusChangeListener {
  return {
    events: (changes) => {
      const now = services.clock.now();
      return changes.flatMap(({ row }) => {
        const event = eventNameFor(row);
        if (!event) return [];
        const eventId = newEventId(services);
        const data = transactionEventData(row, services.config.publicBaseUrl);
        return [
          {
            eventId,
            applicationId: row.applicationId,
            environment: row.environment,
            event,
            transactionId: row.id,
            payload: eventBody({ id: eventId, event, createdAt: now, applicationId: row.applicationId, data }),
            deliveryId: services.ids.uuid(),
            nextAttemptAt: now,
            leaseToken: null,
          },
        ];
      });
    },
  };
}
