/** Fund collections: the list, creating one on an application, closing and reopening one. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData, ApiQuery } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type CollectionQuery = ApiQuery<'/api/v1/merchants/fund-collections'>;
export type Collection = ApiData<'/api/v1/merchants/fund-collections'>[number];
/** The application it collects for, and the collection's fields. */
export type CreateCollectionInput = ApiBody<'/api/v1/merchants/apps/{applicationId}/fund-collections', 'post'> & { applicationId: string };

export const collectionsQueryKeys = queryKeysFactory<'collections', CollectionQuery>('collections');

/** My collections matching `query`, newest first. */
export function useCollections(query: CollectionQuery, options?: QueryHookOptions<Collection[]>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: collectionsQueryKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/fund-collections', { params: { query } })),
  });
}

/** Creates a collection on one of my applications. */
export function useCreateCollection(options?: MutationHookOptions<Collection, CreateCollectionInput>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ applicationId, ...body }) => unwrap(api.POST('/api/v1/merchants/apps/{applicationId}/fund-collections', { params: { path: { applicationId } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [collectionsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Closes collection `id` (`isOpen` false) or reopens it. */
export function useSetCollectionOpen(options?: MutationHookOptions<Collection, { id: string; isOpen: boolean }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ id, isOpen }) =>
      unwrap(
        isOpen
          ? api.PATCH('/api/v1/merchants/fund-collections/{id}/reopen', { params: { path: { id } }, body: {} })
          : api.PATCH('/api/v1/merchants/fund-collections/{id}/close', { params: { path: { id } } }),
      ),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [collectionsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
