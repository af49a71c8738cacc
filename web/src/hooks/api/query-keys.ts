/**
 * Query keys of one resource, built the same way for every resource (as Medusa's admin builds
 * them): `all` holds `lists()` and `details()`, `lists()` holds every `list(query)`, `details()`
 * every `detail(id)`. A mutation invalidates the widest key whose answers it changed, e.g.
 * `transactionsQueryKeys.all` after a refund, `applicationsQueryKeys.lists()` after a rename.
 * Also the option types every hook takes, and `invalidate`.
 */
import type { QueryClient, QueryKey, UseMutationOptions, UseQueryOptions } from '@tanstack/react-query';

/** The key factory of `resource`; `TQuery` is what its lists are filtered by, `TId` what names one. */
export function queryKeysFactory<const TResource extends string, TQuery = never, TId = string>(resource: TResource) {
  const all = [resource] as const;
  return {
    all,
    lists: () => [...all, 'list'] as const,
    list: (query?: TQuery) => [...all, 'list', { query }] as const,
    details: () => [...all, 'detail'] as const,
    detail: (id: TId) => [...all, 'detail', id] as const,
  };
}

/**
 * What a query hook's caller may set (`enabled`, `placeholderData`, …): not the key nor the call,
 * which the hook owns. Any key type: the hook's own key, a precise tuple, is the one used.
 */
export type QueryHookOptions<TData> = Omit<UseQueryOptions<TData, Error, TData, any>, 'queryKey' | 'queryFn'>;

/** What a mutation hook's caller may set; its `onSuccess` runs once the hook's invalidations are done. */
export type MutationHookOptions<TData, TVariables> = Omit<UseMutationOptions<TData, Error, TVariables>, 'mutationFn'>;

/** Marks the queries under each of `keys` stale, and waits for those on screen to be read again. */
export async function invalidate(queryClient: QueryClient, keys: readonly QueryKey[]): Promise<void> {
  await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}
