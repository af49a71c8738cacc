/**
 * Dashboard use cases on applications: list, view, create (with a first webhook secret, shown
 * once), update (every field but currency) and delete. Access control (own merchant, SUPPORT
 * read-only) is decided by the caller through `findAccessibleApplication`; these functions trust
 * the application they are given.
 */
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { createApplication, type ApplicationRow } from '../accounts/applications.ts';
import { revokeActiveKey } from '../accounts/api-keys.ts';
import { type Db, transaction } from '../db/client.ts';
import { apiKeys, applications } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { checkWebhookUrl } from '../webhooks/webhook-url.ts';
import { createWebhookSecret } from '../webhooks/webhook-secrets.ts';
import { changedFields, recordAudit, type AuditActor } from './audit.ts';

/** Most applications a list returns (one merchant has a handful; staff see the newest first). */
const LIST_MAX = 500;

/** An application as the dashboard shows it. */
export interface ApplicationView {
  id: string;
  merchantId: string;
  name: string;
  description: string | null;
  status: string;
  currency: string;
  themeColor: string | null;
  logoUrl: string | null;
  websiteUrl: string | null;
  webhookUrl: string | null;
  plainTextWebhookSecret?: string;
  successUrl: string | null;
  cancelUrl: string | null;
  activeKeyPrefix: string | null;
  activeKeyEnvironment: 'LIVE' | 'TEST' | null;
  createdAt: Date;
  updatedAt: Date;
}

async function activeKeys(db: Db, appIds: string[]) {
  if (appIds.length === 0) return new Map<string, { keyPrefix: string; environment: string }>();
  const rows = await db
    .select({ applicationId: apiKeys.applicationId, keyPrefix: apiKeys.keyPrefix, environment: apiKeys.environment })
    .from(apiKeys)
    .where(and(inArray(apiKeys.applicationId, appIds), eq(apiKeys.active, true)));
  return new Map(rows.map((r) => [r.applicationId, r]));
}

function view(row: ApplicationRow, key: { keyPrefix: string; environment: string } | undefined): ApplicationView {
  return {
    id: row.id,
    merchantId: row.merchantId,
    name: row.name,
    description: row.description,
    status: row.status,
    currency: row.currency,
    themeColor: row.themeColor,
    logoUrl: row.logoUrl,
    websiteUrl: row.websiteUrl,
    webhookUrl: row.webhookUrl,
    successUrl: row.successUrl,
    cancelUrl: row.cancelUrl,
    activeKeyPrefix: key?.keyPrefix ?? null,
    activeKeyEnvironment: (key?.environment as 'LIVE' | 'TEST' | undefined) ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The dashboard view of one application. */
export async function applicationView(db: Db, row: ApplicationRow): Promise<ApplicationView> {
  return view(row, (await activeKeys(db, [row.id])).get(row.id));
}

/** Applications of `merchantId` (null: every merchant's, for staff), oldest first. */
export async function listApplications(db: Db, merchantId: string | null): Promise<ApplicationView[]> {
  const rows = await db
    .select()
    .from(applications)
    .where(merchantId ? and(eq(applications.merchantId, merchantId), isNull(applications.deletedAt)) : isNull(applications.deletedAt))
    .orderBy(asc(applications.createdAt))
    .limit(LIST_MAX);
  const keys = await activeKeys(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => view(r, keys.get(r.id)));
}

async function assertNameFree(db: Db, merchantId: string, name: string, exceptId?: string): Promise<void> {
  const [clash] = await db
    .select({ id: applications.id })
    .from(applications)
    .where(
      and(
        eq(applications.merchantId, merchantId),
        eq(sql`lower(${applications.name})`, name.toLowerCase()),
        isNull(applications.deletedAt),
        exceptId ? ne(applications.id, exceptId) : undefined,
      ),
    );
  if (clash) throw new ApiError('APP_NAME_ALREADY_EXISTS');
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Fields of a new application (validated by the route schema). */
export interface ApplicationInput {
  name: string;
  currency: string;
  description?: string | undefined;
  logoUrl?: string | undefined;
  websiteUrl?: string | undefined;
  themeColor?: string | undefined;
  webhookUrl?: string | undefined;
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
}

/**
 * Creates an application for `merchantId` and its first webhook secret, returned once as
 * `plainTextWebhookSecret`. 409 APP_NAME_ALREADY_EXISTS; VALIDATION_ERROR on a webhook URL that
 * fails the webhook checks (non-public address unless WEBHOOK_ALLOW_PRIVATE_HOSTS).
 */
export async function createDashboardApplication(
  services: Services,
  merchantId: string,
  input: ApplicationInput,
  actor: AuditActor,
): Promise<ApplicationView> {
  await assertNameFree(services.db, merchantId, input.name);
  const webhookUrl =
    input.webhookUrl === undefined ? undefined : await checkWebhookUrl(input.webhookUrl, { allowPrivateHosts: services.config.webhookAllowPrivateHosts });
  let row: ApplicationRow;
  try {
    row = await createApplication(services, { ...input, webhookUrl, merchantId });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('APP_NAME_ALREADY_EXISTS');
    throw error;
  }
  const secret = await createWebhookSecret(services, row.id);
  await recordAudit(services, actor, {
    action: 'APPLICATION_CREATED',
    targetType: 'APPLICATION',
    targetId: row.id,
    after: { ...input, webhookUrl, merchantId },
  });
  return { ...view(row, undefined), plainTextWebhookSecret: secret.plainTextWebhookSecret };
}

/** Changes to an application; an explicit null clears an optional field. Currency cannot change. */
export interface ApplicationChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  logoUrl?: string | null | undefined;
  websiteUrl?: string | null | undefined;
  themeColor?: string | null | undefined;
  webhookUrl?: string | null | undefined;
  successUrl?: string | null | undefined;
  cancelUrl?: string | null | undefined;
  status?: 'ACTIVE' | 'INACTIVE' | undefined;
}

/** Updates `app`. 409 APP_NAME_ALREADY_EXISTS; a SUSPENDED application cannot be re-activated here (403). */
export async function updateDashboardApplication(
  services: Services,
  app: ApplicationRow,
  changes: ApplicationChanges,
  actor: AuditActor,
): Promise<ApplicationView> {
  if (changes.name !== undefined) await assertNameFree(services.db, app.merchantId, changes.name, app.id);
  if (changes.status !== undefined && app.status === 'SUSPENDED') throw new ApiError('APP_ACCESS_DENIED');
  const set: Partial<typeof applications.$inferInsert> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined) (set as Record<string, unknown>)[key] = value;
  }
  if (typeof set.webhookUrl === 'string') {
    set.webhookUrl = await checkWebhookUrl(set.webhookUrl, { allowPrivateHosts: services.config.webhookAllowPrivateHosts });
  }
  let updated: ApplicationRow;
  try {
    [updated] = (await services.db
      .update(applications)
      .set({ ...set, updatedAt: services.clock.now() })
      .where(eq(applications.id, app.id))
      .returning()) as [ApplicationRow];
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('APP_NAME_ALREADY_EXISTS');
    throw error;
  }
  await recordAudit(services, actor, {
    action: 'APPLICATION_UPDATED',
    targetType: 'APPLICATION',
    targetId: app.id,
    ...changedFields(app as unknown as Record<string, unknown>, updated as unknown as Record<string, unknown>),
  });
  return applicationView(services.db, updated);
}

/**
 * Deletes `app` (soft: the row stays for its transactions' history) and revokes its active key
 * in the same transaction, so the key is refused from the next request.
 */
export async function deleteDashboardApplication(services: Services, app: ApplicationRow, actor: AuditActor): Promise<void> {
  const now = services.clock.now();
  await transaction(services.db, async (tx) => {
    await revokeActiveKey(tx, app.id, now);
    await tx.update(applications).set({ deletedAt: now, status: 'INACTIVE', updatedAt: now }).where(eq(applications.id, app.id));
    await recordAudit({ ...services, db: tx }, actor, {
      action: 'APPLICATION_DELETED',
      targetType: 'APPLICATION',
      targetId: app.id,
      before: { name: app.name, status: app.status },
    });
  });
}
