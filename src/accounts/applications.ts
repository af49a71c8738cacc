/**
 * Applications: the unit that owns API keys, a webhook URL, a currency and default
 * successUrl/cancelUrl for hosted checkout. This module has what the merchant API and the CLI need;
 * the dashboard adds listing, update and deletion.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { accounts, applications } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';

/** An application row. */
export type ApplicationRow = typeof applications.$inferSelect;

/** Fields accepted when creating an application. Currency is ISO 4217 (3 uppercase letters). */
export interface NewApplication {
  merchantId: string;
  name: string;
  currency: string;
  description?: string | null | undefined;
  webhookUrl?: string | null | undefined;
  successUrl?: string | null | undefined;
  cancelUrl?: string | null | undefined;
  themeColor?: string | null | undefined;
  logoUrl?: string | null | undefined;
  websiteUrl?: string | null | undefined;
}

/** Creates an ACTIVE application. Throws VALIDATION_ERROR when the merchant already has one of that name. */
export async function createApplication(services: Pick<Services, 'db' | 'clock' | 'ids'>, input: NewApplication): Promise<ApplicationRow> {
  const now = services.clock.now();
  const [clash] = await services.db
    .select({ id: applications.id })
    .from(applications)
    .where(
      and(
        eq(applications.merchantId, input.merchantId),
        eq(sql`lower(${applications.name})`, input.name.toLowerCase()),
        isNull(applications.deletedAt),
      ),
    );
  if (clash) throw new ApiError('VALIDATION_ERROR', { data: { name: 'une application de ce nom existe déjà' } });
  const [row] = await services.db
    .insert(applications)
    .values({
      id: services.ids.uuid(),
      merchantId: input.merchantId,
      name: input.name,
      currency: input.currency,
      description: input.description ?? null,
      webhookUrl: input.webhookUrl ?? null,
      successUrl: input.successUrl ?? null,
      cancelUrl: input.cancelUrl ?? null,
      themeColor: input.themeColor ?? null,
      logoUrl: input.logoUrl ?? null,
      websiteUrl: input.websiteUrl ?? null,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

/** The application with this id (not deleted), or null. */
export async function findApplication(db: Db, id: string): Promise<ApplicationRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.id, id), isNull(applications.deletedAt)));
  return row ?? null;
}

/**
 * The currency of the merchant's oldest live application (the dashboard's default currency:
 * balances, withdrawal configuration), or null when the merchant has none.
 */
export async function oldestApplicationCurrency(db: Db, merchantId: string): Promise<string | null> {
  const [app] = await db
    .select({ currency: applications.currency })
    .from(applications)
    .where(and(eq(applications.merchantId, merchantId), isNull(applications.deletedAt)))
    .orderBy(asc(applications.createdAt))
    .limit(1);
  return app?.currency ?? null;
}

/**
 * True when `applicationId` may take new payments: the application is ACTIVE and not deleted,
 * and its merchant account is ACTIVE (the same rule as API-key authentication). Payments already
 * under way are not affected: they settle and their webhooks are delivered whatever this says.
 */
export async function isAcceptingPayments(db: Db, applicationId: string): Promise<boolean> {
  const [row] = await db
    .select({ applicationStatus: applications.status, deletedAt: applications.deletedAt, merchantStatus: accounts.status })
    .from(applications)
    .innerJoin(accounts, eq(accounts.id, applications.merchantId))
    .where(eq(applications.id, applicationId))
    .limit(1);
  return row !== undefined && row.applicationStatus === 'ACTIVE' && row.deletedAt === null && row.merchantStatus === 'ACTIVE';
}
