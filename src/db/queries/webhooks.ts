/**
 * The webhook outbox's statements (webhook_events, webhook_deliveries, webhook_attempts) behind
 * typed functions: the events' writes, the worker's claim and its attempts' records. What an event says, when it is written and when a
 * delivery is attempted is decided in src/webhooks/ and src/jobs/.
 */
import { mapRow } from '../batch.ts';
import type { Db } from '../client.ts';
import { webhookDeliveries } from '../schema-webhooks.ts';
import { runStatement, statement } from '../statement.ts';

/** A webhook delivery row. */
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** An event to write, with its delivery when there is a webhook URL: what `insertEventsWithDeliveries` takes per event. */
export interface NewEventWithDelivery {
  eventId: string;
  applicationId: string;
  /** The environment of what it announces: the transaction's (TEST or LIVE). */
  environment: string;
  /** The event's name (webhook-events.ts `WEBHOOK_EVENT_NAMES`). */
  event: string;
  transactionId: string | null;
  /** The event's exact body (`eventBody`). */
  payload: string;
  /** The id of its delivery, if one is written. */
  deliveryId: string;
  /** When the delivery is due (now, or the end of the lease of a caller that sends it itself). */
  nextAttemptAt: Date;
  /** Pre-claims the delivery for its caller (null: the worker's); a pre-claimed delivery is always written. */
  leaseToken: string | null;
}

/**
 * The CTEs that write events and their deliveries (named `outbox_*`), reading them from
 * parameters `$first` … `$first + 9` (`outboxWritesValues`): the events for which `keep` (an SQL
 * condition on the event's columns as `ov.*`) holds are inserted in the batch's order (so `seq`
 * follows it), each with its PENDING delivery when its application has a webhook URL — read here,
 * in the same statement, rather than by the caller beforehand — or when its caller pre-claimed it.
 * Shared by the statement below and the status change's (transactions.ts), so that an event is
 * written by one SQL text. A delivery is read from the batch (`outbox_v`), not from the events'
 * insert: PostgreSQL cannot estimate the size of either, and a join of the two was planned as a
 * nested loop, quadratic in the batch; the delivery's foreign key to its event is checked at the
 * statement's end, when the event is written.
 */
export function outboxWritesSql(first: number, keep: string): string {
  const p = (i: number) => `$${first + i}`;
  return `outbox_v as (
     select * from unnest(${p(0)}::text[], ${p(1)}::uuid[], ${p(2)}::text[], ${p(3)}::uuid[], ${p(4)}::text[], ${p(5)}::uuid[], ${p(6)}::timestamptz[],
                          ${p(7)}::uuid[], ${p(9)}::text[])
       with ordinality as ov(event_id, application_id, event_name, transaction_id, payload, delivery_id, next_attempt_at, lease_token, environment, i)
      where ${keep}
   ), outbox_e as (
     insert into webhook_events (id, application_id, environment, event_name, transaction_id, payload, created_at)
     select event_id, application_id, environment, event_name, transaction_id, payload, ${p(8)}::timestamptz from outbox_v order by i
     returning id
   ), outbox_d as (
     insert into webhook_deliveries (id, event_id, application_id, status, next_attempt_at, lease_token, created_at, updated_at)
     select v.delivery_id, v.event_id, v.application_id, 'PENDING', v.next_attempt_at, v.lease_token, ${p(8)}::timestamptz, ${p(8)}::timestamptz
       from outbox_v v join applications a on a.id = v.application_id
      where v.lease_token is not null or coalesce(a.webhook_url, '') <> ''
   )`;
}

/** The values of `outboxWritesSql`'s ten parameters, in order; `now` is the events' creation time. */
export function outboxWritesValues(events: NewEventWithDelivery[], now: Date): unknown[] {
  return [
    events.map((e) => e.eventId),
    events.map((e) => e.applicationId),
    events.map((e) => e.event),
    events.map((e) => e.transactionId),
    events.map((e) => e.payload),
    events.map((e) => e.deliveryId),
    events.map((e) => e.nextAttemptAt.toISOString()),
    events.map((e) => e.leaseToken),
    now.toISOString(),
    events.map((e) => e.environment),
  ];
}

// Events and their deliveries, any number at a time, in one statement (`outboxWritesSql`).
const insertEventsWithDeliveriesSql = statement('insert_events_with_deliveries_v5', `with ${outboxWritesSql(1, 'true')} select count(*)::int as written from outbox_e`);

/**
 * Writes `events` in `db` (the caller's transaction), in one statement; `now` is their creation
 * time. Each event gets its PENDING delivery when its application has a webhook URL at that
 * moment, or when its caller pre-claimed it (`leaseToken`: it sends it itself at once). The one
 * way events are written: a single event is a batch of one (webhook-events.ts
 * `insertEventWithDelivery`). Throws the driver's error.
 */
export async function insertEventsWithDeliveries(db: Db, events: NewEventWithDelivery[], now: Date): Promise<void> {
  if (events.length === 0) return;
  await runStatement(db, insertEventsWithDeliveriesSql, outboxWritesValues(events, now));
}

/**
 * A position in an application's event feed: the id of the database transaction that wrote the
 * event (`written_by`, xid8, decimal) and the event's `seq`. The feed's order is that of these
 * pairs; (0, 0) is before every event.
 */
export interface FeedPosition {
  writtenBy: string;
  seq: string;
}

/** An event of the feed as stored: its position, id, name, exact body and creation time. */
export interface FeedEvent {
  position: FeedPosition;
  id: string;
  event: string;
  payload: string;
  createdAt: Date;
}

// One page of an application's feed after a position. Only events written by database
// transactions older than every one of this database still running are listed (the horizon): a
// transaction still running may yet commit events that come before later ones in the feed, and
// listing past them would make a reader's cursor skip them for ever. The horizon is the oldest
// transaction id in progress in this statement's snapshot (`pg_snapshot_xip`), leaving out those
// seen running in another database of the cluster, which never write here (a transaction id not
// seen at all counts as ours: it may have just ended, its rows still invisible to the snapshot);
// with none, the snapshot's `xmax`. Events of one transaction come in `seq` order. The feed index
// serves the scope, the order, the position and the horizon.
const feedPageSql = statement(
  'list_feed_events_v1',
  `with snap as materialized (select pg_current_snapshot() as s),
   horizon as (
     select coalesce(
       (select min(x) from snap, pg_snapshot_xip(snap.s) as x
         where xid(x) not in (select a.backend_xid from pg_stat_activity a
                               where a.backend_xid is not null
                                 and a.datid <> (select d.oid from pg_database d where d.datname = current_database()))),
       (select pg_snapshot_xmax(snap.s) from snap)) as h)
   select e.written_by::text as written_by, e.seq::text as seq, e.id, e.event_name, e.payload, e.created_at
     from webhook_events e
    where e.application_id = $1::uuid and e.environment = $2
      and (e.written_by, e.seq) > ($3::xid8, $4::bigint)
      and e.written_by < (select h from horizon)
    order by e.written_by, e.seq
    limit $5`,
);

/**
 * At most `limit` events of `applicationId` in `environment` after `after`, in feed order (see
 * `FeedPosition`), only once every database transaction of this database that could still write
 * an earlier one has ended. One statement; throws the driver's error.
 */
export async function listEventsAfter(
  db: Db,
  input: { applicationId: string; environment: string; after: FeedPosition; limit: number },
): Promise<FeedEvent[]> {
  const { rows } = await runStatement<{ written_by: string; seq: string; id: string; event_name: string; payload: string; created_at: string | Date }>(
    db,
    feedPageSql,
    [input.applicationId, input.environment, input.after.writtenBy, input.after.seq, input.limit],
  );
  return rows.map((r) => ({
    position: { writtenBy: r.written_by, seq: r.seq },
    id: r.id,
    event: r.event_name,
    payload: r.payload,
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at),
  }));
}

// Selected once (a materialized CTE), so the limit holds, and updated by primary key (as the
// poller's claim, transactions.ts `leaseDueTransactions`).
const claimDeliveries = statement(
  'claim_due_deliveries_v3',
  `with due as materialized (
     select id from webhook_deliveries
      where status = 'PENDING' and next_attempt_at <= $1::timestamptz
      order by next_attempt_at
      limit $2
      for update skip locked)
   update webhook_deliveries d
      set next_attempt_at = $3::timestamptz, lease_token = $4::uuid
    where d.id = any(array(select id from due))
   returning d.*`,
);

/**
 * Leases due PENDING deliveries (next attempt at or before `now`, oldest first, at most `limit`,
 * skipping rows locked by another claimer), in one statement: their next attempt moves to
 * `leaseUntil` and they take `leaseToken`. Returns the rows as leased.
 */
export async function leaseDueDeliveries(
  db: Db,
  input: { now: Date; limit: number; leaseUntil: Date; leaseToken: string },
): Promise<WebhookDeliveryRow[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, claimDeliveries, [
    input.now.toISOString(),
    input.limit,
    input.leaseUntil.toISOString(),
    input.leaseToken,
  ]);
  return rows.map((r) => mapRow(webhookDeliveries, r));
}

// Every attempt's outcome on its delivery (only while the lease is still ours) and its attempt
// row, in one statement.
const recordAttemptsSql = statement(
  'record_webhook_attempts_v2',
  `with v as (
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::int[], $7::text[], $8::timestamptz[],
                          $9::text[], $10::timestamptz[], $11::int[], $12::text[])
       as v(id, lease_token, status, round_attempts, next_attempt_at, http_status, last_error, delivered_at, url, started_at, duration_ms, response_body)
   ), u as (
     update webhook_deliveries d
        set status = v.status, attempt_count = d.attempt_count + 1, round_attempts = v.round_attempts,
            next_attempt_at = v.next_attempt_at, lease_token = null, http_status = v.http_status,
            last_error = v.last_error, delivered_at = v.delivered_at, updated_at = $13::timestamptz
       from v
      where d.id = any($1::uuid[]) and d.id = v.id and d.lease_token = v.lease_token
      returning d.id, d.attempt_count
   ), a as (
     insert into webhook_attempts (delivery_id, attempt_number, url, started_at, duration_ms, http_status, response_body, error)
     select v.id, u.attempt_count, v.url, v.started_at, v.duration_ms, v.http_status, v.response_body, v.last_error
       from v join u on u.id = v.id
   )
   select id from u`,
);

/** One attempt to record: its delivery's new state and its `webhook_attempts` row. */
export interface AttemptRecord {
  deliveryId: string;
  /** The lease the attempt was made under: the outcome is written only while the delivery still holds it. */
  leaseToken: string | null;
  /** The delivery's new status (PENDING: retried at `nextAttemptAt`). */
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  /** Attempts of the delivery's current round, this one included. */
  roundAttempts: number;
  /** When to retry (null unless `status` is PENDING). */
  nextAttemptAt: Date | null;
  /** The receiver's HTTP status (null: no answer). */
  httpStatus: number | null;
  error: string | null;
  /** When it was delivered (null unless DELIVERED). */
  deliveredAt: Date | null;
  /** The URL the attempt was sent to (null: none configured). */
  url: string | null;
  startedAt: Date;
  durationMs: number;
  /** The first KiB of the receiver's answer. */
  responseBody: string | null;
}

/**
 * Records `attempts` in one statement whatever their number: each delivery's new state (its
 * attempt count grows by one, its lease is cleared), only while it still holds the attempt's
 * lease token, and, for each delivery so updated, its attempt row. `now` dates the update.
 * Returns the ids of the deliveries recorded (an attempt whose lease was lost is not).
 */
export async function recordAttemptOutcomes(db: Db, input: { attempts: AttemptRecord[]; now: Date }): Promise<Set<string>> {
  const { attempts } = input;
  const { rows } = await runStatement<{ id: string }>(db, recordAttemptsSql, [
    attempts.map((a) => a.deliveryId),
    attempts.map((a) => a.leaseToken),
    attempts.map((a) => a.status),
    attempts.map((a) => a.roundAttempts),
    attempts.map((a) => a.nextAttemptAt?.toISOString() ?? null),
    attempts.map((a) => a.httpStatus),
    attempts.map((a) => a.error),
    attempts.map((a) => a.deliveredAt?.toISOString() ?? null),
    attempts.map((a) => a.url),
    attempts.map((a) => a.startedAt.toISOString()),
    attempts.map((a) => a.durationMs),
    attempts.map((a) => a.responseBody),
    input.now.toISOString(),
  ]);
  return new Set(rows.map((r) => r.id));
}
