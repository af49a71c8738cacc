/**
 * The events API: the events of the key's application and environment — the same events, with
 * the same bodies, as the webhooks — in feed order, paged by an opaque cursor. Events are written
 * for every announced status change, webhook URL or not (webhooks/webhook-events.ts), and kept as
 * long as webhook deliveries are (`RETENTION_WEBHOOK_DAYS`, jobs/retention.ts).
 */
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import { recordFeedRead } from '../db/queries/reconciliation.ts';
import { listEventsAfter, type FeedPosition } from '../db/queries/webhooks.ts';
import type { Services } from '../services.ts';
import type { WebhookEventName } from '../webhooks/webhook-events.ts';

/** Page size bounds of the feed. */
export const EVENT_PAGE_MAX = 100;
export const EVENT_PAGE_DEFAULT = 50;

/** xid8 and bigint bounds: a cursor beyond them was never handed out. */
const XID8_MAX = 2n ** 64n - 1n;
const BIGINT_MAX = 2n ** 63n - 1n;
const POSITION_TEXT = /^(\d{1,20}):(\d{1,19})$/;

/** The opaque cursor of a feed position: base64url of `<writtenBy>:<seq>`. */
export function encodeEventCursor(position: FeedPosition): string {
  return Buffer.from(`${position.writtenBy}:${position.seq}`).toString('base64url');
}

/** The position of a cursor made by `encodeEventCursor`, or null when `cursor` is not one. */
export function decodeEventCursor(cursor: string): FeedPosition | null {
  const match = POSITION_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match || BigInt(match[1]!) > XID8_MAX || BigInt(match[2]!) > BIGINT_MAX) return null;
  const position = { writtenBy: match[1]!, seq: match[2]! };
  // One spelling per cursor: base64url decoding skips characters outside its alphabet.
  return encodeEventCursor(position) === cursor ? position : null;
}

/** Before every event. */
const FEED_START: FeedPosition = { writtenBy: '0', seq: '0' };

/** One event of the API: its cursor, id, name, creation time and the webhook body as delivered. */
export interface ListedEvent {
  cursor: string;
  id: string;
  event: WebhookEventName;
  createdAt: Date;
  /** The webhook's JSON body (`eventBody`), parsed. */
  payload: Record<string, unknown>;
}

/**
 * The events of `auth`'s application and environment after `query.after` (an opaque cursor,
 * decoded; absent: from the first), at most `query.limit`, in feed order; `nextCursor` is the last
 * one's cursor, else `after` as given (null when neither); `hasMore` whether more follow now.
 * One statement, and one more recording how far the feed was read (reconciliation counts an event
 * read here as one the merchant was told of).
 */
export async function listEvents(
  services: Pick<Services, 'db' | 'clock'>,
  auth: ApiKeyAuth,
  query: { after?: { cursor: string; position: FeedPosition } | undefined; limit: number },
): Promise<{ events: ListedEvent[]; nextCursor: string | null; hasMore: boolean }> {
  // One event more than the page tells whether more follow.
  const rows = await listEventsAfter(services.db, {
    applicationId: auth.applicationId,
    environment: auth.environment,
    after: query.after?.position ?? FEED_START,
    limit: query.limit + 1,
  });
  const events = rows.slice(0, query.limit).map((r) => ({
    cursor: encodeEventCursor(r.position),
    id: r.id,
    // Written only by webhook-events.ts, from its closed list of names.
    event: r.event as WebhookEventName,
    createdAt: r.createdAt,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  }));
  const last = rows.slice(0, query.limit).at(-1);
  if (last) await recordFeedRead(services.db, { applicationId: auth.applicationId, environment: auth.environment, position: last.position, readAt: services.clock.now() });
  return { events, nextCursor: events.at(-1)?.cursor ?? query.after?.cursor ?? null, hasMore: rows.length > query.limit };
}
