/**
 * Merchant accounts, as far as the merchant API and the CLI need them. The dashboard
 * (sign-up, login, profile) builds on this table.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import type { Services } from '../services.ts';

/** An account as shown to operators of the service (never the password hash). */
export interface MerchantView {
  id: string;
  fullName: string;
  email: string;
  role: string;
  status: string;
  createdAt: Date;
}

/**
 * Creates an ACTIVE merchant account with a verified email and no password (it logs in to the
 * dashboard after a password reset). Throws VALIDATION_ERROR when the email is taken.
 */
export async function createMerchant(
  services: Pick<Services, 'db' | 'clock' | 'ids'>,
  input: { fullName: string; email: string; phone?: string | undefined; country?: string | undefined },
): Promise<MerchantView> {
  const now = services.clock.now();
  const [existing] = await services.db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(sql`lower(${accounts.email})`, input.email.toLowerCase()));
  if (existing) throw new ApiError('VALIDATION_ERROR', { data: { email: 'cette adresse est déjà utilisée' } });
  const [row] = await services.db
    .insert(accounts)
    .values({
      id: services.ids.uuid(),
      fullName: input.fullName,
      email: input.email,
      phone: input.phone ?? null,
      country: input.country ?? null,
      role: 'MERCHANT',
      status: 'ACTIVE',
      emailVerified: true,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toMerchantView(row!);
}

/** Finds a merchant by id or email (case-insensitive); null when none. */
export async function findMerchant(db: Db, idOrEmail: string): Promise<MerchantView | null> {
  const byId = isUuid(idOrEmail);
  const [row] = await db
    .select()
    .from(accounts)
    .where(byId ? eq(accounts.id, idOrEmail) : eq(sql`lower(${accounts.email})`, idOrEmail.toLowerCase()));
  return row ? toMerchantView(row) : null;
}

function toMerchantView(row: typeof accounts.$inferSelect): MerchantView {
  return { id: row.id, fullName: row.fullName, email: row.email, role: row.role, status: row.status, createdAt: row.createdAt };
}
