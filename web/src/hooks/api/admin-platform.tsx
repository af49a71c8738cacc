/** Staff: the platform's figures over a period, and (ADMIN) the audit log. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiData, ApiQuery } from '../../api/types';
import type { QueryHookOptions } from './query-keys';

export type PlatformStatsQuery = ApiQuery<'/api/v1/admin/stats/overview'>;
export type PlatformStats = ApiData<'/api/v1/admin/stats/overview'>;
export type AuditQuery = ApiQuery<'/api/v1/admin/audit-log'>;
export type AuditPage = ApiData<'/api/v1/admin/audit-log'>;

export const adminPlatformQueryKeys = {
  all: ['admin-platform'] as const,
  stats: (query: PlatformStatsQuery) => [...adminPlatformQueryKeys.all, 'stats', { query }] as const,
  audit: (query: AuditQuery) => [...adminPlatformQueryKeys.all, 'audit', { query }] as const,
};

/** The platform's figures (merchants, transactions, volumes, per rail) over `query`'s period. */
export function usePlatformStats(query: PlatformStatsQuery, options?: QueryHookOptions<PlatformStats>) {
  return useQuery({
    ...options,
    queryKey: adminPlatformQueryKeys.stats(query),
    queryFn: () => unwrap(api.GET('/api/v1/admin/stats/overview', { params: { query } })),
  });
}

/** A page of the audit log, newest first; the previous page stays shown while the next one loads. */
export function useAuditLog(query: AuditQuery, options?: QueryHookOptions<AuditPage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: adminPlatformQueryKeys.audit(query),
    queryFn: () => unwrap(api.GET('/api/v1/admin/audit-log', { params: { query } })),
  });
}
