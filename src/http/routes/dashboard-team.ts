/**
 * Dashboard routes of a merchant account's team: the list (owner, members, pending invitations),
 * invitations by e-mail, role changes and removal (`/api/v1/merchants/team…`, bearer; the
 * dashboard guard gives them to the owner and administrators), and the public acceptance of an
 * invitation (`POST /api/v1/auth/accept-invitation`). Staff accounts have no team (403).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { acceptInvitation, changeMemberRole, inviteMember, listTeam, removeMember, revokeInvitation, setMembersNeedSecondFactor } from '../../dashboard/team.ts';
import { INVITABLE_ROLES, MEMBER_ROLES } from '../../dashboard/team-roles.ts';
import type { Services } from '../../services.ts';
import { auditActor, dashboardAuthHook, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { fr, requiredText } from '../schemas/common.ts';
import { idParams, ts } from '../schemas/dashboard.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, noContent, publicSecurity, success } from '../schemas/openapi.ts';
import { bearerSecurity } from './dashboard-auth.ts';

const TEAM_ERRORS = [...BEARER_ERRORS, 'ACCESS_DENIED'] as const;
const EXAMPLE_TIME = '2026-11-20T10:00:00.000';
const invitableRole = z.enum(INVITABLE_ROLES, fr('doit valoir ADMINISTRATOR, DEVELOPER, FINANCE, APPROVER ou VIEWER'));

const memberData = z.object({
  id: z.string().describe("Identifiant du membre (pour le propriétaire : celui du compte marchand)"),
  accountId: z.string(),
  fullName: z.string(),
  email: z.string(),
  role: z.enum(MEMBER_ROLES),
  createdAt: z.string(),
});
const invitationData = z.object({ id: z.string(), email: z.string(), role: z.enum(MEMBER_ROLES), expiresAt: z.string(), createdAt: z.string() });
const teamData = z.object({
  members: z.array(memberData),
  invitations: z.array(invitationData),
  membersNeedSecondFactor: z.boolean().describe('Tous les membres doivent utiliser un second facteur (ceux qui font sortir de l’argent y sont toujours tenus)'),
});

const EXAMPLE_OWNER = { id: '7d4c9a52-4a57-4d7e-9c36-2f1e9f0a1b01', accountId: '7d4c9a52-4a57-4d7e-9c36-2f1e9f0a1b01', fullName: 'Awa Ngono', email: 'awa@boutique.example.cm', role: 'OWNER' as const, createdAt: EXAMPLE_TIME };
const EXAMPLE_INVITATION = { id: '0b5e2f6c-8d1a-4e3b-9f7c-5a6b7c8d9e0f', email: 'paul@boutique.example.cm', role: 'FINANCE' as const, expiresAt: '2026-11-27T10:00:00.000', createdAt: EXAMPLE_TIME };

/** Registers the team routes (bearer) and the acceptance of an invitation (public). */
export async function dashboardTeamRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const now = () => services.clock.now();

  // Public: the invited person chooses a name and a password.
  await app.register(async (scope) => {
    const r = scope.withTypeProvider<ZodTypeProvider>();
    r.post(
      '/api/v1/auth/accept-invitation',
      {
        schema: {
          tags: ['Dashboard : équipe'],
          summary: "Accepter une invitation dans l'équipe d'un compte marchand",
          description: "Le jeton vient du lien de l'e-mail d'invitation (usage unique, 7 jours). Crée le compte de connexion du membre ; il se connecte ensuite par /api/v1/auth/login.",
          operationId: 'acceptInvitation',
          security: publicSecurity,
          body: z
            .object({ token: z.string().min(1).max(200), fullName: requiredText(255), password: z.string().min(8).max(128) })
            .meta({ examples: [{ token: `inv_${'0'.repeat(64)}`, fullName: 'Paul Mbarga', password: 'Mot-de-passe-exemple-42' }] }),
          response: {
            201: success(z.object({ accountId: z.string(), email: z.string() }), 'Le compte du membre', { message: 'Invitation acceptée. Vous pouvez vous connecter.', data: { accountId: EXAMPLE_OWNER.id, email: EXAMPLE_INVITATION.email } }),
            ...errorResponses(...BODY_ERRORS, 'INVITATION_INVALID', 'EMAIL_ALREADY_EXISTS'),
          },
        },
      },
      async (request, reply) => {
        const data = await acceptInvitation(request.services, request.body, auditActor(request));
        return reply.code(201).send(ok(data, 'Invitation acceptée. Vous pouvez vous connecter.', now()));
      },
    );
  });

  await app.register(async (scope) => {
    const r = scope.withTypeProvider<ZodTypeProvider>();
    r.addHook('onRequest', dashboardAuthHook(services));
    const tags = ['Dashboard : équipe'];
    const security = bearerSecurity;
    /** The merchant whose team this is; staff accounts have none. */
    const merchantOf = (request: FastifyRequest) => {
      const account = requireAccount(request);
      requireRole(account, 'MERCHANT');
      return account.accountId;
    };

    r.get(
      '/api/v1/merchants/team',
      {
        schema: {
          tags,
          summary: "L'équipe : le propriétaire, les membres et les invitations en attente",
          operationId: 'getTeam',
          security,
          response: { 200: success(teamData, "L'équipe", { message: 'Équipe récupérée.', data: { members: [EXAMPLE_OWNER], invitations: [EXAMPLE_INVITATION], membersNeedSecondFactor: false } }), ...errorResponses(...TEAM_ERRORS) },
        },
      },
      async (request) => {
        const team = await listTeam(request.services, merchantOf(request));
        return ok(
          {
            members: team.members.map((m) => ({ ...m, createdAt: ts(m.createdAt) })),
            invitations: team.invitations.map((i) => ({ ...i, expiresAt: ts(i.expiresAt), createdAt: ts(i.createdAt) })),
            membersNeedSecondFactor: team.membersNeedSecondFactor,
          },
          'Équipe récupérée.',
          now(),
        );
      },
    );

    r.put(
      '/api/v1/merchants/team/settings',
      {
        schema: {
          tags,
          summary: "Exiger un second facteur de tous les membres de l'équipe",
          operationId: 'updateTeamSettings',
          security,
          body: z.object({ membersNeedSecondFactor: z.boolean() }).meta({ examples: [{ membersNeedSecondFactor: true }] }),
          response: { 204: noContent, ...errorResponses(...BODY_ERRORS, ...TEAM_ERRORS) },
        },
      },
      async (request, reply) => {
        await setMembersNeedSecondFactor(request.services, merchantOf(request), request.body.membersNeedSecondFactor, auditActor(request));
        return reply.code(204).send(undefined);
      },
    );

    r.post(
      '/api/v1/merchants/team/invitations',
      {
        schema: {
          tags,
          summary: 'Inviter un membre par e-mail',
          description: "Envoie un lien d'invitation valable 7 jours. Une adresse qui a déjà un compte Kolo est refusée (409).",
          operationId: 'inviteMember',
          security,
          body: z
            .object({ email: z.string().trim().max(255).email(fr('doit être une adresse e-mail valide')), role: invitableRole })
            .meta({ examples: [{ email: EXAMPLE_INVITATION.email, role: 'FINANCE' }] }),
          response: {
            201: success(invitationData, "L'invitation envoyée", { message: 'Invitation envoyée.', data: EXAMPLE_INVITATION }),
            ...errorResponses(...BODY_ERRORS, ...TEAM_ERRORS, 'EMAIL_ALREADY_EXISTS'),
          },
        },
      },
      async (request, reply) => {
        const invitation = await inviteMember(request.services, merchantOf(request), request.body, auditActor(request));
        return reply.code(201).send(ok({ ...invitation, expiresAt: ts(invitation.expiresAt), createdAt: ts(invitation.createdAt) }, 'Invitation envoyée.', now()));
      },
    );

    r.delete(
      '/api/v1/merchants/team/invitations/:id',
      {
        schema: { tags, summary: 'Annuler une invitation en attente', operationId: 'revokeInvitation', security, params: idParams, response: { 204: noContent, ...errorResponses('INVALID_PARAMETER', ...TEAM_ERRORS, 'MEMBER_NOT_FOUND') } },
      },
      async (request, reply) => {
        await revokeInvitation(request.services, merchantOf(request), request.params.id, auditActor(request));
        return reply.code(204).send(undefined);
      },
    );

    r.patch(
      '/api/v1/merchants/team/members/:id',
      {
        schema: {
          tags,
          summary: "Changer le rôle d'un membre",
          operationId: 'changeMemberRole',
          security,
          params: idParams,
          body: z.object({ role: invitableRole }).meta({ examples: [{ role: 'APPROVER' }] }),
          response: { 204: noContent, ...errorResponses(...BODY_ERRORS, 'INVALID_PARAMETER', ...TEAM_ERRORS, 'MEMBER_NOT_FOUND') },
        },
      },
      async (request, reply) => {
        await changeMemberRole(request.services, merchantOf(request), request.params.id, request.body.role, auditActor(request));
        return reply.code(204).send(undefined);
      },
    );

    r.delete(
      '/api/v1/merchants/team/members/:id',
      {
        schema: {
          tags,
          summary: "Retirer un membre de l'équipe (ses sessions sont fermées)",
          operationId: 'removeMember',
          security,
          params: idParams,
          response: { 204: noContent, ...errorResponses('INVALID_PARAMETER', ...TEAM_ERRORS, 'MEMBER_NOT_FOUND') },
        },
      },
      async (request, reply) => {
        await removeMember(request.services, merchantOf(request), request.params.id, auditActor(request));
        return reply.code(204).send(undefined);
      },
    );
  });
}
