/**
 * The roles of a merchant account's team and what each may do in the dashboard. Pure: the
 * dashboard guard (http/dashboard-auth.ts) asks `memberMay(role, routePermission(method, url))`
 * for every dashboard request of a merchant account or member.
 *
 * - OWNER: the merchant account itself (the login SharePay's dashboard uses); everything.
 * - ADMINISTRATOR: everything but the owner's own account.
 * - DEVELOPER: applications, API keys, webhooks.
 * - FINANCE: pay-outs, batches, withdrawals, refunds, fund collections.
 * - APPROVER: approves or rejects batches.
 * - VIEWER: reads.
 * Everyone reads, and changes their own profile and password.
 */

/** A member's role. */
export const MEMBER_ROLES = ['OWNER', 'ADMINISTRATOR', 'DEVELOPER', 'FINANCE', 'APPROVER', 'VIEWER'] as const;
/** One of `MEMBER_ROLES`. */
export type MemberRole = (typeof MEMBER_ROLES)[number];
/** The roles an invitation may give (there is one owner: the merchant account). */
export const INVITABLE_ROLES = ['ADMINISTRATOR', 'DEVELOPER', 'FINANCE', 'APPROVER', 'VIEWER'] as const satisfies readonly MemberRole[];
/** One of `INVITABLE_ROLES`. */
export type InvitableRole = (typeof INVITABLE_ROLES)[number];

/** What a dashboard route needs. */
export type Permission = 'READ' | 'SELF' | 'DEVELOP' | 'FINANCE' | 'APPROVE' | 'TEAM';

const GRANTS: Record<Permission, readonly MemberRole[]> = {
  READ: MEMBER_ROLES,
  SELF: MEMBER_ROLES,
  DEVELOP: ['OWNER', 'ADMINISTRATOR', 'DEVELOPER'],
  FINANCE: ['OWNER', 'ADMINISTRATOR', 'FINANCE'],
  APPROVE: ['OWNER', 'ADMINISTRATOR', 'APPROVER'],
  TEAM: ['OWNER', 'ADMINISTRATOR'],
};

/** Whether `role` holds `permission`. */
export function memberMay(role: MemberRole, permission: Permission): boolean {
  return GRANTS[permission].includes(role);
}

/** Whether `role` can send money out of the account (pay-outs, batches, withdrawals, refunds) or approve it. */
export function movesMoneyOut(role: MemberRole): boolean {
  return memberMay(role, 'FINANCE') || memberMay(role, 'APPROVE');
}

/**
 * The permission of a dashboard route, from its method and its Fastify URL pattern (`:id`
 * parameters). Reads need READ; each write is matched by the first rule whose pattern matches;
 * a write no rule names needs TEAM (owner and administrators): new routes fail closed.
 */
const WRITE_RULES: readonly [RegExp, Permission][] = [
  [/^\/api\/v1\/merchants\/me(\/password|\/two-factor(\/[a-z-]+)?)?$/, 'SELF'],
  [/^\/api\/v1\/merchants\/team(\/|$)/, 'TEAM'],
  [/^\/api\/v1\/merchants\/batches\/:id\/(approve|reject)$/, 'APPROVE'],
  [/^\/api\/v1\/merchants\/(apps\/:appId\/)?batches(\/|$)/, 'FINANCE'],
  [/^\/api\/v1\/merchants\/apps(\/:id)?$/, 'DEVELOP'],
  [/^\/api\/v1\/merchants\/apps\/:appId\/(api-keys|webhook)(\/|$)/, 'DEVELOP'],
  [/^\/api\/v1\/merchants\/apps\/:appId\/transfer$/, 'FINANCE'],
  [/^\/api\/v1\/merchants\/transactions\/:reference\/refund$/, 'FINANCE'],
  [/^\/api\/v1\/merchants\/transactions\/:transactionId\/status-check$/, 'READ'],
  [/^\/api\/v1\/merchants\/withdrawals\//, 'FINANCE'],
  [/^\/api\/v1\/merchants\/(apps\/:applicationId\/)?fund-collections(\/|$)/, 'FINANCE'],
];

/** The permission `method` on `url` (a route pattern) needs; see `WRITE_RULES`. */
export function routePermission(method: string, url: string): Permission {
  if (method === 'GET' || method === 'HEAD') return 'READ';
  for (const [pattern, permission] of WRITE_RULES) if (pattern.test(url)) return permission;
  return 'TEAM';
}

/**
 * The writes that ask for a fresh second factor (within `STEP_UP_MS` of second-factor.ts) from a
 * person who has one or must have one: sending a transfer, adding a withdrawal account, creating,
 * rotating or re-scoping an API key, changing the webhook URL (its own route, or the
 * application's settings that carry it), changing the money settings (the amount under which
 * batches are approved without a person, the late-success policy) and approving a batch.
 */
const STEP_UP_RULES: readonly [string, RegExp][] = [
  ['POST', /^\/api\/v1\/merchants\/apps\/:appId\/transfer$/],
  ['POST', /^\/api\/v1\/merchants\/withdrawals\/accounts$/],
  ['POST', /^\/api\/v1\/merchants\/apps\/:appId\/api-keys(\/rotate)?$/],
  ['PATCH', /^\/api\/v1\/merchants\/apps\/:appId\/api-keys\/active$/],
  ['PATCH', /^\/api\/v1\/merchants\/apps\/:appId\/webhook$/],
  ['PATCH', /^\/api\/v1\/merchants\/apps\/:id$/],
  ['PUT', /^\/api\/v1\/merchants\/apps\/:appId\/money-settings$/],
  ['POST', /^\/api\/v1\/merchants\/batches\/:id\/approve$/],
];

/** Whether `method` on `url` (a route pattern) asks for a fresh second factor. */
export function needsFreshSecondFactor(method: string, url: string): boolean {
  return STEP_UP_RULES.some(([m, pattern]) => m === method && pattern.test(url));
}
