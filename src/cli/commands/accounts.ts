/**
 * The account commands: `migrate`, `merchants create|list|show`, `apps create|list|show`,
 * `keys create|rotate|list|show`, `staff create`, `secrets forget`. Arguments arrive parsed and
 * validated (validate.ts). Only `keys create` and `keys rotate` ever print a key's full value;
 * `keys list|show` show its prefix, environment, status and dates, never its value or digest.
 */
import { randomBytes } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { createMerchant, findMerchant } from '../../accounts/merchants.ts';
import { createApplication, findApplication, type ApplicationRow } from '../../accounts/applications.ts';
import { createApiKey, rotateApiKey } from '../../accounts/api-keys.ts';
import { createAccount } from '../../dashboard/accounts.ts';
import { merchantOverview, pageAccounts } from '../../dashboard/admin.ts';
import { applicationView, listApplications, type ApplicationView } from '../../dashboard/applications.ts';
import { forgetSharedSecrets } from '../../shared-secrets.ts';
import { apiKeys } from '../../db/schema.ts';
import type { Db } from '../../db/client.ts';
import { CommandError, UsageError, type CliContext } from '../context.ts';
import { withRuntime } from '../database.ts';
import { fields, print, shortDate, table } from '../output.ts';

type Json = { json?: boolean | undefined };

/** `kolo migrate`: opens the database, which applies pending migrations. */
export async function migrate(ctx: CliContext, opts: Json): Promise<void> {
  await withRuntime(ctx, 'kolo migrate', async (runtime) => {
    print(ctx.io, opts.json, `migrations applied (${runtime.database.kind})`, { migrated: true, database: runtime.database.kind });
  });
}

/** `kolo secrets forget`: deletes the recorded fingerprints of the shared secrets. */
export async function secretsForget(ctx: CliContext, opts: Json): Promise<void> {
  await withRuntime(ctx, 'kolo secrets forget', async ({ services }) => {
    const removed = await forgetSharedSecrets(services);
    print(ctx.io, opts.json, `${removed} recorded secret fingerprint(s) forgotten; the next instance to start records its own`, { forgotten: removed });
  });
}

/** `kolo merchants create`. */
export async function merchantsCreate(ctx: CliContext, opts: Json & { name: string; email: string; phone?: string; country?: string }): Promise<void> {
  await withRuntime(ctx, 'kolo merchants create', async ({ services }) => {
    const merchant = await createMerchant(services, { fullName: opts.name, email: opts.email, phone: opts.phone, country: opts.country });
    print(ctx.io, opts.json, `merchant ${merchant.id} created (${merchant.email})`, merchant);
  });
}

/** `kolo merchants list`: newest first. */
export async function merchantsList(ctx: CliContext, opts: Json & { status?: string; search?: string; limit: number }): Promise<void> {
  await withRuntime(ctx, 'kolo merchants list', async ({ services }) => {
    const { rows, total } = await pageAccounts(services.db, ['MERCHANT'], opts.status, 0, opts.limit, opts.search);
    const human = table(
      rows,
      [
        { head: 'ID', cell: (m) => m.id },
        { head: 'EMAIL', cell: (m) => m.email },
        { head: 'NAME', cell: (m) => m.fullName },
        { head: 'STATUS', cell: (m) => m.status },
        { head: 'CREATED', cell: (m) => shortDate(m.createdAt) },
      ],
      'no merchant',
    );
    print(ctx.io, opts.json, rows.length < total ? `${human}\n(${rows.length} of ${total}: --limit for more)` : human, { merchants: rows, total });
  });
}

/** `kolo merchants show <id|email>`: the account, its application count and its transactions by status. */
export async function merchantsShow(ctx: CliContext, idOrEmail: string, opts: Json): Promise<void> {
  await withRuntime(ctx, 'kolo merchants show', async ({ services }) => {
    const found = await findMerchant(services.db, idOrEmail);
    if (!found || found.role !== 'MERCHANT') throw new CommandError(`no merchant ${idOrEmail}`);
    const overview = await merchantOverview(services.db, found.id);
    const m = overview.merchant;
    const byStatus = Object.entries(overview.transactionsByStatus).map(([status, s]) => `${status} ${s.count}`).join(', ');
    const human = fields([
      ['id', m.id],
      ['name', m.fullName],
      ['email', m.email],
      ['phone', m.phone],
      ['country', m.country],
      ['status', m.status],
      ['kyc level', m.kycLevel],
      ['created', shortDate(m.createdAt)],
      ['applications', overview.applicationCount],
      ['transactions', `${overview.transactionCount}${byStatus ? ` (${byStatus})` : ''}`],
    ]);
    print(ctx.io, opts.json, human, overview);
  });
}

/** `kolo apps create`. */
export async function appsCreate(
  ctx: CliContext,
  opts: Json & { merchant: string; name: string; currency: string; webhookUrl?: string; successUrl?: string; cancelUrl?: string },
): Promise<void> {
  await withRuntime(ctx, 'kolo apps create', async ({ services }) => {
    const merchant = await findMerchant(services.db, opts.merchant);
    if (!merchant) throw new CommandError(`no merchant ${opts.merchant}`);
    const app = await createApplication(services, {
      merchantId: merchant.id,
      name: opts.name,
      currency: opts.currency,
      webhookUrl: opts.webhookUrl,
      successUrl: opts.successUrl,
      cancelUrl: opts.cancelUrl,
    });
    print(ctx.io, opts.json, `application ${app.id} created (${app.name}, ${app.currency})`, app);
  });
}

const APP_COLUMNS = [
  { head: 'ID', cell: (a: ApplicationView) => a.id },
  { head: 'NAME', cell: (a: ApplicationView) => a.name },
  { head: 'CURRENCY', cell: (a: ApplicationView) => a.currency },
  { head: 'STATUS', cell: (a: ApplicationView) => a.status },
  { head: 'ACTIVE KEY', cell: (a: ApplicationView) => (a.activeKeyPrefix ? `${a.activeKeyPrefix}… ${a.activeKeyEnvironment}` : '-') },
  { head: 'MERCHANT', cell: (a: ApplicationView) => a.merchantId },
  { head: 'CREATED', cell: (a: ApplicationView) => shortDate(a.createdAt) },
];

/** `kolo apps list [--merchant]`: oldest first, deleted applications left out. */
export async function appsList(ctx: CliContext, opts: Json & { merchant?: string }): Promise<void> {
  await withRuntime(ctx, 'kolo apps list', async ({ services }) => {
    let merchantId: string | null = null;
    if (opts.merchant) {
      const merchant = await findMerchant(services.db, opts.merchant);
      if (!merchant) throw new CommandError(`no merchant ${opts.merchant}`);
      merchantId = merchant.id;
    }
    const apps = await listApplications(services.db, merchantId);
    print(ctx.io, opts.json, table(apps, APP_COLUMNS, 'no application'), { applications: apps });
  });
}

async function appOrFail(db: Db, id: string): Promise<ApplicationRow> {
  const app = await findApplication(db, id);
  if (!app) throw new CommandError(`no application ${id}`);
  return app;
}

/** `kolo apps show <id>`. */
export async function appsShow(ctx: CliContext, id: string, opts: Json): Promise<void> {
  await withRuntime(ctx, 'kolo apps show', async ({ services }) => {
    const app = await applicationView(services.db, await appOrFail(services.db, id));
    const human = fields([
      ['id', app.id],
      ['name', app.name],
      ['merchant', app.merchantId],
      ['currency', app.currency],
      ['status', app.status],
      ['active key', app.activeKeyPrefix ? `${app.activeKeyPrefix}… (${app.activeKeyEnvironment})` : null],
      ['webhook url', app.webhookUrl],
      ['success url', app.successUrl],
      ['cancel url', app.cancelUrl],
      ['created', shortDate(app.createdAt)],
      ['updated', shortDate(app.updatedAt)],
    ]);
    print(ctx.io, opts.json, human, app);
  });
}

/** `kolo keys create` and `kolo keys rotate`: the only commands that print a key, once. */
export async function keysIssue(
  ctx: CliContext,
  how: 'create' | 'rotate',
  opts: Json & { app: string; name?: string; environment: 'TEST' | 'LIVE' },
): Promise<void> {
  await withRuntime(ctx, `kolo keys ${how}`, async ({ services }) => {
    const app = await findApplication(services.db, opts.app);
    if (!app) throw new CommandError(`no application ${opts.app}`);
    const input = { applicationId: app.id, name: opts.name ?? `${opts.environment} key`, environment: opts.environment };
    const key = how === 'create' ? await createApiKey(services, input) : await rotateApiKey(services, input);
    print(ctx.io, opts.json, `${key.environment} key ${key.keyPrefix}… for application ${app.id}\n${key.plainTextKey}\n(shown once: store it now)`, key);
  });
}

/** An API key as listed: never its value nor its digest. */
interface KeyListed {
  id: string;
  applicationId: string;
  name: string;
  keyPrefix: string;
  environment: string;
  status: 'ACTIVE' | 'REVOKED';
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

const KEY_COLUMNS = [
  { head: 'ID', cell: (k: KeyListed) => k.id },
  { head: 'PREFIX', cell: (k: KeyListed) => `${k.keyPrefix}…` },
  { head: 'ENVIRONMENT', cell: (k: KeyListed) => k.environment },
  { head: 'STATUS', cell: (k: KeyListed) => k.status },
  { head: 'NAME', cell: (k: KeyListed) => k.name },
  { head: 'LAST USED', cell: (k: KeyListed) => shortDate(k.lastUsedAt) },
  { head: 'CREATED', cell: (k: KeyListed) => shortDate(k.createdAt) },
];

// The listed columns only: the digest is never read.
const KEY_SELECTION = {
  id: apiKeys.id,
  applicationId: apiKeys.applicationId,
  name: apiKeys.name,
  keyPrefix: apiKeys.keyPrefix,
  environment: apiKeys.environment,
  active: apiKeys.active,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  createdAt: apiKeys.createdAt,
};

function keyListed(row: Omit<KeyListed, 'status'> & { active: boolean }): KeyListed {
  const { active, ...rest } = row;
  return { ...rest, status: active ? 'ACTIVE' : 'REVOKED' };
}

/** `kolo keys list --app ID`: the application's keys, newest first. */
export async function keysList(ctx: CliContext, opts: Json & { app: string }): Promise<void> {
  await withRuntime(ctx, 'kolo keys list', async ({ services }) => {
    const app = await appOrFail(services.db, opts.app);
    const rows = await services.db.select(KEY_SELECTION).from(apiKeys).where(eq(apiKeys.applicationId, app.id)).orderBy(desc(apiKeys.createdAt));
    const keys = rows.map(keyListed);
    print(ctx.io, opts.json, table(keys, KEY_COLUMNS, `no key for application ${app.id}`), { applicationId: app.id, keys });
  });
}

/** `kolo keys show <id>`. */
export async function keysShow(ctx: CliContext, id: string, opts: Json): Promise<void> {
  await withRuntime(ctx, 'kolo keys show', async ({ services }) => {
    const [row] = await services.db.select(KEY_SELECTION).from(apiKeys).where(eq(apiKeys.id, id));
    if (!row) throw new CommandError(`no key ${id}`);
    const key = keyListed(row);
    const human = fields([
      ['id', key.id],
      ['application', key.applicationId],
      ['name', key.name],
      ['prefix', `${key.keyPrefix}…`],
      ['environment', key.environment],
      ['status', key.status],
      ['last used', shortDate(key.lastUsedAt)],
      ['revoked', shortDate(key.revokedAt)],
      ['created', shortDate(key.createdAt)],
    ]);
    print(ctx.io, opts.json, human, key);
  });
}

/** `kolo staff create`: the password from KOLO_STAFF_PASSWORD, else generated and shown once. */
export async function staffCreate(ctx: CliContext, opts: Json & { name: string; email: string; role: 'ADMIN' | 'SUPPORT' }): Promise<void> {
  const given = ctx.env.KOLO_STAFF_PASSWORD;
  if (given !== undefined && (given.length < 12 || given.length > 128)) throw new UsageError('KOLO_STAFF_PASSWORD must be 12 to 128 characters');
  await withRuntime(ctx, 'kolo staff create', async ({ services }) => {
    // Never a command-line flag: arguments are visible to every user of the machine.
    const password = given ?? randomBytes(18).toString('base64url');
    const staff = await createAccount(services, {
      fullName: opts.name,
      email: opts.email,
      password,
      role: opts.role,
      status: 'ACTIVE',
      emailVerified: true,
    });
    const shown = given === undefined ? `\npassword (shown once): ${password}` : '';
    print(ctx.io, opts.json, `${opts.role} ${staff.id} created (${staff.email})${shown}`, {
      id: staff.id,
      email: staff.email,
      role: opts.role,
      ...(given === undefined ? { password } : {}),
    });
  });
}
