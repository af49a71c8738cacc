/** The rails I may use (`GET /api/v1/merchants/providers`): codes, names, currencies, limits, my fees, environments. */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiData } from '../../api/types';
import { queryKeysFactory, type QueryHookOptions } from './query-keys';

export type Provider = ApiData<'/api/v1/merchants/providers'>[number];

export const providersQueryKeys = queryKeysFactory<'providers'>('providers');

/** The active rails I may use; they seldom change, so they are read again after 5 minutes at most. */
export function useProviders(options?: QueryHookOptions<Provider[]>) {
  return useQuery({
    staleTime: 300_000,
    ...options,
    queryKey: providersQueryKeys.list(),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/providers')),
  });
}
