/**
 * My profile (`/api/v1/merchants/me`, the same route for merchants and staff): reading it,
 * editing name and phone, and my password. The session reads it at sign-in (session.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, type MutationHookOptions, type QueryHookOptions } from './query-keys';
import { fetchProfile, type Profile } from './session';

export type { Profile };

export type ProfileBody = ApiBody<'/api/v1/merchants/me', 'patch'>;
export type PasswordBody = ApiBody<'/api/v1/merchants/me/password', 'put'>;

export const profileQueryKeys = {
  all: ['profile'] as const,
  me: () => [...profileQueryKeys.all, 'me'] as const,
};

/** My profile. */
export function useProfile(options?: QueryHookOptions<Profile>) {
  return useQuery({ ...options, queryKey: profileQueryKeys.me(), queryFn: fetchProfile });
}

/** Edits my profile: name and phone. */
export function useUpdateProfile(options?: MutationHookOptions<Profile, ProfileBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PATCH('/api/v1/merchants/me', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [profileQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Changes my password (the current one is asked for). */
export function useChangePassword(options?: MutationHookOptions<ApiData<'/api/v1/merchants/me/password', 'put'>, PasswordBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.PUT('/api/v1/merchants/me/password', { body })) });
}
