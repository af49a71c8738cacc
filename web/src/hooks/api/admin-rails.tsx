/** Staff: the payment rails, their limits and fees; ADMIN turns one on or off and edits it. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type Rail = ApiData<'/api/v1/admin/providers'>[number];
/** A rail's every field: the API's update replaces the whole rail. */
export type RailBody = ApiBody<'/api/v1/admin/providers/{id}', 'put'>;

export const adminRailsQueryKeys = queryKeysFactory<'admin-rails'>('admin-rails');

/** Every rail. */
export function useAdminRails(options?: QueryHookOptions<Rail[]>) {
  return useQuery({ ...options, queryKey: adminRailsQueryKeys.list(), queryFn: () => unwrap(api.GET('/api/v1/admin/providers')) });
}

/** Turns rail `id` (the variable) on or off. */
export function useToggleRail(options?: MutationHookOptions<Rail, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (id) => unwrap(api.PATCH('/api/v1/admin/providers/{id}/toggle', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminRailsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Replaces rail `id` with the body. */
export function useUpdateRail(id: string, options?: MutationHookOptions<Rail, RailBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PUT('/api/v1/admin/providers/{id}', { params: { path: { id } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminRailsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

export type RailAvailability = ApiData<'/api/v1/admin/rails/availability'>[number];

export const railAvailabilityQueryKeys = queryKeysFactory<'rail-availability'>('rail-availability');

/** Every active rail's LIVE availability, per direction (staff). */
export function useRailAvailability(options?: QueryHookOptions<RailAvailability[]>) {
  return useQuery({ ...options, queryKey: railAvailabilityQueryKeys.list(), queryFn: () => unwrap(api.GET('/api/v1/admin/rails/availability')) });
}
