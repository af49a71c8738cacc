/**
 * The first administrator: from configuration (`ADMIN_EMAIL` + `ADMIN_PASSWORD`, created at start
 * when no account has that e-mail) or with `kolo staff create`. An existing account is never
 * modified by this.
 */
import type { Services } from '../services.ts';
import { createAccount, findAccountByEmail } from './accounts.ts';
import { recordAudit } from './audit.ts';

/** Creates the configured ADMIN if it does not exist yet; returns its e-mail when created. */
export async function ensureConfiguredAdmin(services: Services): Promise<string | null> {
  const { adminEmail, adminPassword } = services.config;
  if (!adminEmail || !adminPassword) return null;
  if (await findAccountByEmail(services.db, adminEmail)) return null;
  const row = await createAccount(services, {
    fullName: 'Administrateur',
    email: adminEmail,
    password: adminPassword,
    role: 'ADMIN',
    status: 'ACTIVE',
    emailVerified: true,
  });
  await recordAudit(services, { actorId: null, actorRole: 'SYSTEM', clientIp: null }, {
    action: 'STAFF_CREATED',
    targetType: 'ACCOUNT',
    targetId: row.id,
    after: { email: row.email, role: 'ADMIN', source: 'ADMIN_EMAIL' },
  });
  return row.email;
}
