/**
 * My profile (`/api/v1/merchants/me`, the same route for merchants and staff): reading it (it
 * also names the server's time zone), editing name, phone and language, and my password.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type Profile = ApiData<'/api/v1/merchants/me'>;
export type ProfileBody = ApiBody<'/api/v1/merchants/me', 'patch'>;
export type PasswordBody = ApiBody<'/api/v1/merchants/me/password', 'put'>;

export const profileQueryKeys = {
  all: ['profile'] as const,
  me: () => [...profileQueryKeys.all, 'me'] as const,
};

/** Reads my profile once, outside any screen (the session does at sign-in). */
export function fetchProfile(): Promise<Profile> {
  return unwrap(api.GET('/api/v1/merchants/me'));
}

/** My profile. */
export function useProfile(options?: QueryHookOptions<Profile>) {
  return useQuery({ ...options, queryKey: profileQueryKeys.me(), queryFn: fetchProfile });
}

/** Edits my profile: name, phone, or the dashboard's language. */
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
