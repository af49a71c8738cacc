/**
 * The home screen's reads: balances, today's figures and a period's (`GET
 * /api/v1/merchants/home/today` and `…/period`), every figure computed by the server. The server
 * renderer (entry-server.tsx) fetches the same queries through its own client before drawing.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Client } from 'openapi-fetch';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import type { ApiData, ApiQuery } from '../../api/types';
import { balancesQuery } from './balances';
import type { QueryHookOptions } from './query-keys';

/** Today's figures asked for: environment and the reader's time zone. */
export type HomeTodayQuery = ApiQuery<'/api/v1/merchants/home/today'>;
/** A period's figures asked for: environment, the reader's time zone, 7 or 30 days. */
export type HomePeriodQuery = ApiQuery<'/api/v1/merchants/home/period'>;
export type HomeToday = ApiData<'/api/v1/merchants/home/today'>;
export type HomePeriod = ApiData<'/api/v1/merchants/home/period'>;
/** The periods the home screen offers. */
export type HomeInterval = NonNullable<HomePeriodQuery['interval']>;

export const homeQueryKeys = {
  all: ['home'] as const,
  today: (query: HomeTodayQuery) => [...homeQueryKeys.all, 'today', { query }] as const,
  period: (query: HomePeriodQuery) => [...homeQueryKeys.all, 'period', { query }] as const,
};

/** Today's figures through `client`. */
export function homeTodayQuery(query: HomeTodayQuery, client: Client<paths> = api) {
  return queryOptions({
    queryKey: homeQueryKeys.today(query),
    queryFn: () => unwrap(client.GET('/api/v1/merchants/home/today', { params: { query } })),
  });
}

/** A period's figures through `client`. */
export function homePeriodQuery(query: HomePeriodQuery, client: Client<paths> = api) {
  return queryOptions({
    queryKey: homeQueryKeys.period(query),
    queryFn: () => unwrap(client.GET('/api/v1/merchants/home/period', { params: { query } })),
  });
}

/** Every query the home screen draws from, through `client`: what the server renderer fetches first. */
export function homeQueries(client: Client<paths>, query: Required<Pick<HomePeriodQuery, 'environment' | 'timeZone' | 'interval'>>) {
  const { environment, timeZone } = query;
  return [balancesQuery({ environment }, client), homeTodayQuery({ environment, timeZone }, client), homePeriodQuery(query, client)] as const;
}

/** Today's volume, count and last transactions. */
export function useHomeToday(query: HomeTodayQuery, options?: QueryHookOptions<HomeToday>) {
  return useQuery({ ...options, ...homeTodayQuery(query) });
}

/** A period's success rate and daily volume. */
export function useHomePeriod(query: HomePeriodQuery, options?: QueryHookOptions<HomePeriod>) {
  return useQuery({ ...options, ...homePeriodQuery(query) });
}
