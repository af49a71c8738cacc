/**
 * The team of the signed-in merchant account: its members and pending invitations, inviting by
 * e-mail, changing a member's role, removing a member, cancelling an invitation, asking a second
 * factor of every member, and (signed out) accepting an invitation from its e-mailed link.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type Team = ApiData<'/api/v1/merchants/team'>;
export type TeamMember = Team['members'][number];
export type InviteBody = ApiBody<'/api/v1/merchants/team/invitations', 'post'>;
export type AcceptInvitationBody = ApiBody<'/api/v1/auth/accept-invitation', 'post'>;
/** A role an invitation or a role change may give. */
export type InvitableRole = InviteBody['role'];

export const teamQueryKeys = queryKeysFactory('team');

/** The team: the owner first, the members, the pending invitations. */
export function useTeam(options?: QueryHookOptions<Team>) {
  return useQuery({ ...options, queryKey: teamQueryKeys.lists(), queryFn: () => unwrap(api.GET('/api/v1/merchants/team')) });
}

/** Invites an address with a role (an e-mail with a 7-day link is sent). */
export function useInviteMember(options?: MutationHookOptions<ApiData<'/api/v1/merchants/team/invitations', 'post'>, InviteBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/team/invitations', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [teamQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Gives a member another role. */
export function useChangeMemberRole(options?: MutationHookOptions<void, { id: string; role: InvitableRole }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ id, role }) => expectNoContent(api.PATCH('/api/v1/merchants/team/members/{id}', { params: { path: { id } }, body: { role } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [teamQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Removes a member (their sessions close). */
export function useRemoveMember(options?: MutationHookOptions<void, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (id) => expectNoContent(api.DELETE('/api/v1/merchants/team/members/{id}', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [teamQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Cancels a pending invitation. */
export function useRevokeInvitation(options?: MutationHookOptions<void, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (id) => expectNoContent(api.DELETE('/api/v1/merchants/team/invitations/{id}', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [teamQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Accepts an invitation (signed out): creates the member's login. */
export function useAcceptInvitation(options?: MutationHookOptions<ApiData<'/api/v1/auth/accept-invitation', 'post'>, AcceptInvitationBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/accept-invitation', { body })) });
}

/** Sets whether every member must use a second factor. */
export function useTeamSettings(options?: MutationHookOptions<void, boolean>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (membersNeedSecondFactor) => expectNoContent(api.PUT('/api/v1/merchants/team/settings', { body: { membersNeedSecondFactor } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [teamQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
