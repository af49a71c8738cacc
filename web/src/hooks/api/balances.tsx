/** Balances: what is available, pending and reserved per currency (`GET /api/v1/merchants/balance`). */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Client } from 'openapi-fetch';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import type { ApiData, ApiQuery } from '../../api/types';
import { queryKeysFactory, type QueryHookOptions } from './query-keys';

/** Whose balances: an environment, and one application or all. */
export type BalanceQuery = ApiQuery<'/api/v1/merchants/balance'>;
/** One line per currency, amounts in base units. */
export type BalanceLine = ApiData<'/api/v1/merchants/balance'>[number];

export const balancesQueryKeys = queryKeysFactory<'balances', BalanceQuery>('balances');

/** The balances query through `client` (the app's, or the server renderer's). */
export function balancesQuery(query: BalanceQuery, client: Client<paths> = api) {
  return queryOptions({
    queryKey: balancesQueryKeys.list(query),
    queryFn: () => unwrap(client.GET('/api/v1/merchants/balance', { params: { query } })),
  });
}

/** The balances of `query`. */
export function useBalances(query: BalanceQuery, options?: QueryHookOptions<BalanceLine[]>) {
  return useQuery({ ...options, ...balancesQuery(query) });
}
