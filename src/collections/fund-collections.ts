/**
 * Fund collections (public pages where anyone can pay into an application): the dashboard's
 * create, list, read, update, close, reopen and delete, with the routes, fields and codes
 * SharePay's dashboard uses. Rules:
 * - the currency is the application's (CURRENCY_MISMATCH otherwise) and never changes; the
 *   environment (TEST: sandbox rail) is the caller's (the dashboard resolves a missing one);
 * - a fixed-amount collection needs an amount (AMOUNT_REQUIRED_FOR_FIXED);
 * - `expiresAt` must be in the future when it is set; an ACTIVE collection past it reads EXPIRED;
 * - only an ACTIVE collection can be edited (COLLECTION_NOT_EDITABLE): a CLOSED or EXPIRED one is
 *   reopened first, an EXPIRED one with a new future `expiresAt` (or `removeExpiresAt`);
 * - close: ACTIVE → CLOSED (COLLECTION_ALREADY_CLOSED when CLOSED or EXPIRED);
 *   reopen: CLOSED or EXPIRED → ACTIVE (COLLECTION_NOT_CLOSED when ACTIVE);
 * - delete is final: a DELETED collection answers 404 COLLECTION_NOT_FOUND everywhere, takes no
 *   payment, and is only listed when asked for with `status=DELETED`.
 * Access: a MERCHANT reaches only its applications' collections (anything else is 404, like an
 * unknown id); SUPPORT reads all and writes none (403); ADMIN reads and writes all.
 */
import { and, desc, eq, gt, isNull, lte, or, type SQL } from 'drizzle-orm';
import { applications } from '../db/schema.ts';
import { fundCollections } from '../db/schema-collections.ts';
import type { Db } from '../db/client.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

/** A fund collection row. */
export type FundCollectionRow = typeof fundCollections.$inferSelect;

/** The statuses a collection reads as (EXPIRED is derived from `expiresAt`). */
export const COLLECTION_STATUSES = ['ACTIVE', 'CLOSED', 'EXPIRED', 'DELETED'] as const;
/** A collection's status as read. */
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/** Who asks: the dashboard account and its role. */
export interface CollectionViewer {
  accountId: string;
  role: 'MERCHANT' | 'ADMIN' | 'SUPPORT';
}

/** A collection with its application's name, as the dashboard and the public page read it. */
export interface FundCollectionView {
  id: string;
  slug: string;
  collectUrl: string;
  title: string;
  description: string | null;
  status: CollectionStatus;
  currency: string;
  environment: 'LIVE' | 'TEST';
  amountFixed: boolean;
  amount: number | null;
  coverImageUrl: string | null;
  collectCustomerInfo: boolean;
  thankYouMessage: string | null;
  expiresAt: Date | null;
  applicationId: string;
  applicationName: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The status `row` reads as at `now`: an ACTIVE collection past its `expiresAt` is EXPIRED. */
export function collectionStatus(row: Pick<FundCollectionRow, 'status' | 'expiresAt'>, now: Date): CollectionStatus {
  if (row.status === 'ACTIVE' && row.expiresAt !== null && row.expiresAt <= now) return 'EXPIRED';
  return row.status as CollectionStatus;
}

/** The public page of a slug: `<PUBLIC_BASE_URL>/collect/<slug>`. */
export function collectUrl(publicBaseUrl: string, slug: string): string {
  return `${publicBaseUrl}/collect/${slug}`;
}

/** Builds the view of `row` (of application `applicationName`) at `now`. */
export function collectionView(row: FundCollectionRow, applicationName: string, publicBaseUrl: string, now: Date): FundCollectionView {
  return {
    id: row.id,
    slug: row.slug,
    collectUrl: collectUrl(publicBaseUrl, row.slug),
    title: row.title,
    description: row.description,
    status: collectionStatus(row, now),
    currency: row.currency,
    environment: row.environment as 'LIVE' | 'TEST',
    amountFixed: row.isAmountFixed,
    amount: row.amount,
    coverImageUrl: row.coverImageUrl,
    collectCustomerInfo: row.collectCustomerInfo,
    thankYouMessage: row.thankYouMessage,
    expiresAt: row.expiresAt,
    applicationId: row.applicationId,
    applicationName,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** SQL condition of "reads as `status` at `now`". */
function statusCondition(status: CollectionStatus, now: Date): SQL {
  const c = fundCollections;
  switch (status) {
    case 'ACTIVE':
      return and(eq(c.status, 'ACTIVE'), or(isNull(c.expiresAt), gt(c.expiresAt, now)))!;
    case 'EXPIRED':
      return and(eq(c.status, 'ACTIVE'), lte(c.expiresAt, now))!;
    case 'CLOSED':
      return eq(c.status, 'CLOSED');
    case 'DELETED':
      return eq(c.status, 'DELETED');
  }
}

/**
 * A URL-safe slug of `title` (accents dropped, at most 48 characters) followed by 8 random hex
 * characters, so two collections of the same title never collide and slugs cannot be enumerated.
 */
export function slugFor(title: string, randomHex: string): string {
  const base = title
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return base ? `${base}-${randomHex}` : `collecte-${randomHex}`;
}

/** Fields of a new collection (create body, validated by the route's schema). */
export interface NewCollectionInput {
  title: string;
  description?: string | undefined;
  coverImageUrl?: string | undefined;
  currency?: string | undefined;
  isAmountFixed?: boolean | undefined;
  amount?: number | undefined;
  expiresAt?: Date | undefined;
  collectCustomerInfo?: boolean | undefined;
  thankYouMessage?: string | undefined;
  environment: 'LIVE' | 'TEST';
}

function checkFuture(expiresAt: Date | null | undefined, now: Date): void {
  if (expiresAt && expiresAt <= now) throw validationError({ expiresAt: 'doit être une date future' });
}

/**
 * Creates a collection in `application` (already access-checked for writing). Throws
 * CURRENCY_MISMATCH, AMOUNT_REQUIRED_FOR_FIXED, VALIDATION_ERROR (past `expiresAt`).
 */
export async function createFundCollection(
  services: Pick<Services, 'db' | 'clock' | 'ids' | 'config'>,
  application: { id: string; name: string; currency: string },
  input: NewCollectionInput,
): Promise<FundCollectionView> {
  const now = services.clock.now();
  const currency = input.currency ?? application.currency;
  if (currency !== application.currency) {
    throw new ApiError('CURRENCY_MISMATCH', {
      message: `La devise ${currency} ne correspond pas à celle de l'application (${application.currency}).`,
    });
  }
  const isAmountFixed = input.isAmountFixed ?? false;
  if (isAmountFixed && input.amount === undefined) throw new ApiError('AMOUNT_REQUIRED_FOR_FIXED');
  checkFuture(input.expiresAt, now);
  const [row] = await services.db
    .insert(fundCollections)
    .values({
      id: services.ids.uuid(),
      applicationId: application.id,
      slug: slugFor(input.title, services.ids.hex(4)),
      title: input.title,
      description: input.description ?? null,
      coverImageUrl: input.coverImageUrl ?? null,
      currency,
      environment: input.environment,
      isAmountFixed,
      amount: input.amount ?? null,
      collectCustomerInfo: input.collectCustomerInfo ?? false,
      thankYouMessage: input.thankYouMessage ?? null,
      status: 'ACTIVE',
      expiresAt: input.expiresAt ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return collectionView(row!, application.name, services.config.publicBaseUrl, now);
}

/** Query of the list: optional application and status, 0-based page of `size`. */
export interface CollectionListQuery {
  applicationId?: string | undefined;
  status?: CollectionStatus | undefined;
  /** Only the collections of this environment (all when absent). */
  environment?: 'LIVE' | 'TEST' | undefined;
  page: number;
  size: number;
}

/**
 * Page `page` (`size` rows) of the collections `viewer` may see, newest first: a MERCHANT's own
 * (its applications not deleted), every merchant's for staff. Without `status`, DELETED ones
 * are left out. The caller has checked `applicationId` (404 APP_NOT_FOUND for another merchant's).
 */
export async function listFundCollections(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  viewer: CollectionViewer,
  query: CollectionListQuery,
): Promise<FundCollectionView[]> {
  const now = services.clock.now();
  const conditions: SQL[] = [isNull(applications.deletedAt)];
  if (viewer.role === 'MERCHANT') conditions.push(eq(applications.merchantId, viewer.accountId));
  if (query.applicationId) conditions.push(eq(fundCollections.applicationId, query.applicationId));
  if (query.environment) conditions.push(eq(fundCollections.environment, query.environment));
  conditions.push(query.status ? statusCondition(query.status, now) : or(eq(fundCollections.status, 'ACTIVE'), eq(fundCollections.status, 'CLOSED'))!);
  const rows = await services.db
    .select({ row: fundCollections, applicationName: applications.name })
    .from(fundCollections)
    .innerJoin(applications, eq(applications.id, fundCollections.applicationId))
    .where(and(...conditions))
    .orderBy(desc(fundCollections.createdAt), desc(fundCollections.id))
    .limit(query.size)
    .offset(query.page * query.size);
  return rows.map((r) => collectionView(r.row, r.applicationName, services.config.publicBaseUrl, now));
}

/**
 * The collection `id` as `viewer` may reach it, with its application's name. 404
 * COLLECTION_NOT_FOUND when unknown, deleted, of a deleted application, or (MERCHANT) of another
 * merchant; 403 ACCESS_DENIED for SUPPORT when `write`.
 */
export async function findFundCollection(
  db: Db,
  viewer: CollectionViewer,
  id: string,
  options: { write: boolean },
): Promise<{ row: FundCollectionRow; applicationName: string }> {
  const [found] = await db
    .select({ row: fundCollections, applicationName: applications.name, merchantId: applications.merchantId })
    .from(fundCollections)
    .innerJoin(applications, eq(applications.id, fundCollections.applicationId))
    .where(and(eq(fundCollections.id, id), isNull(applications.deletedAt)))
    .limit(1);
  if (!found || found.row.status === 'DELETED') throw new ApiError('COLLECTION_NOT_FOUND');
  if (viewer.role === 'MERCHANT' && found.merchantId !== viewer.accountId) throw new ApiError('COLLECTION_NOT_FOUND');
  if (viewer.role === 'SUPPORT' && options.write) throw new ApiError('ACCESS_DENIED');
  return { row: found.row, applicationName: found.applicationName };
}

/** Changes of a PATCH (absent: unchanged; null on an optional text: cleared). */
export interface CollectionUpdate {
  title?: string | undefined;
  description?: string | null | undefined;
  coverImageUrl?: string | null | undefined;
  isAmountFixed?: boolean | undefined;
  amount?: number | null | undefined;
  expiresAt?: Date | undefined;
  removeExpiresAt?: boolean | undefined;
  collectCustomerInfo?: boolean | undefined;
  thankYouMessage?: string | null | undefined;
}

/**
 * Updates an ACTIVE collection. Throws COLLECTION_NOT_EDITABLE (CLOSED or EXPIRED),
 * AMOUNT_REQUIRED_FOR_FIXED (fixed without an amount), VALIDATION_ERROR (past `expiresAt`, or
 * `expiresAt` together with `removeExpiresAt`).
 */
export async function updateFundCollection(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  found: { row: FundCollectionRow; applicationName: string },
  changes: CollectionUpdate,
): Promise<FundCollectionView> {
  const now = services.clock.now();
  const { row } = found;
  if (collectionStatus(row, now) !== 'ACTIVE') throw new ApiError('COLLECTION_NOT_EDITABLE');
  if (changes.expiresAt && changes.removeExpiresAt) {
    throw validationError({ removeExpiresAt: 'ne peut pas être demandé avec une nouvelle date expiresAt' });
  }
  checkFuture(changes.expiresAt, now);
  const isAmountFixed = changes.isAmountFixed ?? row.isAmountFixed;
  const amount = changes.amount === undefined ? row.amount : changes.amount;
  if (isAmountFixed && amount === null) throw new ApiError('AMOUNT_REQUIRED_FOR_FIXED');
  const set: Partial<typeof fundCollections.$inferInsert> = { isAmountFixed, amount, updatedAt: now };
  if (changes.title !== undefined) set.title = changes.title;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.coverImageUrl !== undefined) set.coverImageUrl = changes.coverImageUrl;
  if (changes.collectCustomerInfo !== undefined) set.collectCustomerInfo = changes.collectCustomerInfo;
  if (changes.thankYouMessage !== undefined) set.thankYouMessage = changes.thankYouMessage;
  if (changes.expiresAt !== undefined) set.expiresAt = changes.expiresAt;
  if (changes.removeExpiresAt) set.expiresAt = null;
  return write(services, found, set, eq(fundCollections.status, 'ACTIVE'));
}

/** ACTIVE → CLOSED. Throws COLLECTION_ALREADY_CLOSED when it is CLOSED or EXPIRED. */
export async function closeFundCollection(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  found: { row: FundCollectionRow; applicationName: string },
): Promise<FundCollectionView> {
  const now = services.clock.now();
  const status = collectionStatus(found.row, now);
  if (status === 'EXPIRED') {
    throw new ApiError('COLLECTION_ALREADY_CLOSED', { message: "Cette collecte a expiré : elle n'accepte déjà plus de paiements." });
  }
  if (status !== 'ACTIVE') throw new ApiError('COLLECTION_ALREADY_CLOSED');
  return write(services, found, { status: 'CLOSED', updatedAt: now }, eq(fundCollections.status, 'ACTIVE'));
}

/**
 * CLOSED or EXPIRED → ACTIVE, optionally with a new `expiresAt` or without any. Throws
 * COLLECTION_NOT_CLOSED when ACTIVE, VALIDATION_ERROR when the resulting `expiresAt` is not in
 * the future (an expired collection needs a new date or `removeExpiresAt`).
 */
export async function reopenFundCollection(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  found: { row: FundCollectionRow; applicationName: string },
  options: { expiresAt?: Date | undefined; removeExpiresAt?: boolean | undefined },
): Promise<FundCollectionView> {
  const now = services.clock.now();
  if (collectionStatus(found.row, now) === 'ACTIVE') throw new ApiError('COLLECTION_NOT_CLOSED');
  if (options.expiresAt && options.removeExpiresAt) {
    throw validationError({ removeExpiresAt: 'ne peut pas être demandé avec une nouvelle date expiresAt' });
  }
  const expiresAt = options.removeExpiresAt ? null : (options.expiresAt ?? found.row.expiresAt);
  if (expiresAt && expiresAt <= now) {
    throw validationError({ expiresAt: 'doit être une date future : cette collecte a expiré, donnez-lui une nouvelle date de fin ou retirez-la' });
  }
  return write(services, found, { status: 'ACTIVE', expiresAt, updatedAt: now }, eq(fundCollections.status, found.row.status));
}

/** Deletes the collection for good (status DELETED): 404 from then on, no more payments. */
export async function deleteFundCollection(services: Pick<Services, 'db' | 'clock'>, found: { row: FundCollectionRow }): Promise<void> {
  const now = services.clock.now();
  await services.db
    .update(fundCollections)
    .set({ status: 'DELETED', updatedAt: now })
    .where(eq(fundCollections.id, found.row.id));
}

/**
 * Compare-and-set write: applies `set` only while the stored status is still the one the checks
 * were made on; a concurrent change answers COLLECTION_NOT_EDITABLE instead of being overwritten.
 */
async function write(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  found: { row: FundCollectionRow; applicationName: string },
  set: Partial<typeof fundCollections.$inferInsert>,
  expected: SQL,
): Promise<FundCollectionView> {
  const [row] = await services.db
    .update(fundCollections)
    .set(set)
    .where(and(eq(fundCollections.id, found.row.id), expected))
    .returning();
  if (!row) throw new ApiError('COLLECTION_NOT_EDITABLE');
  return collectionView(row, found.applicationName, services.config.publicBaseUrl, services.clock.now());
}

/** The collection of a public slug with its application's name, whatever its status, or null. */
export async function findCollectionBySlug(db: Db, slug: string): Promise<{ row: FundCollectionRow; application: typeof applications.$inferSelect } | null> {
  if (!/^[a-z0-9-]{1,80}$/.test(slug)) return null;
  const [found] = await db
    .select({ row: fundCollections, application: applications })
    .from(fundCollections)
    .innerJoin(applications, eq(applications.id, fundCollections.applicationId))
    .where(eq(fundCollections.slug, slug))
    .limit(1);
  return found ?? null;
}
