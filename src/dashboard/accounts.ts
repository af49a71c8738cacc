/**
 * Dashboard accounts (merchants and staff): creation with a hashed password, lookups, and the
 * views the API shows (never the password hash).
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import type { Services } from '../services.ts';
import { hashPassword } from './passwords.ts';
import type { Role } from './tokens.ts';

/** An account row. */
export type AccountRow = typeof accounts.$inferSelect;

/** Fields of a new account; the password is hashed here and never stored in clear. */
export interface NewAccount {
  fullName: string;
  email: string;
  password: string;
  role: Role;
  status: 'ACTIVE' | 'PENDING_VERIFICATION';
  emailVerified: boolean;
  phone?: string | undefined;
  country?: string | undefined;
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Creates an account. Throws 409 EMAIL_ALREADY_EXISTS when the e-mail (any case) is taken. */
export async function createAccount(services: Pick<Services, 'db' | 'clock' | 'ids' | 'config'>, input: NewAccount): Promise<AccountRow> {
  if (await findAccountByEmail(services.db, input.email)) throw new ApiError('EMAIL_ALREADY_EXISTS');
  const passwordHash = await hashPassword(input.password, services.config.passwordScryptLogN);
  const now = services.clock.now();
  try {
    const [row] = await services.db
      .insert(accounts)
      .values({
        id: services.ids.uuid(),
        fullName: input.fullName,
        email: input.email.trim(),
        phone: input.phone ?? null,
        country: input.country ?? null,
        role: input.role,
        status: input.status,
        kycLevel: 'NONE',
        passwordHash,
        emailVerified: input.emailVerified,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  } catch (error) {
    // The unique index on lower(email) settles a race between two sign-ups.
    if (isUniqueViolation(error)) throw new ApiError('EMAIL_ALREADY_EXISTS');
    throw error;
  }
}

/** The account with this e-mail (case-insensitive), or null. */
export async function findAccountByEmail(db: Db, email: string): Promise<AccountRow | null> {
  const [row] = await db.select().from(accounts).where(eq(sql`lower(${accounts.email})`, email.trim().toLowerCase()));
  return row ?? null;
}

/** The account with this id, or null (malformed ids included). */
export async function findAccountById(db: Db, id: string): Promise<AccountRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row ?? null;
}

/** The `user` object of the login response, with the fields SharePay's dashboard reads. */
export function userView(row: AccountRow) {
  return { accountId: row.id, email: row.email, fullName: row.fullName, role: row.role, status: row.status, kycLevel: row.kycLevel };
}

/** The profile, with the fields SharePay's dashboard reads. */
export function profileView(row: AccountRow) {
  return {
    id: row.id,
    fullName: row.fullName,
    email: row.email,
    phone: row.phone,
    country: row.country,
    avatarUrl: row.avatarUrl,
    role: row.role,
    status: row.status,
    kycLevel: row.kycLevel,
    emailVerified: row.emailVerified,
    phoneVerified: row.phoneVerified,
    // How the account signs in: Kolo only has e-mail and password accounts, so always LOCAL; the
    // dashboard hides its password form for anything else.
    provider: 'LOCAL' as const,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
