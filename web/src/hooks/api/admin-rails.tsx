/** Staff: the payment rails, their limits and fees, their LIVE availability; ADMIN turns one on or off, edits it and sets or clears its availability. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
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

/** What staff set for one rail and direction: the status that replaces the computed one in LIVE, and why. */
export type RailAvailabilityOverride = { code: string; direction: RailAvailability['direction']; status: RailAvailability['status']; reason?: string };

/** Sets staff's LIVE availability of a rail for one direction (ADMIN; audited `RAIL_AVAILABILITY_SET`). */
export function useSetRailAvailability(options?: MutationHookOptions<void, RailAvailabilityOverride>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ code, direction, status, reason }) =>
      expectNoContent(api.PUT('/api/v1/admin/rails/{code}/availability/{direction}', { params: { path: { code, direction } }, body: { status, ...(reason ? { reason } : {}) } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [railAvailabilityQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Removes staff's availability of a rail for one direction: the traffic decides again (ADMIN; audited `RAIL_AVAILABILITY_CLEARED`). */
export function useClearRailAvailability(options?: MutationHookOptions<void, Pick<RailAvailabilityOverride, 'code' | 'direction'>>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ code, direction }) => expectNoContent(api.DELETE('/api/v1/admin/rails/{code}/availability/{direction}', { params: { path: { code, direction } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [railAvailabilityQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
