/**
 * The team of a merchant account: its owner (the merchant account itself), its members and its
 * pending invitations. An invitation is e-mailed (mail.ts) with a single-use token valid
 * `INVITATION_TTL_MS`; accepting it creates the member's own login account (role MEMBER) and its
 * membership in one database transaction. Every change is audited with the member who made it.
 * Every query is scoped to the merchant: another merchant's member or invitation is a 404.
 */
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { transaction } from '../db/client.ts';
import { memberInvitations, merchantMembers } from '../db/schema-team.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { createAccount, findAccountByEmail } from './accounts.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { sendMail } from './mail.ts';
import type { InvitableRole, MemberRole } from './team-roles.ts';
import { digest, revokeAccountSessions } from './tokens.ts';

/** How long an invitation can be accepted: 7 days. */
export const INVITATION_TTL_MS = 7 * 86_400_000;
/** At most this many members and pending invitations per merchant account. */
export const TEAM_SIZE_MAX = 100;

/** One line of the team list. */
export interface TeamMemberView {
  /** The membership id (the owner's line carries the merchant account's id). */
  id: string;
  accountId: string;
  fullName: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
}

/** A pending invitation. */
export interface InvitationView {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * The owner first, then the members (oldest first), the pending invitations, and whether every
 * member must use a second factor.
 */
export async function listTeam(
  services: Pick<Services, 'db' | 'clock'>,
  merchantId: string,
): Promise<{ members: TeamMemberView[]; invitations: InvitationView[]; membersNeedSecondFactor: boolean }> {
  const { db } = services;
  const [owner] = await db.select().from(accounts).where(eq(accounts.id, merchantId));
  if (!owner) throw new ApiError('USER_NOT_FOUND');
  const rows = await db
    .select({ id: merchantMembers.id, accountId: accounts.id, fullName: accounts.fullName, email: accounts.email, role: merchantMembers.role, createdAt: merchantMembers.createdAt })
    .from(merchantMembers)
    .innerJoin(accounts, eq(accounts.id, merchantMembers.accountId))
    .where(eq(merchantMembers.merchantId, merchantId))
    .orderBy(asc(merchantMembers.createdAt), asc(merchantMembers.id));
  const invitations = await db
    .select({ id: memberInvitations.id, email: memberInvitations.email, role: memberInvitations.role, expiresAt: memberInvitations.expiresAt, createdAt: memberInvitations.createdAt })
    .from(memberInvitations)
    .where(pendingOf(merchantId, services.clock.now()))
    .orderBy(asc(memberInvitations.createdAt));
  return {
    members: [
      { id: owner.id, accountId: owner.id, fullName: owner.fullName, email: owner.email, role: 'OWNER', createdAt: owner.createdAt },
      ...rows.map((row) => ({ ...row, role: row.role as MemberRole })),
    ],
    invitations: invitations.map((row) => ({ ...row, role: row.role as MemberRole })),
    membersNeedSecondFactor: owner.membersNeedSecondFactor,
  };
}

/**
 * Sets whether every member of `merchantId` must use a second factor (from each member's next
 * request; members whose role moves money out must in any case).
 */
export async function setMembersNeedSecondFactor(services: Pick<Services, 'db' | 'clock' | 'requestId'>, merchantId: string, value: boolean, actor: AuditActor): Promise<void> {
  const [before] = await services.db.select({ value: accounts.membersNeedSecondFactor }).from(accounts).where(eq(accounts.id, merchantId));
  await services.db.update(accounts).set({ membersNeedSecondFactor: value, updatedAt: services.clock.now() }).where(eq(accounts.id, merchantId));
  await recordAudit(services, actor, { action: 'TEAM_SETTINGS_CHANGED', targetType: 'MERCHANT', targetId: merchantId, before: { membersNeedSecondFactor: before?.value ?? false }, after: { membersNeedSecondFactor: value } });
}

function pendingOf(merchantId: string, now: Date) {
  return and(eq(memberInvitations.merchantId, merchantId), isNull(memberInvitations.acceptedAt), isNull(memberInvitations.revokedAt), gt(memberInvitations.expiresAt, now));
}

/**
 * Invites `email` with `role`: stores the token's digest and e-mails the link
 * `<PUBLIC_BASE_URL>/app/join?token=…`. A new invitation to the same address replaces the pending
 * one. Throws 409 EMAIL_ALREADY_EXISTS when the address already has a Kolo account (one login
 * belongs to one merchant), 400 VALIDATION_ERROR when the team already has `TEAM_SIZE_MAX`
 * members and invitations.
 */
export async function inviteMember(
  services: Pick<Services, 'db' | 'clock' | 'ids' | 'config' | 'log' | 'requestId'>,
  merchantId: string,
  input: { email: string; role: InvitableRole },
  actor: AuditActor,
): Promise<InvitationView> {
  const email = input.email.trim();
  if (await findAccountByEmail(services.db, email)) throw new ApiError('EMAIL_ALREADY_EXISTS');
  const team = await listTeam(services, merchantId);
  if (team.members.length + team.invitations.length >= TEAM_SIZE_MAX) {
    throw new ApiError('VALIDATION_ERROR', { data: { email: `une équipe compte au plus ${TEAM_SIZE_MAX} membres et invitations` } });
  }
  const now = services.clock.now();
  const token = `inv_${services.ids.hex(32)}`;
  const row = await transaction(services.db, async (tx) => {
    await tx
      .update(memberInvitations)
      .set({ revokedAt: now })
      .where(and(pendingOf(merchantId, now), eq(memberInvitations.email, email)));
    const [created] = await tx
      .insert(memberInvitations)
      .values({ id: services.ids.uuid(), merchantId, email, role: input.role, tokenHash: digest(token), invitedBy: actor.actorId, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS), createdAt: now })
      .returning();
    await recordAudit({ ...services, db: tx }, actor, { action: 'MEMBER_INVITED', targetType: 'INVITATION', targetId: created!.id, after: { email, role: input.role } });
    return created!;
  });
  const [owner] = await services.db.select({ fullName: accounts.fullName }).from(accounts).where(eq(accounts.id, merchantId));
  await sendMail(services, {
    to: email,
    subject: `Invitation à rejoindre ${owner?.fullName ?? 'un compte'} sur Kolo`,
    text: [
      `Vous êtes invité(e) à rejoindre l'équipe de ${owner?.fullName ?? 'ce compte'} sur Kolo, avec le rôle ${input.role}.`,
      '',
      `Choisissez votre mot de passe ici (lien valable 7 jours, utilisable une fois) :`,
      `${services.config.publicBaseUrl}/app/join?token=${token}`,
    ].join('\n'),
  });
  return { id: row.id, email: row.email, role: row.role as MemberRole, expiresAt: row.expiresAt, createdAt: row.createdAt };
}

/** Cancels a pending invitation of `merchantId`. Throws 404 MEMBER_NOT_FOUND for any other. */
export async function revokeInvitation(services: Pick<Services, 'db' | 'clock' | 'requestId'>, merchantId: string, invitationId: string, actor: AuditActor): Promise<void> {
  const now = services.clock.now();
  const revoked = await services.db
    .update(memberInvitations)
    .set({ revokedAt: now })
    .where(and(eq(memberInvitations.id, invitationId), pendingOf(merchantId, now)))
    .returning({ email: memberInvitations.email });
  if (revoked.length === 0) throw new ApiError('MEMBER_NOT_FOUND');
  await recordAudit(services, actor, { action: 'INVITATION_REVOKED', targetType: 'INVITATION', targetId: invitationId, before: { email: revoked[0]!.email } });
}

/**
 * Accepts an invitation: in one database transaction, claims the invitation (single use), creates
 * the member's login account (role MEMBER, e-mail verified by the invitation) and its membership.
 * Throws 400 INVITATION_INVALID for an unknown, expired, revoked or used token, 409
 * EMAIL_ALREADY_EXISTS when the address got an account meanwhile.
 */
export async function acceptInvitation(
  services: Pick<Services, 'db' | 'clock' | 'ids' | 'config' | 'requestId'>,
  input: { token: string; fullName: string; password: string },
  actor: AuditActor,
): Promise<{ accountId: string; email: string }> {
  if (!/^inv_[0-9a-f]{64}$/.test(input.token)) throw new ApiError('INVITATION_INVALID');
  const now = services.clock.now();
  return transaction(services.db, async (tx) => {
    const [invitation] = await tx
      .update(memberInvitations)
      .set({ acceptedAt: now })
      .where(and(eq(memberInvitations.tokenHash, digest(input.token)), isNull(memberInvitations.acceptedAt), isNull(memberInvitations.revokedAt), gt(memberInvitations.expiresAt, now)))
      .returning();
    if (!invitation) throw new ApiError('INVITATION_INVALID');
    const account = await createAccount(
      { ...services, db: tx },
      { fullName: input.fullName, email: invitation.email, password: input.password, role: 'MEMBER', status: 'ACTIVE', emailVerified: true },
    );
    const memberId = services.ids.uuid();
    await tx.insert(merchantMembers).values({ id: memberId, merchantId: invitation.merchantId, accountId: account.id, role: invitation.role, invitedBy: invitation.invitedBy, createdAt: now, updatedAt: now });
    await recordAudit({ ...services, db: tx }, { ...actor, actorId: account.id, actorRole: `MEMBER_${invitation.role}` }, {
      action: 'MEMBER_JOINED',
      targetType: 'MEMBER',
      targetId: memberId,
      after: { merchantId: invitation.merchantId, email: invitation.email, role: invitation.role },
    });
    return { accountId: account.id, email: account.email };
  });
}

/** The membership `memberId` of `merchantId`, or 404 MEMBER_NOT_FOUND. */
async function memberOf(services: Pick<Services, 'db'>, merchantId: string, memberId: string) {
  const [row] = await services.db
    .select()
    .from(merchantMembers)
    .where(and(eq(merchantMembers.id, memberId), eq(merchantMembers.merchantId, merchantId)));
  if (!row) throw new ApiError('MEMBER_NOT_FOUND');
  return row;
}

/** Gives member `memberId` of `merchantId` another role (from its next request). */
export async function changeMemberRole(
  services: Pick<Services, 'db' | 'clock' | 'requestId'>,
  merchantId: string,
  memberId: string,
  role: InvitableRole,
  actor: AuditActor,
): Promise<void> {
  const before = await memberOf(services, merchantId, memberId);
  await services.db
    .update(merchantMembers)
    .set({ role, updatedAt: services.clock.now() })
    .where(and(eq(merchantMembers.id, memberId), eq(merchantMembers.merchantId, merchantId)));
  await recordAudit(services, actor, { action: 'MEMBER_ROLE_CHANGED', targetType: 'MEMBER', targetId: memberId, before: { role: before.role }, after: { role } });
}

/**
 * Removes member `memberId` of `merchantId`: its membership is deleted, its login account
 * marked DELETED and its sessions closed, in one database transaction (its next request is a 401
 * or 403).
 */
export async function removeMember(services: Pick<Services, 'db' | 'clock' | 'requestId'>, merchantId: string, memberId: string, actor: AuditActor): Promise<void> {
  const member = await memberOf(services, merchantId, memberId);
  const now = services.clock.now();
  await transaction(services.db, async (tx) => {
    await tx.delete(merchantMembers).where(and(eq(merchantMembers.id, memberId), eq(merchantMembers.merchantId, merchantId)));
    await tx.update(accounts).set({ status: 'DELETED', updatedAt: now }).where(and(eq(accounts.id, member.accountId), eq(accounts.role, 'MEMBER')));
    await revokeAccountSessions(tx, member.accountId, 'MEMBER_REMOVED', now);
    await recordAudit({ ...services, db: tx }, actor, { action: 'MEMBER_REMOVED', targetType: 'MEMBER', targetId: memberId, before: { accountId: member.accountId, role: member.role } });
  });
}
