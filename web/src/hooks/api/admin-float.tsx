/** Staff: each LIVE rail's operator float; ADMIN reads a rail's operator balance now. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiData } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type RailFloat = ApiData<'/api/v1/admin/float'>[number];

export const adminFloatQueryKeys = queryKeysFactory<'admin-float'>('admin-float');

/** The float of every LIVE rail. */
export function useAdminFloat(options?: QueryHookOptions<RailFloat[]>) {
  return useQuery({ ...options, queryKey: adminFloatQueryKeys.list(), queryFn: () => unwrap(api.GET('/api/v1/admin/float')) });
}

/** Reads rail `railCode`'s (the variable) operator balance now. */
export function useReadFloat(options?: MutationHookOptions<RailFloat, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (railCode) => unwrap(api.POST('/api/v1/admin/float/{railCode}/read', { params: { path: { railCode } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminFloatQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
