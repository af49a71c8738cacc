/**
 * The webhook outbox's writes (webhook_events, webhook_deliveries) behind typed functions; what an
 * event says and when it is written is decided in src/webhooks/.
 */
import type { Db } from '../client.ts';
import { runStatement, statement } from '../statement.ts';

/** An event to write with its one delivery: what `insertEventsWithDeliveries` takes per event. */
export interface NewEventWithDelivery {
  eventId: string;
  applicationId: string;
  /** The event's name (webhook-events.ts `WEBHOOK_EVENT_NAMES`). */
  event: string;
  transactionId: string | null;
  /** The event's exact body (`eventBody`). */
  payload: string;
  deliveryId: string;
  /** When the delivery is due (now, or the end of the lease of a caller that sends it itself). */
  nextAttemptAt: Date;
  /** Pre-claims the delivery for its caller (null: the worker's). */
  leaseToken: string | null;
}

// Events and their PENDING deliveries, any number at a time, in one statement.
const insertEventsWithDeliveriesSql = statement(
  'insert_events_with_deliveries_v2',
  `with v as (
     select * from unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::uuid[], $7::timestamptz[], $8::uuid[])
       as v(event_id, application_id, event_name, transaction_id, payload, delivery_id, next_attempt_at, lease_token)
   ), e as (
     insert into webhook_events (id, application_id, event_name, transaction_id, payload, created_at)
     select event_id, application_id, event_name, transaction_id, payload, $9::timestamptz from v
     returning id)
   insert into webhook_deliveries (id, event_id, application_id, status, next_attempt_at, lease_token, created_at, updated_at)
   select v.delivery_id, v.event_id, v.application_id, 'PENDING', v.next_attempt_at, v.lease_token, $9::timestamptz, $9::timestamptz
     from v join e on e.id = v.event_id`,
);

/**
 * Writes `events`, each with its PENDING delivery, in `db` (the caller's transaction), in one
 * statement; `now` is their creation time. The one way events are written: a single event is a
 * batch of one (webhook-events.ts `insertEventWithDelivery`). Throws the driver's error.
 */
export async function insertEventsWithDeliveries(db: Db, events: NewEventWithDelivery[], now: Date): Promise<void> {
  if (events.length === 0) return;
  await runStatement(db, insertEventsWithDeliveriesSql, [
    events.map((e) => e.eventId),
    events.map((e) => e.applicationId),
    events.map((e) => e.event),
    events.map((e) => e.transactionId),
    events.map((e) => e.payload),
    events.map((e) => e.deliveryId),
    events.map((e) => e.nextAttemptAt.toISOString()),
    events.map((e) => e.leaseToken),
    now.toISOString(),
  ]);
}

