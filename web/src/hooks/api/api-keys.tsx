/** An application's API keys: the list, a new or rotated key (shown once), revoking the active one. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { applicationsQueryKeys } from './applications';
import { invalidate, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type ApiKey = ApiData<'/api/v1/merchants/apps/{appId}/api-keys'>[number];
export type IssuedApiKey = ApiData<'/api/v1/merchants/apps/{appId}/api-keys', 'post'>;
/** Name and environment of a new key; `rotate` revokes the active one first. */
export type IssueApiKeyInput = ApiBody<'/api/v1/merchants/apps/{appId}/api-keys', 'post'> & { rotate: boolean };

export const apiKeysQueryKeys = {
  all: ['api-keys'] as const,
  list: (appId: string) => [...apiKeysQueryKeys.all, 'list', appId] as const,
};

/** The keys of application `appId` (the list shows each key's prefix, the application its active one). */
export function useApiKeys(appId: string, options?: QueryHookOptions<ApiKey[]>) {
  return useQuery({
    ...options,
    queryKey: apiKeysQueryKeys.list(appId),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/api-keys', { params: { path: { appId } } })),
  });
}

/** Issues a key of application `appId`, or rotates the active one. */
export function useIssueApiKey(appId: string, options?: MutationHookOptions<IssuedApiKey, IssueApiKeyInput>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ rotate, ...body }) =>
      unwrap(
        rotate
          ? api.POST('/api/v1/merchants/apps/{appId}/api-keys/rotate', { params: { path: { appId } }, body })
          : api.POST('/api/v1/merchants/apps/{appId}/api-keys', { params: { path: { appId } }, body }),
      ),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [apiKeysQueryKeys.list(appId), applicationsQueryKeys.lists(), applicationsQueryKeys.detail(appId)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Revokes the active key of application `appId`. */
export function useRevokeApiKey(appId: string, options?: MutationHookOptions<void, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => expectNoContent(api.DELETE('/api/v1/merchants/apps/{appId}/api-keys', { params: { path: { appId } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [apiKeysQueryKeys.list(appId), applicationsQueryKeys.lists(), applicationsQueryKeys.detail(appId)]);
      await options?.onSuccess?.(...args);
    },
  });
}
