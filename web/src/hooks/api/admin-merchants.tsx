/**
 * Staff: the merchants (list, search, one merchant's overview), their account status and KYC
 * level, and their own fees per rail and direction. Reads for ADMIN and SUPPORT; the writes are
 * ADMIN's (the API refuses SUPPORT).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
import type { ApiBody, ApiData, ApiPath, ApiQuery } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type MerchantListQuery = ApiQuery<'/api/v1/admin/merchants'>;
export type MerchantPage = ApiData<'/api/v1/admin/merchants'>;
export type AccountStatus = NonNullable<MerchantListQuery['status']>;
export type MerchantOverview = ApiData<'/api/v1/admin/merchants/{id}/overview'>;
export type MerchantFee = ApiData<'/api/v1/admin/merchants/{id}/fees'>[number];
export type MerchantFeeBody = ApiBody<'/api/v1/admin/merchants/{id}/fees', 'put'>;
/** The rail and direction of a fee override. */
export type MerchantFeeKey = Omit<ApiPath<'/api/v1/admin/merchants/{id}/fees/{providerCode}/{direction}', 'delete'>, 'id'>;
export type KycLevel = ApiBody<'/api/v1/admin/merchants/{id}/kyc', 'patch'>['kycLevel'];
/** What staff may set: active or suspended. */
export type StatusChange = ApiBody<'/api/v1/admin/merchants/{id}/status', 'patch'>['status'];

export const adminMerchantsQueryKeys = {
  ...queryKeysFactory<'admin-merchants', MerchantListQuery>('admin-merchants'),
  fees: (id: string) => ['admin-merchants', 'fees', id] as const,
};

/** A page of merchants; the previous page stays shown while the next one loads. */
export function useAdminMerchants(query: MerchantListQuery, options?: QueryHookOptions<MerchantPage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: adminMerchantsQueryKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/admin/merchants', { params: { query } })),
  });
}

/** One merchant: profile, applications and transactions by status. */
export function useAdminMerchant(id: string, options?: QueryHookOptions<MerchantOverview>) {
  return useQuery({
    ...options,
    queryKey: adminMerchantsQueryKeys.detail(id),
    queryFn: () => unwrap(api.GET('/api/v1/admin/merchants/{id}/overview', { params: { path: { id } } })),
  });
}

/** One merchant's own fees. */
export function useMerchantFees(id: string, options?: QueryHookOptions<MerchantFee[]>) {
  return useQuery({
    ...options,
    queryKey: adminMerchantsQueryKeys.fees(id),
    queryFn: () => unwrap(api.GET('/api/v1/admin/merchants/{id}/fees', { params: { path: { id } } })),
  });
}

/** Suspends or reactivates merchant `id`. */
export function useSetMerchantStatus(options?: MutationHookOptions<ApiData<'/api/v1/admin/merchants/{id}/status', 'patch'>, { id: string; status: StatusChange }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ id, status }) => unwrap(api.PATCH('/api/v1/admin/merchants/{id}/status', { params: { path: { id } }, body: { status } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminMerchantsQueryKeys.lists(), adminMerchantsQueryKeys.detail(args[1].id)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Sets the KYC level of merchant `id`. */
export function useSetMerchantKyc(id: string, options?: MutationHookOptions<ApiData<'/api/v1/admin/merchants/{id}/kyc', 'patch'>, KycLevel>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (kycLevel) => unwrap(api.PATCH('/api/v1/admin/merchants/{id}/kyc', { params: { path: { id } }, body: { kycLevel } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminMerchantsQueryKeys.lists(), adminMerchantsQueryKeys.detail(id)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Sets merchant `id`'s own fee on a rail and direction. */
export function useSetMerchantFee(id: string, options?: MutationHookOptions<ApiData<'/api/v1/admin/merchants/{id}/fees', 'put'>, MerchantFeeBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PUT('/api/v1/admin/merchants/{id}/fees', { params: { path: { id } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminMerchantsQueryKeys.fees(id)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Removes merchant `id`'s own fee on a rail and direction (the rail's applies again). */
export function useRemoveMerchantFee(id: string, options?: MutationHookOptions<void, MerchantFeeKey>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (fee) => expectNoContent(api.DELETE('/api/v1/admin/merchants/{id}/fees/{providerCode}/{direction}', { params: { path: { id, ...fee } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminMerchantsQueryKeys.fees(id)]);
      await options?.onSuccess?.(...args);
    },
  });
}
