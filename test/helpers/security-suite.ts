/**
 * The shared security suite of the dashboard API: every protected route is run through the same
 * checks — no token, malformed token, expired token (manual clock), a token of another merchant
 * (404 like an unknown id), a wrong role (403), an API key instead of a JWT (401, alone or as a
 * bearer), and a suspended account. Requests are built so that they would succeed for the right
 * caller; each check only expects a refusal, so nothing is changed by running it.
 *
 * Its twin for the merchant API's reads, `describeApiKeySecurity`, runs every key check on every
 * route: no key, a wrong key, a revoked key, another tenant's key.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, transactions } from '../../src/db/schema.ts';
import { createApiKey, revokeActiveKey } from '../../src/accounts/api-keys.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createAccount } from '../../src/dashboard/accounts.ts';
import { openSession } from '../../src/dashboard/tokens.ts';
import { startHarness, type Harness } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from './dashboard.ts';
import { enrolTotp } from './totp.ts';

/**
 * Who may call a route: the owning merchant of `:appId`, the owning merchant of the transaction
 * `{transactionId}`, any logged-in account, or staff.
 */
export type RouteScope = 'OWN_APP' | 'OWN_TRANSACTION' | 'ANY_ACCOUNT' | 'STAFF_READ' | 'ADMIN';

/**
 * A protected route to check. `path` may use `{appId}` (the owner's application), `{id}` (a
 * uuid) and `{transactionId}` (a pay-in of the owner's application, by id; `{transactionRef}`:
 * the same by reference). Every placeholder is also replaced by a malformed value, which must
 * answer 400 to a caller who may use the route.
 */
export interface ProtectedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  scope: RouteScope;
  /** True when SUPPORT must get 403 on it (write routes). */
  write: boolean;
  body?: unknown;
}

interface Ctx {
  h: Harness;
  appId: string;
  transactionId: string;
  transactionRef: string;
  apiKey: string;
  tokens: Record<'owner' | 'other' | 'support' | 'admin' | 'suspended', string>;
}

let counter = 0;

/** An account of `role` with a token; staff with an enrolled second factor unless `isEnrolled` is false. */
async function account(h: Harness, role: 'MERCHANT' | 'ADMIN' | 'SUPPORT', isEnrolled = role !== 'MERCHANT') {
  counter += 1;
  const row = await createAccount(h.services, {
    fullName: `Sécurité ${counter}`,
    email: `security-${counter}-${Date.now()}@example.test`,
    password: 'mot-de-passe-securite',
    role,
    status: 'ACTIVE',
    emailVerified: true,
  });
  // Tokens come from the same code the login route uses; the login route itself is tested elsewhere.
  const { accessToken } = await openSession(h.services, row);
  // Staff write only with a second factor: enrolled (and fresh, as enrolment proves it), so a
  // refusal below is the role's.
  if (isEnrolled) await enrolTotp(h, accessToken);
  return { row, accessToken };
}

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

function fill(path: string, ctx: Ctx): string {
  return path
    .replace('{appId}', ctx.appId)
    .replace('{id}', UNKNOWN_ID)
    .replace('{transactionId}', ctx.transactionId)
    .replace('{transactionRef}', ctx.transactionRef);
}

/** Placeholders of a path, each replaced by a malformed value (the others filled as usual). */
function malformedVariants(path: string, ctx: Ctx): string[] {
  const names = path.match(/\{(appId|id|transactionId|transactionRef)\}/g) ?? [];
  return names.map((name) => fill(path.replace(name, 'not-a-uuid'), ctx));
}

/** Registers a `describe` block running every check on every route. */
export function describeDashboardSecurity(title: string, routes: ProtectedRoute[]): void {
  describe(title, () => {
    const ctx = {} as Ctx;
    beforeAll(async () => {
      ctx.h = await startHarness({ ...DASHBOARD_TEST_ENV });
      const owner = await account(ctx.h, 'MERCHANT');
      const other = await account(ctx.h, 'MERCHANT');
      const support = await account(ctx.h, 'SUPPORT');
      const admin = await account(ctx.h, 'ADMIN');
      const suspended = await account(ctx.h, 'MERCHANT');
      const app = await createApplication(ctx.h.services, { merchantId: owner.row.id, name: 'Sécurité', currency: 'XAF' });
      ctx.appId = app.id;
      ctx.apiKey = (await createApiKey(ctx.h.services, { applicationId: app.id, name: 'k', environment: 'TEST' })).plainTextKey;
      // A pay-in of the owner, for the transaction routes.
      const charge = await ctx.h.request('POST', '/api/v1/pay-in/charge', {
        key: ctx.apiKey,
        body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
      });
      if (charge.status !== 201) throw new Error(`charge failed: ${charge.text}`);
      ctx.transactionRef = charge.json.data.reference;
      const [row] = await ctx.h.services.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.reference, ctx.transactionRef));
      ctx.transactionId = row!.id;
      ctx.tokens = {
        owner: owner.accessToken,
        other: other.accessToken,
        support: support.accessToken,
        admin: admin.accessToken,
        suspended: suspended.accessToken,
      };
      await ctx.h.services.db.update(accounts).set({ status: 'SUSPENDED' }).where(eq(accounts.id, suspended.row.id));
    });
    afterAll(async () => ctx.h.close());

    const send = (route: ProtectedRoute, headers: Record<string, string>) =>
      ctx.h.request(route.method, fill(route.path, ctx), { headers, ...(route.body === undefined ? {} : { body: route.body }) });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      it(`${name}: refuses missing, malformed and API-key credentials with 401`, async () => {
        const attempts: Record<string, string>[] = [
          {},
          { authorization: 'Bearer' },
          { authorization: 'Bearer not.a.jwt' },
          { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
          { 'x-api-key': ctx.apiKey },
          bearer(ctx.apiKey),
        ];
        for (const headers of attempts) {
          const response = await send(route, headers);
          expect(response.status, JSON.stringify(headers)).toBe(401);
          expect(response.json.success).toBe(false);
        }
      });

      it(`${name}: refuses a token signed with another secret and a suspended account`, async () => {
        const [head, payload] = ctx.tokens.owner.split('.');
        const forged = await send(route, bearer(`${head}.${payload}.${Buffer.from('x'.repeat(32)).toString('base64url')}`));
        expect(forged.status).toBe(401);
        expect(forged.json.code).toBe('INVALID_TOKEN');
        const suspended = await send(route, bearer(ctx.tokens.suspended));
        expect(suspended.status).toBe(403);
        expect(suspended.json.code).toBe('ACCOUNT_NOT_ACTIVE');
      });

      it(`${name}: refuses an expired token with 401 TOKEN_EXPIRED`, async () => {
        const { h } = ctx;
        // Not enrolled: the token is refused before any second factor matters, and the clock stays put.
        const fresh = await account(h, route.scope === 'STAFF_READ' || route.scope === 'ADMIN' ? 'ADMIN' : 'MERCHANT', false);
        h.clock.advance(h.config.accessTokenTtlMinutes * 60_000 + 1000);
        try {
          const response = await send(route, bearer(fresh.accessToken));
          expect(response.status).toBe(401);
          expect(response.json.code).toBe('TOKEN_EXPIRED');
        } finally {
          // Keep the shared tokens valid for the other checks.
          h.clock.advance(-(h.config.accessTokenTtlMinutes * 60_000 + 1000));
        }
      });

      if (route.scope === 'OWN_APP') {
        it(`${name}: another merchant gets 404 APP_NOT_FOUND, exactly like an unknown id`, async () => {
          const foreign = await send(route, bearer(ctx.tokens.other));
          expect(foreign.status).toBe(404);
          expect(foreign.json.code).toBe('APP_NOT_FOUND');
          const unknown = await ctx.h.request(route.method, route.path.replace('{appId}', '00000000-0000-4000-8000-000000000000'), {
            headers: bearer(ctx.tokens.other),
            ...(route.body === undefined ? {} : { body: route.body }),
          });
          expect({ ...foreign.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });
        });
      }

      if (route.scope === 'OWN_TRANSACTION') {
        it(`${name}: another merchant gets 404 TRANSACTION_NOT_FOUND, exactly like an unknown id`, async () => {
          const foreign = await send(route, bearer(ctx.tokens.other));
          expect(foreign.status).toBe(404);
          expect(foreign.json.code).toBe('TRANSACTION_NOT_FOUND');
          const unknown = await ctx.h.request(route.method, fill(route.path.replace(/\{transaction(Id|Ref)\}/, UNKNOWN_ID), ctx), {
            headers: bearer(ctx.tokens.owner),
            ...(route.body === undefined ? {} : { body: route.body }),
          });
          expect({ ...foreign.json, timestamp: null }).toEqual({ ...unknown.json, timestamp: null });
          // The owner reads it (the refusal above is about ownership, not about the request).
          expect((await send(route, bearer(ctx.tokens.owner))).status).toBe(200);
        });
      }

      if (/\{(appId|id|transactionId|transactionRef)\}/.test(route.path)) {
        it(`${name}: a malformed id answers 400`, async () => {
          const caller = route.scope === 'STAFF_READ' || route.scope === 'ADMIN' ? ctx.tokens.admin : ctx.tokens.owner;
          for (const path of malformedVariants(route.path, ctx)) {
            const response = await ctx.h.request(route.method, path, {
              headers: bearer(caller),
              ...(route.body === undefined ? {} : { body: route.body }),
            });
            expect(response.status, path).toBe(400);
            expect(response.json.success).toBe(false);
          }
        });
      }

      if (route.scope === 'STAFF_READ' || route.scope === 'ADMIN') {
        it(`${name}: a MERCHANT gets 403 ACCESS_DENIED`, async () => {
          const response = await send(route, bearer(ctx.tokens.owner));
          expect(response.status).toBe(403);
          expect(response.json.code).toBe('ACCESS_DENIED');
        });
      }

      if (route.write || route.scope === 'ADMIN') {
        it(`${name}: SUPPORT gets 403 ACCESS_DENIED`, async () => {
          const response = await send(route, bearer(ctx.tokens.support));
          expect(response.status).toBe(403);
          expect(response.json.code).toBe('ACCESS_DENIED');
        });
      }
    }
  });
}

/** A merchant-API read to check with `describeApiKeySecurity`: it answers 200 to its key's tenant. */
export interface ApiKeyRoute {
  method: 'GET';
  path: string;
}

/**
 * Registers a `describe` block running the API-key checks on every route: a missing key, a key of
 * the right form that is no key, and a revoked key get the same 401 UNAUTHORIZED; another
 * tenant's key gets its own data, naming none of the owner's ids (application, transaction
 * reference) that the owner's key reads on the same route. The owner has one settled charge.
 */
export function describeApiKeySecurity(title: string, routes: ApiKeyRoute[]): void {
  describe(title, () => {
    let h: Harness;
    let owner: { applicationId: string; key: string };
    let other: { applicationId: string; key: string };
    let revokedKey: string;
    let reference: string;
    beforeAll(async () => {
      h = await startHarness();
      const tenant = await h.createTenant();
      owner = tenant;
      other = await h.createTenant();
      const charge = await h.request('POST', '/api/v1/pay-in/charge', {
        key: owner.key,
        body: { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
      });
      if (charge.status !== 201) throw new Error(`charge failed: ${charge.text}`);
      reference = charge.json.data.reference;
      // Settled by the sandbox and the poller, so that it has its event.
      h.clock.advance(h.config.sandboxDelayMs + 1000);
      await pollOnce(h.services);
      const revoked = await h.createTenant();
      revokedKey = revoked.key;
      await revokeActiveKey(h.services.db, revoked.applicationId, h.clock.now());
    });
    afterAll(async () => h?.close());

    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      it(`${name}: refuses a missing, unknown or revoked key with the same 401`, async () => {
        const unknown = `sk_test_${'0'.repeat(128)}`;
        for (const headers of [{}, { 'x-api-key': '' }, { 'x-api-key': unknown }, { 'x-api-key': revokedKey }] as Record<string, string>[]) {
          const response = await h.request(route.method, route.path, { headers });
          expect(response.status, JSON.stringify(Object.keys(headers))).toBe(401);
          expect(response.json).toMatchObject({ success: false, code: 'UNAUTHORIZED', message: 'Clé API invalide ou manquante.', data: null });
        }
      });

      it(`${name}: another tenant's key reads none of the owner's data`, async () => {
        const own = await h.request(route.method, route.path, { key: owner.key });
        expect(own.status, own.text).toBe(200);
        // The owner's answer names its application or its transaction: the check below can fail.
        expect(own.text.includes(owner.applicationId) || own.text.includes(reference)).toBe(true);
        const foreign = await h.request(route.method, route.path, { key: other.key });
        expect(foreign.status, foreign.text).toBe(200);
        expect(foreign.text).not.toContain(owner.applicationId);
        expect(foreign.text).not.toContain(reference);
      });
    }
  });
}
