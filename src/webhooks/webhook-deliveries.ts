/**
 * The merchant's delivery log: list deliveries of an application (newest first, optional status
 * and transaction-reference filters, 0-based pages) and replay one. Shared by the dashboard
 * routes; access control is the caller's.
 */
import { and, count, desc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import { webhookDeliveries, webhookEvents } from '../db/schema-webhooks.ts';
import { transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

/** Delivery statuses. */
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
/** One of the delivery statuses. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A delivery as listed, in the shape SharePay's dashboard reads. */
export interface DeliveryView {
  id: string;
  eventId: string;
  eventName: string;
  status: DeliveryStatus;
  httpStatus: number | null;
  attemptCount: number;
  nextRetryAt: Date | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** A page object, in the shape SharePay's dashboard reads (`number` is 0-based). */
export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  size: number;
  number: number;
  /**
   * The same index as `number`, under the query parameter's name: the dashboard's tables read
   * `number` (Spring's name), its pagers `page`.
   */
  page: number;
  first: boolean;
  last: boolean;
}

const columns = {
  id: webhookDeliveries.id,
  eventId: webhookDeliveries.eventId,
  eventName: webhookEvents.eventName,
  status: webhookDeliveries.status,
  httpStatus: webhookDeliveries.httpStatus,
  attemptCount: webhookDeliveries.attemptCount,
  nextRetryAt: webhookDeliveries.nextAttemptAt,
  lastError: webhookDeliveries.lastError,
  deliveredAt: webhookDeliveries.deliveredAt,
  createdAt: webhookDeliveries.createdAt,
};

/**
 * Lists deliveries of `applicationId`, newest first. `page` 0-based, `size` 1–100. `reference`:
 * only the deliveries of the events of that transaction of the application (an empty page when
 * the application has no such transaction).
 */
export async function listDeliveries(
  services: Pick<Services, 'db'>,
  applicationId: string,
  query: { status?: DeliveryStatus | undefined; reference?: string | undefined; page: number; size: number },
): Promise<Page<DeliveryView>> {
  const filters: SQL[] = [eq(webhookDeliveries.applicationId, applicationId)];
  if (query.status) filters.push(eq(webhookDeliveries.status, query.status));
  if (query.reference !== undefined) {
    // The application's own transaction only: another application's reference matches nothing.
    const ofTransaction = services.db
      .select({ id: transactions.id })
      .from(transactions)
      .where(and(eq(transactions.reference, query.reference), eq(transactions.applicationId, applicationId)));
    filters.push(inArray(webhookEvents.transactionId, ofTransaction));
  }
  const where = and(...filters);
  const counted = services.db.select({ n: count() }).from(webhookDeliveries);
  // The count joins the events only when it filters on them.
  const [total] = await (query.reference === undefined
    ? counted.where(where)
    : counted.innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId)).where(where));
  const rows = await services.db
    .select(columns)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(where)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.size)
    .offset(query.page * query.size);
  return pageOf(
    rows.map((r) => ({ ...r, status: r.status as DeliveryStatus })),
    Number(total?.n ?? 0),
    query,
  );
}

/** One page of `content` out of `totalElements`. */
function pageOf<T>(content: T[], totalElements: number, query: { page: number; size: number }): Page<T> {
  const totalPages = Math.ceil(totalElements / query.size);
  return {
    content,
    totalElements,
    totalPages,
    size: query.size,
    number: query.page,
    page: query.page,
    first: query.page === 0,
    last: query.page >= totalPages - 1,
  };
}

/**
 * Replays a delivery: it becomes PENDING and due now, with a fresh retry schedule (the attempt
 * history is kept). The same event id is sent again, so receivers can recognise it. A delivery
 * being attempted right now (leased) is returned unchanged. Throws 404 WEBHOOK_DELIVERY_NOT_FOUND.
 */
export async function replayDelivery(services: Pick<Services, 'db' | 'clock'>, applicationId: string, deliveryId: string): Promise<DeliveryView> {
  if (!/^[0-9a-f-]{36}$/i.test(deliveryId)) throw new ApiError('WEBHOOK_DELIVERY_NOT_FOUND');
  const now = services.clock.now();
  const scope = and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.applicationId, applicationId));
  await services.db
    .update(webhookDeliveries)
    .set({ status: 'PENDING', roundAttempts: 0, nextAttemptAt: now, deliveredAt: null, updatedAt: now })
    .where(and(scope, isNull(webhookDeliveries.leaseToken)));
  const [row] = await services.db
    .select(columns)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(scope);
  if (!row) throw new ApiError('WEBHOOK_DELIVERY_NOT_FOUND');
  return { ...row, status: row.status as DeliveryStatus };
}
